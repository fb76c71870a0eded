package io.gantry.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import io.gantry.cli.CommandLine.Option;
import io.gantry.jobs.JobSignal;
import tools.jackson.databind.JsonNode;

/** {@code scancel}: jobs by id ({@code 42}, {@code 42_7}, {@code 42_[1-3]}) or by filter, silent on success as in Slurm. */
final class Scancel {

    static final List<Option> OPTIONS = List.of(new Option("user", 'u', true), new Option("name", 'n', true),
            new Option("state", 't', true), new Option("partition", 'p', true), new Option("account", 'A', true),
            new Option("signal", 's', true), new Option("quiet", 'Q', false), new Option("verbose", 'v', false),
            new Option("interactive", 'i', false), new Option("batch", 'b', false), new Option("full", 'f', false),
            new Option("me", '\0', false), new Option("help", '\0', false), new Option("usage", '\0', false),
            new Option("version", 'V', false), new Option("qos", 'q', true), new Option("jobname", '\0', true));

    private final CliEnvironment env;

    Scancel(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        String signal = null;
        if (line.has("signal")) {
            try {
                signal = JobSignal.signalName(line.value("signal"));
            } catch (IllegalArgumentException e) {
                // sig_name2num's refusal, as scancel 22.05 prints it
                env.err().println("Unknown job signal: " + line.value("signal"));
                return 1;
            }
        }
        // Without --signal, -b and -f change nothing: the job is cancelled (Slurm's SIGKILL to the batch
        // step with -b ends the job just the same).
        List<String> ids = new ArrayList<>();
        for (String operand : line.operands()) {
            ids.addAll(expandIds(operand));
        }
        boolean filtered = line.has("user") || line.has("name") || line.has("jobname") || line.has("state")
                || line.has("partition") || line.has("account") || line.has("me") || line.has("qos");
        if (ids.isEmpty() && !filtered) {
            env.err().println("scancel: error: No job identification provided");
            return 1;
        }
        ControllerApi api = env.api().get();
        Set<String> targets = new LinkedHashSet<>(ids);
        if (filtered) {
            Set<String> states = new LinkedHashSet<>();
            for (String word : line.list("state")) {
                String state = SlurmText.jobState(word);
                if (state == null) {
                    env.err().println("scancel: error: Invalid job state specified: " + word);
                    return 1;
                }
                states.add(state);
            }
            List<String> users = new ArrayList<>(line.list("user"));
            if (line.has("me")) {
                users.add(api.get("/api/v1/auth/whoami").path("username").asString());
            }
            Map<String, String> filters = new LinkedHashMap<>();
            filters.put("state", states.isEmpty() ? "PENDING,RUNNING,COMPLETING" : String.join(",", states));
            List<String> names = new ArrayList<>(line.list("name"));
            names.addAll(line.list("jobname"));
            List<String> partitions = line.list("partition");
            List<String> accounts = line.list("account");
            List<String> qos = line.list("qos");
            List<JsonNode> jobs = Jobs.list(api, filters);
            Set<String> matching = new LinkedHashSet<>();
            for (JsonNode j : jobs) {
                if ((users.isEmpty() || users.contains(j.path("user").asString()))
                        && (names.isEmpty() || names.contains(j.path("name").asString()))
                        && (partitions.isEmpty() || partitions.contains(j.path("partition").asString()))
                        && (accounts.isEmpty() || accounts.contains(j.path("account").asString()))
                        && (qos.isEmpty() || qos.contains(j.path("qos").asString()))
                        && (ids.isEmpty() || ids.contains(Jobs.id(j)) || ids.contains(j.path("jobId").asString()))) {
                    matching.add(Jobs.id(j));
                }
            }
            targets = matching;
        }
        if (signal != null) {
            return signalAll(api, targets, signal, line);
        }
        int code = 0;
        for (String id : targets) {
            try {
                api.delete("/api/v1/jobs/" + HttpControllerApi.encode(id));
            } catch (ControllerApi.ApiException e) {
                if (e.status() == 404) {
                    env.err().println("scancel: error: Kill job error on job id " + id + ": Invalid job id specified");
                } else if (e.status() == 409 || e.getMessage().contains("already")) {
                    env.err().println("scancel: error: Kill job error on job id " + id
                            + ": Job/step already completing or completed");
                } else {
                    env.err().println("scancel: error: Kill job error on job id " + id + ": " + e.getMessage());
                }
                code = 1;
            }
        }
        return code;
    }

    /**
     * {@code --signal}: to the srun steps alone by default, to the batch shell alone with {@code -b}, to
     * the batch step and every step with {@code -f} (which wins over {@code -b}), as scancel 22.05 does.
     * A job that does not run is refused at once (Slurm's scancel retries a pending one for minutes
     * before it says the same).
     */
    private int signalAll(ControllerApi api, java.util.Collection<String> targets, String signal, CommandLine line) {
        String scope = line.has("full") ? "" : line.has("batch") ? "&batch=true" : "&stepsOnly=true";
        int code = 0;
        for (String id : targets) {
            try {
                api.post("/api/v1/jobs/" + HttpControllerApi.encode(id) + "/signal?signal="
                        + HttpControllerApi.encode(signal) + scope, null);
            } catch (ControllerApi.ApiException e) {
                String why;
                if (e.status() == 404) {
                    why = "Invalid job id specified";
                } else if (e.status() == 409 && e.getMessage().contains(" is PENDING")) {
                    why = "Job can not be altered now, try again later";
                } else if (e.status() == 409 && e.getMessage().contains("simulated")) {
                    why = e.getMessage();
                } else if (e.status() == 409) {
                    why = "Job/step already completing or completed";
                } else if (e.status() == 403) {
                    why = "Access/permission denied";
                } else {
                    why = e.getMessage();
                }
                env.err().println("scancel: error: Kill job error on job id " + id + ": " + why);
                code = 1;
            }
        }
        return code;
    }

    /** {@code 42_[1-3,5]} is 42_1, 42_2, 42_3, 42_5; other forms are themselves. */
    static List<String> expandIds(String operand) {
        List<String> out = new ArrayList<>();
        for (String part : operand.split(",(?![^\\[]*\\])")) {
            int open = part.indexOf("_[");
            if (open > 0 && part.endsWith("]")) {
                String base = part.substring(0, open);
                for (String task : SlurmText.expand("t[" + part.substring(open + 2))) {
                    out.add(base + "_" + task.substring(1));
                }
            } else if (!part.isBlank()) {
                out.add(part.strip());
            }
        }
        return out;
    }
}
