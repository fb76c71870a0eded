package io.gantry.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

import io.gantry.cli.CommandLine.Option;
import tools.jackson.databind.JsonNode;

/**
 * {@code seff JOBID}: one job's efficiency as Slurm's contributed {@code seff} prints it (CPU and
 * memory used against what it held), from {@code GET /api/v1/jobs/{id}}, plus GPU lines of Gantry's
 * own (mean and peak utilisation, peak memory, allocated-but-idle time) from its nodes' nvidia-smi
 * readings: the figures that tell a user their GPUs sat idle.
 */
final class Seff {

    static final List<Option> OPTIONS = List.of(new Option("help", 'h', false), new Option("version", 'V', false),
            new Option("debug", 'd', false));

    private final CliEnvironment env;
    private final Path etc;

    Seff(CliEnvironment env) {
        this(env, Path.of("/etc"));
    }

    Seff(CliEnvironment env, Path etc) {
        this.env = env;
        this.etc = etc;
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        if (line.has("help") || line.operands().size() != 1) {
            env.out().println("Usage: seff [Options] <Jobid>\n       Options:\n       -h    Help menu\n"
                    + "       -v    Version\n       -d    Debug mode: display raw Slurm data");
            env.out().flush();
            return line.has("help") ? 0 : 1;
        }
        String id = line.operands().get(0);
        if (!id.matches("\\d{1,18}(_\\d{1,9})?")) {
            env.err().println("seff: error: Invalid job id " + id);
            return 1;
        }
        JsonNode job;
        try {
            job = env.api().get().get("/api/v1/jobs/" + id);
        } catch (ControllerApi.ApiException e) {
            if (e.status() == 404) {
                env.err().println("Job not found.");
                return 2;
            }
            throw e;
        }
        env.out().print(report(job, env.clock().instant(), group(SlurmText.text(job, "user", ""))));
        env.out().flush();
        return 0;
    }

    /** seff's lines for a job view at {@code now}. */
    static String report(JsonNode job, Instant now, String group) {
        StringBuilder out = new StringBuilder();
        String state = SlurmText.text(job, "state", "");
        String user = SlurmText.text(job, "user", "");
        out.append("Job ID: ").append(SlurmText.text(job, "id", "")).append('\n');
        if (job.hasNonNull("arrayTaskId")) {
            out.append("Array Job ID: ").append(SlurmText.text(job, "id", "")).append('\n');
        }
        out.append("Cluster: ").append(SlurmText.text(job, "cluster", "")).append('\n');
        out.append("User/Group: ").append(user).append('/').append(group).append('\n');
        boolean ended = !state.equals("PENDING") && !state.equals("RUNNING") && !state.equals("CONFIGURING")
                && !state.equals("SUSPENDED") && !state.equals("COMPLETING");
        out.append("State: ").append(state);
        if (ended) {
            out.append(" (exit code ").append(job.path("exitCode").asInt(0)).append(')');
        }
        out.append('\n');
        JsonNode allocation = job.path("allocation");
        int nodes = allocation.isArray() && !allocation.isEmpty() ? allocation.size() : Math.max(1, job.path("nodes").asInt(1));
        long cpus = 0;
        long memoryMb = 0;
        for (JsonNode a : allocation) {
            cpus += a.path("cpus").asLong();
            memoryMb += a.path("memoryMb").asLong();
        }
        if (cpus == 0) {
            cpus = (long) job.path("tasks").asInt(1) * job.path("cpusPerTask").asInt(1);
            memoryMb = job.path("memoryMb").asLong() * nodes;
        }
        if (nodes == 1) {
            out.append("Cores: ").append(cpus).append('\n');
        } else {
            out.append("Nodes: ").append(nodes).append('\n');
            out.append("Cores per node: ").append(cpus / nodes).append('\n');
        }
        if (state.equals("PENDING")) {
            return out.append("Efficiency not available for jobs in the PENDING state.\n").toString();
        }
        long wall = wall(job, now);
        double cpuSeconds = job.path("totalCpuMillis").asLong() / 1000.0;
        long coreWall = wall * cpus;
        out.append("CPU Utilized: ").append(PrintFields.duration((long) cpuSeconds)).append('\n');
        out.append(String.format(Locale.ROOT, "CPU Efficiency: %.2f%% of %s core-walltime%n",
                coreWall == 0 ? 0.0 : cpuSeconds * 100 / coreWall, PrintFields.duration(coreWall)));
        out.append("Job Wall-clock time: ").append(PrintFields.duration(wall)).append('\n');
        double rssKb = job.path("maxRssBytes").asLong() / 1024.0;
        double allocKb = memoryMb * 1024.0;
        out.append("Memory Utilized: ").append(kbytes(rssKb)).append(state.equals("RUNNING") ? " (estimated maximum)" : "")
                .append('\n');
        out.append(String.format(Locale.ROOT, "Memory Efficiency: %.2f%% of %s%n",
                allocKb == 0 ? 0.0 : rssKb * 100 / allocKb, kbytes(allocKb)));
        gpuLines(job, out);
        if (state.equals("RUNNING")) {
            out.append("WARNING: Efficiency statistics may be misleading for RUNNING jobs.\n");
        }
        return out.toString();
    }

