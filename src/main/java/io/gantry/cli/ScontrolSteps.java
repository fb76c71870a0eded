package io.gantry.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import tools.jackson.databind.JsonNode;

/**
 * {@code scontrol show step [J[.S]]}: running steps in Slurm 22.05's layout (recorded from a live Slurm), from
 * the job and {@code GET /api/v1/jobs/{id}/steps}. Without an id, every running step of the jobs the caller
 * sees, each job's batch step first; {@code J} alone, that job's. Unlike Slurm 22.05, which reads
 * {@code J.batch} as {@code J.0}, {@code J.batch} shows the batch step. What Gantry does not record (the host
 * and pid of srun, reserved ports, a network) prints as Slurm prints it unset.
 */
final class ScontrolSteps {

    private final CliEnvironment env;
    private final BiConsumer<List<List<String>>, Boolean> print;
    private final Path passwd;

    ScontrolSteps(CliEnvironment env, BiConsumer<List<List<String>>, Boolean> print) {
        this(env, print, Path.of("/etc/passwd"));
    }

    ScontrolSteps(CliEnvironment env, BiConsumer<List<List<String>>, Boolean> print, Path passwd) {
        this.env = env;
        this.print = print;
        this.passwd = passwd;
    }

    int show(String name, boolean oneLiner) {
        ControllerApi api = env.api().get();
        if (name == null) {
            int shown = 0;
            for (JsonNode job : Jobs.list(api, Map.of("state", "RUNNING"))) {
                shown += printRunning(api, job, null, oneLiner);
            }
            if (shown == 0) {
                env.out().println("No job steps in the system");
            }
            return 0;
        }
        int dot = name.indexOf('.');
        String jobId = dot < 0 ? name : name.substring(0, dot);
        String step = dot < 0 ? null : name.substring(dot + 1);
        JsonNode job = api.get("/api/v1/jobs/" + HttpControllerApi.encode(jobId));
        if (job == null) {
            env.err().println("slurm_get_job_steps error: Invalid job id specified");
            return 1;
        }
        if (printRunning(api, job, step, oneLiner) == 0) {
            // as Slurm 22.05 says it, the dot too when no step was named (recorded for a pending and an ended job)
            env.out().println("Job step " + jobId + "." + (step == null ? "" : step) + " not found");
            return 1;
        }
        return 0;
    }

    /** Prints the job's running steps ({@code step} alone when given); how many. */
    private int printRunning(ControllerApi api, JsonNode job, String step, boolean oneLiner) {
        String id = Jobs.id(job);
        JsonNode steps = api.get("/api/v1/jobs/" + HttpControllerApi.encode(id) + "/steps");
        if (steps == null) {
            return 0;
        }
        int shown = 0;
        for (JsonNode s : steps.path("items")) {
            if (!"RUNNING".equals(s.path("state").asString())
                    || step != null && !step.equals(s.path("stepId").asString())) {
                continue;
            }
            print.accept(lines(job, s), oneLiner);
            shown++;
        }
        return shown;
    }

    /** One step's lines. */
    List<List<String>> lines(JsonNode job, JsonNode step) {
        boolean batch = "batch".equals(step.path("stepId").asString());
        int nodes = Math.max(1, step.path("nodes").asInt(1));
        int tasks = Math.max(1, step.path("tasks").asInt(1));
        int cpus = batch ? 0 : tasks * Math.max(1, step.path("cpusPerTask").asInt(1));
        long memoryMb = job.path("memoryMb").asLong();
        String tres = batch ? "(null)" : "cpu=" + cpus + (memoryMb > 0 ? ",mem=" + megabytes(memoryMb * nodes) : "")
                + ",node=" + nodes;
        String user = SlurmText.text(job, "user", "");
        return List.of(
                List.of("StepId=" + step.path("id").asString(), "UserId=" + uid(user),
                        "StartTime=" + SlurmText.time(step.get("startTime"), env.zone(), "Unknown"),
                        "TimeLimit=UNLIMITED"),
                List.of("State=" + step.path("state").asString(), "Partition=" + SlurmText.text(job, "partition", ""),
                        "NodeList=" + SlurmText.text(step, "nodelist", "")),
                List.of("Nodes=" + nodes, "CPUs=" + cpus, "Tasks=" + tasks, "Name=" + SlurmText.text(step, "name", ""),
                        "Network=(null)"),
                List.of("TRES=" + tres),
                List.of("ResvPorts=(null)"),
                batch ? List.of("CPUFreqReq=Default") : List.of("CPUFreqReq=Default", "Dist=Block"),
                List.of("SrunHost:Pid=(null):0"));
    }

    /** Megabytes as Slurm's {@code convert_num_unit} writes them exactly: 1024 is 1G, 1536 is 1.50G. */
    static String megabytes(long mb) {
        return Sstat.units(mb * 1024 * 1024, true);
    }

    /** The user's uid from the login machine's accounts (Slurm prints the number); the name when unknown here. */
    String uid(String user) {
        try {
            for (String line : Files.readAllLines(passwd)) {
                String[] f = line.split(":", -1);
                if (f.length > 2 && f[0].equals(user)) {
                    return f[2];
                }
            }
        } catch (IOException e) {
            // no accounts file: the name it is
        }
        return user;
    }
}
