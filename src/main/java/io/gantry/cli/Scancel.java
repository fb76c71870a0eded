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

/**
 * {@code scancel}: jobs by id ({@code 42}, {@code 42_7}, {@code 42_[1-3]}), steps ({@code 42.1}) or by filter,
 * silent on success as in Slurm.
 */
final class Scancel {

    static final List<Option> OPTIONS = List.of(new Option("user", 'u', true), new Option("name", 'n', true),
            new Option("state", 't', true), new Option("partition", 'p', true), new Option("account", 'A', true),
            new Option("signal", 's', true), new Option("quiet", 'Q', false), new Option("verbose", 'v', false),
            new Option("interactive", 'i', false), new Option("batch", 'b', false), new Option("full", 'f', false),
            new Option("me", '\0', false), new Option("help", '\0', false), new Option("usage", '\0', false),
            new Option("version", 'V', false), new Option("qos", 'q', true), new Option("jobname", '\0', true),
            new Option("clusters", 'M', true));

    private final CliEnvironment env;

    Scancel(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        Clusters.named(env, "scancel", line.value("clusters"));
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
        List<String> ids = new ArrayList<>();
        List<String> steps = new ArrayList<>();
        for (String operand : line.operands()) {
            for (String id : expandIds(operand)) {
                int dot = id.indexOf('.');
                if (dot < 0) {
                    ids.add(id);
                } else if (dot > 0 && id.substring(dot + 1).matches("\\d{1,9}")) {
                    steps.add(id);
                } else {
                    // 42.batch and 42.x: scancel 22.05 takes only numbered steps
                    env.err().println("scancel: error: Invalid job id " + id);
                    return 1;
                }
            }
        }
        boolean filtered = line.has("user") || line.has("name") || line.has("jobname") || line.has("state")
                || line.has("partition") || line.has("account") || line.has("me") || line.has("qos");
        if (ids.isEmpty() && steps.isEmpty() && !filtered) {
            env.err().println("scancel: error: No job identification provided");
            return 1;
        }
        ControllerApi api = env.api().get();
        int stepCode = signalSteps(api, steps, signal);
        if (ids.isEmpty() && !filtered) {
            return stepCode;
        }
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
            filters.put("state", states.isEmpty() ? "PENDING,RUNNING,SUSPENDED,COMPLETING" : String.join(",", states));
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
            return Math.max(stepCode, signalAll(api, targets, signal, line, false));
        }
        if (line.has("batch") && !line.has("full")) {
            // -b alone: SIGKILL to the batch shell only, as scancel 22.05 sends it; the job ends when its
            // script does. A pending job is cancelled, as Slurm cancels one on SIGKILL.
            return Math.max(stepCode, signalAll(api, targets, "KILL", line, true));
        }
        int code = stepCode;
        for (String id : targets) {
            code = Math.max(code, cancel(api, id));
        }
        return code;
    }

    private int cancel(ControllerApi api, String id) {
        try {
            api.delete("/api/v1/jobs/" + HttpControllerApi.encode(id));
            return 0;
        } catch (ControllerApi.ApiException e) {
            if (e.status() == 404) {
                env.err().println("scancel: error: Kill job error on job id " + id + ": Invalid job id specified");
            } else if (e.status() == 409 || e.getMessage().contains("already")) {
                env.err().println("scancel: error: Kill job error on job id " + id
                        + ": Job/step already completing or completed");
            } else {
                env.err().println("scancel: error: Kill job error on job id " + id + ": " + e.getMessage());
            }
            return 1;
        }
    }

    /**
     * {@code 42.1}: a step, through the step signal relay; without {@code --signal} SIGKILL, which is how
     * Slurm cancels a step (the job goes on). As scancel 22.05 answers: an unknown job is "Invalid job id"
     * (exit 1); a job that has no such running step is the same message naming the job alone, with
     * scancel's exit code for it (225, Slurm's error number 2017 as an exit status) when cancelling, and
     * nothing at all (exit 0) when only signalling.
     */
    private int signalSteps(ControllerApi api, List<String> steps, String signal) {
        int code = 0;
        for (String target : steps) {
            int dot = target.indexOf('.');
            String job = target.substring(0, dot);
            String step = target.substring(dot + 1);
            String why;
            boolean jobKnown;
            try {
                JsonNode answer = api.post("/api/v1/jobs/" + HttpControllerApi.encode(job) + "/steps/" + step
                        + "/signal?signal=" + HttpControllerApi.encode(signal == null ? "KILL" : signal), null);
                if (signal != null || answer == null || !answer.path("nodes").isEmpty()) {
                    continue;
                }
                // it had ended already: Slurm has forgotten it
                why = "Invalid job id specified";
                jobKnown = true;
            } catch (ControllerApi.ApiException e) {
                if (e.status() == 404) {
                    why = "Invalid job id specified";
                    // the relay knows only running jobs: a job that is there but does not run has no steps
                    jobKnown = e.getMessage().startsWith("Running step") || api.get("/api/v1/jobs/"
                            + HttpControllerApi.encode(job)) != null;
                } else if (e.status() == 403) {
                    why = "Access/permission denied";
                    jobKnown = false;
                } else {
                    why = e.getMessage();
                    jobKnown = false;
                }
            }
            if (jobKnown && why.equals("Invalid job id specified")) {
                if (signal == null) {
                    env.err().println("scancel: error: Kill job error on job step id " + job + ": " + why);
                    code = Math.max(code, 225);
                }
            } else {
                env.err().println("scancel: error: Kill job error on job step id " + target + ": " + why);
                code = Math.max(code, 1);
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
    private int signalAll(ControllerApi api, java.util.Collection<String> targets, String signal, CommandLine line,
            boolean cancelIfNotRunning) {
        String scope = line.has("full") ? "" : line.has("batch") ? "&batch=true" : "&stepsOnly=true";
        int code = 0;
        for (String id : targets) {
            try {
                api.post("/api/v1/jobs/" + HttpControllerApi.encode(id) + "/signal?signal="
                        + HttpControllerApi.encode(signal) + scope, null);
            } catch (ControllerApi.ApiException e) {
                if (cancelIfNotRunning && e.status() == 409
                        && (e.getMessage().contains(" is PENDING") || e.getMessage().contains("simulated"))) {
                    // a pending job, or one on simulated nodes, which have no shell to kill: cancelled
                    code = Math.max(code, cancel(api, id));
                    continue;
                }
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