    /** Gantry's GPU lines: for a job that held GPUs, what their readings say (or that none arrived). */
    private static void gpuLines(JsonNode job, StringBuilder out) {
        int gpus = 0;
        for (JsonNode a : job.path("allocation")) {
            gpus += a.path("gpuIndices").size() + a.path("migIndices").size();
        }
        if (gpus == 0) {
            gpus = Math.max(job.path("gpus").asInt(0), job.path("gpusPerNode").asInt(0) * job.path("nodes").asInt(1));
        }
        JsonNode usage = job.path("gpuUsage");
        if (gpus == 0 && (usage.isMissingNode() || usage.isNull())) {
            return;
        }
        out.append("GPUs: ").append(gpus).append('\n');
        if (usage.isMissingNode() || usage.isNull() || !usage.path("averageUtilization").isNumber()) {
            out.append("GPU Utilization: not known (no nvidia-smi readings of its GPUs)\n");
            return;
        }
        out.append(String.format(Locale.ROOT, "GPU Utilization: %.2f%% average, %.2f%% peak%n",
                usage.path("averageUtilization").asDouble(), usage.path("peakUtilization").asDouble()));
        if (usage.path("peakMemoryMb").isNumber()) {
            out.append("GPU Memory Utilized: ").append(kbytes(usage.path("peakMemoryMb").asLong() * 1024.0))
                    .append(" (peak of one GPU)\n");
        }
        double gpuSeconds = usage.path("gpuSeconds").asDouble();
        double idle = usage.path("idleGpuSeconds").asDouble();
        out.append(String.format(Locale.ROOT, "GPU Allocated but Idle: %s of %s GPU-time (%.2f%%)%n",
                PrintFields.duration(Math.round(idle)), PrintFields.duration(Math.round(gpuSeconds)),
                gpuSeconds == 0 ? 0.0 : idle * 100 / gpuSeconds));
    }

    private static long wall(JsonNode job, Instant now) {
        if (!job.hasNonNull("startTime")) {
            return 0;
        }
        Instant start = Instant.parse(job.get("startTime").asString());
        Instant end = job.hasNonNull("endTime") ? Instant.parse(job.get("endTime").asString()) : now;
        return Math.max(0, end.getEpochSecond() - start.getEpochSecond());
    }

    /** seff's kbytes2str: {@code 1.20 GB}, {@code 0.00 MB} for none. */
    static String kbytes(double kb) {
        if (kb <= 0) {
            return "0.00 MB";
        }
        String[] units = {"K", "M", "G", "T", "P", "E"};
        int exp = Math.min(units.length - 1, (int) (Math.log(kb) / Math.log(1024)));
        exp = Math.max(0, exp);
        return String.format(Locale.ROOT, "%.2f %sB", kb / Math.pow(1024, exp), units[exp]);
    }

    /** The user's primary group from the passwd and group files, as seff's getgrgid; the user name when unknown. */
    String group(String user) {
        try {
            String gid = null;
            for (String l : Files.readAllLines(etc.resolve("passwd"))) {
                String[] f = l.split(":");
                if (f.length > 3 && f[0].equals(user)) {
                    gid = f[3];
                    break;
                }
            }
            if (gid == null) {
                return user;
            }
            for (String l : Files.readAllLines(etc.resolve("group"))) {
                String[] f = l.split(":");
                if (f.length > 2 && f[2].equals(gid)) {
                    return f[0];
                }
            }
            return gid;
        } catch (IOException | RuntimeException e) {
            return user;
        }
    }
}
