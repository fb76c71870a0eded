package io.gantry.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * {@code scontrol}: {@code show job|step|node|partition|reservation|hostnames|hostlist}, {@code hold}, {@code release},
 * {@code requeue}, {@code suspend}, {@code resume}, {@code update JobId=..|NodeName=..|PartitionName=..} and
 * {@code ping}, printed in Slurm's key=value layout.
 */
final class Scontrol {

    private final CliEnvironment env;

    Scontrol(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        List<String> words = new ArrayList<>();
        boolean oneLiner = false;
        for (String arg : args) {
            if (arg.equals("-o") || arg.equals("--oneliner")) {
                oneLiner = true;
            } else if (arg.equals("-d") || arg.equals("-dd") || arg.equals("--details")) {
                continue;
            } else if (arg.startsWith("-") && words.isEmpty()) {
                throw new CommandLine.UsageError(arg.startsWith("--") ? "unrecognized option '" + arg + "'"
                        : "invalid option -- '" + arg.charAt(1) + "'");
            } else {
                words.add(arg);
            }
        }
        if (words.isEmpty()) {
            env.err().println("scontrol: error: no command given (try show, update, hold, release, requeue, ping)");
            return 1;
        }
        String command = words.get(0).toLowerCase(Locale.ROOT);
        List<String> rest = words.subList(1, words.size());
        return switch (command) {
            case "show" -> show(rest, oneLiner);
            case "hold", "uhold" -> action(rest, "hold");
            case "release" -> action(rest, "release");
            case "requeue" -> action(rest, "requeue");
            case "suspend", "resume" -> suspend(rest, command);
            case "update" -> update(rest);
            case "ping" -> ping();
            case "version", "--version" -> {
                env.out().println("slurm 22.05.8");
                yield 0;
            }
            default -> {
                env.err().println("invalid keyword: " + words.get(0));
                yield 1;
            }
        };
    }

    private int show(List<String> rest, boolean oneLiner) {
        if (rest.isEmpty()) {
            env.err().println("invalid entity: for keyword: show");
            return 1;
        }
        String entity = entity(rest.get(0).toLowerCase(Locale.ROOT));
        String name = rest.size() > 1 ? rest.get(1) : null;
        switch (entity) {
            case "config" -> {
                return new ScontrolConfig(env).show();
            }
            case "hostnames" -> {
                for (String host : SlurmText.expand(name == null ? env.env().getOrDefault("SLURM_JOB_NODELIST", "") : name)) {
                    env.out().println(host);
                }
                return 0;
            }
            case "hostlist", "hostlistsorted" -> {
                List<String> hosts = SlurmText.expand(name == null ? "" : name);
                if (entity.equals("hostlistsorted")) {
                    hosts = new ArrayList<>(hosts);
                    hosts.sort(null);
                }
                env.out().println(SlurmText.compress(hosts));
                return 0;
            }
            case "job", "jobid", "jobs" -> {
                ControllerApi api = env.api().get();
                List<JsonNode> jobs = name == null ? Jobs.list(api, Map.of("state", "PENDING,RUNNING,SUSPENDED,COMPLETING"))
                        : Jobs.byId(api, name);
                if (jobs.isEmpty() && name != null) {
                    env.err().println("slurm_load_jobs error: Invalid job id specified");
                    return 1;
                }
                if (jobs.isEmpty()) {
                    env.out().println("No jobs in the system");
                    return 0;
                }
                for (JsonNode job : jobs) {
                    JsonNode full = job.hasNonNull("script") ? job : api.get("/api/v1/jobs/" + Jobs.id(job));
                    print(job(full == null ? job : full), oneLiner);
                }
                return 0;
            }
            case "step", "steps" -> {
                return new ScontrolSteps(env, this::print).show(name, oneLiner);
            }
            case "node", "nodes" -> {
                ControllerApi api = env.api().get();
                List<JsonNode> nodes = new ArrayList<>();
                if (name == null) {
                    api.get("/api/v1/nodes?size=1000").path("items").forEach(nodes::add);
                } else {
                    for (String host : SlurmText.expand(name)) {
                        JsonNode node = api.get("/api/v1/nodes/" + HttpControllerApi.encode(host));
                        if (node == null) {
                            env.out().println("Node " + host + " not found");
                            return 1;
                        }
                        nodes.add(node);
                    }
                }
                for (JsonNode node : nodes) {
                    print(node(node), oneLiner);
                }
                return 0;
            }
            case "partition", "partitions" -> {
                ControllerApi api = env.api().get();
                List<JsonNode> partitions = new ArrayList<>();
                if (name == null) {
                    api.get("/api/v1/partitions?size=1000").path("items").forEach(partitions::add);
                } else {
                    JsonNode partition = api.get("/api/v1/partitions/" + HttpControllerApi.encode(name));
                    if (partition == null) {
                        env.out().println("Partition " + name + " not found");
                        return 1;
                    }
                    partitions.add(partition);
                }
                for (JsonNode partition : partitions) {
                    print(partition(partition), oneLiner);
                }
                return 0;
            }
            default -> {
                if (entity.length() >= 3 && ("reservations".startsWith(entity) || "reservationname".startsWith(entity))) {
                    return showReservations(name, oneLiner);
                }
                env.err().println("invalid entity: " + rest.get(0) + " for keyword: show");
                return 1;
            }
        }
    }

    /**
     * The entity a {@code show} word names: Slurm's scontrol takes any prefix of the entity's name as
     * long as it is unambiguous in its own order (OOD runs {@code show part}, Snakemake {@code show config}).
     * Names that are no prefix are returned as they were, for the exact matches and the error.
     */
    private static String entity(String word) {
        if (List.of("hostnames", "hostlist", "hostlistsorted").contains(word)) {
            return word;
        }
        for (String[] known : new String[][] {{"config", "1"}, {"jobs", "1"}, {"nodes", "1"}, {"partitions", "2"},
                {"steps", "2"}}) {
            if (word.length() >= Integer.parseInt(known[1]) && known[0].startsWith(word)) {
                return known[0];
            }
        }
        return word;
    }

    /**
     * {@code show reservation [name]}: Slurm forgets a reservation once it has ended, so an ended one of
     * Gantry's is shown as Slurm would show it: not at all. Both of Slurm's answers for nothing to show go to
     * stdout, as scontrol prints them.
     */
    private int showReservations(String name, boolean oneLiner) {
        ControllerApi api = env.api().get();
        List<JsonNode> reservations = new ArrayList<>();
        if (name == null) {
            JsonNode all = api.get("/api/v1/reservations");
            if (all != null) {
                all.forEach(r -> {
                    if (!"ENDED".equals(r.path("state").asString())) {
                        reservations.add(r);
                    }
                });
            }
            if (reservations.isEmpty()) {
                env.out().println("No reservations in the system");
                return 0;
            }
        } else {
            JsonNode one = api.get("/api/v1/reservations/" + HttpControllerApi.encode(name));
            if (one == null || "ENDED".equals(one.path("state").asString())) {
                env.out().println("Reservation " + name + " not found");
                return 1;
            }
            reservations.add(one);
        }
        // scontrol lists them in the order they were created, not by start
        reservations.sort(java.util.Comparator.comparing((JsonNode r) -> r.path("createdAt").asString(""))
                .thenComparing(r -> r.path("name").asString()));
        Map<String, Integer> cpus = new LinkedHashMap<>();
        JsonNode nodes = api.get("/api/v1/nodes?size=1000");
        if (nodes != null) {
            nodes.path("items").forEach(n -> cpus.put(n.path("name").asString(), n.path("cpus").asInt()));
        }
        for (JsonNode r : reservations) {
            print(reservation(r, cpus), oneLiner);
        }
        return 0;
    }

    /** Slurm's order of the flags Gantry has; SPEC_NODES when the nodes were named rather than counted. */
    private static final List<String> RESERVATION_FLAGS = List.of("MAINT", "IGNORE_JOBS");

    private List<List<String>> reservation(JsonNode r, Map<String, Integer> cpus) {
        String nodes = SlurmText.text(r, "nodes", "");
        long cores = 0;
        for (String host : nodes.isEmpty() ? List.<String>of() : SlurmText.expand(nodes)) {
            cores += cpus.getOrDefault(host, 0);
        }
        List<String> given = new ArrayList<>();
        r.path("flags").forEach(f -> given.add(f.asString().toUpperCase(Locale.ROOT)));
        List<String> flags = new ArrayList<>(RESERVATION_FLAGS.stream().filter(given::contains).toList());
        given.stream().filter(f -> !RESERVATION_FLAGS.contains(f)).forEach(flags::add);
        if (!r.hasNonNull("partition")) {
            // Gantry requires a partition with a node count, so a reservation without one named its nodes.
            flags.add("SPEC_NODES");
        }
        return List.of(
                List.of("ReservationName=" + r.path("name").asString(), "StartTime=" + t(r, "startTime", "Unknown"),
                        "EndTime=" + t(r, "endTime", "Unknown"), "Duration=" + SlurmText.clock(r.path("durationSeconds").asLong())),
                List.of("Nodes=" + (nodes.isEmpty() ? "(null)" : nodes), "NodeCnt=" + r.path("nodeCount").asInt(),
                        "CoreCnt=" + cores, "Features=(null)", "PartitionName=" + SlurmText.text(r, "partition", "(null)"),
                        "Flags=" + String.join(",", flags)),
                List.of("TRES=cpu=" + cores),
                List.of("Users=" + SlurmText.text(r, "users", "(null)"), "Groups=(null)",
                        "Accounts=" + SlurmText.text(r, "accounts", "(null)"), "Licenses=(null)",
                        "State=" + r.path("state").asString(), "BurstBuffer=(null)", "Watts=n/a"),
                List.of("MaxStartDelay=(null)"));
    }

    /** Lines of key=value pairs, as scontrol groups them; one line with {@code -o}; a blank line after each record. */
    private void print(List<List<String>> lines, boolean oneLiner) {
        if (oneLiner) {
            List<String> all = new ArrayList<>();
            lines.forEach(all::addAll);
            env.out().println(String.join(" ", all));
            return;
        }
        boolean first = true;
        for (List<String> line : lines) {
            env.out().println((first ? "" : "   ") + String.join(" ", line));
            first = false;
        }
        env.out().println();
    }

    private String t(JsonNode job, String field, String fallback) {
        return SlurmText.time(job.get(field), env.zone(), fallback);
    }

    private List<List<String>> job(JsonNode j) {
        String id = j.path("jobId").asString();
        boolean pending = "PENDING".equals(j.path("state").asString());
        Instant start = SlurmText.instant(j.get("startTime"));
        Instant end = SlurmText.instant(j.get("endTime"));
        long run = start == null || pending ? 0 : Duration.between(start, end != null ? end : env.clock().instant()).getSeconds();
        long limit = j.path("timeLimitSeconds").asLong();
        Integer exit = j.hasNonNull("exitCode") ? j.get("exitCode").asInt() : null;
        String workdir = SlurmText.text(j, "workdir", env.cwd().toString());
        String nodes = SlurmText.text(j, "allocatedNodes", "");
        int nodeCount = nodes.isEmpty() || pending ? Math.max(1, j.path("nodes").asInt()) : SlurmText.expand(nodes).size();
        int cpus = Math.max(1, j.path("tasks").asInt(1)) * Math.max(1, j.path("cpusPerTask").asInt(1));
        long mem = j.path("memoryMb").asLong();
        String memText = mem % 1024 == 0 && mem > 0 ? mem / 1024 + "G" : mem + "M";
        // billing: the partition's TRESBillingWeights x what it holds (the controller's); while it waits, its CPUs.
        long billing = j.hasNonNull("billing") ? j.get("billing").asLong() : cpus;
        String tres = "cpu=" + cpus + ",mem=" + memText + ",node=" + nodeCount + ",billing=" + billing
                + (j.path("gpus").asInt() > 0 ? ",gres/gpu=" + j.path("gpus").asInt() : "");
        String stdout = SlurmText.text(j, "stdout", workdir + "/slurm-" + (j.hasNonNull("arrayTaskId")
                ? id + "_" + j.get("arrayTaskId").asString() : id) + ".out");
        String stderr = SlurmText.text(j, "stderr", stdout);
        List<String> first = new ArrayList<>(List.of("JobId=" + (j.hasNonNull("arrayTaskId")
                ? id + " ArrayJobId=" + j.path("arrayJobId").asString() + " ArrayTaskId=" + j.get("arrayTaskId").asString()
                : id), "JobName=" + SlurmText.text(j, "name", "")));
        List<List<String>> lines = new ArrayList<>(List.of(first,
                List.of("UserId=" + SlurmText.text(j, "user", "") + "(" + 0 + ")", "GroupId=" + SlurmText.text(j, "user", "") + "(0)",
                        "MCS_label=N/A"),
                List.of("Priority=" + j.path("priority").asLong(), "Nice=" + j.path("nice").asInt(),
                        "Account=" + SlurmText.text(j, "account", "(null)"), "QOS=" + SlurmText.text(j, "qos", "(null)")),
                List.of("JobState=" + j.path("state").asString(), "Reason=" + SlurmText.text(j, "reason", "None")
                        .replace(' ', '_'), "Dependency=" + SlurmText.text(j, "dependency", "(null)")),
                List.of("Requeue=" + (j.path("requeue").asBoolean(true) ? 1 : 0), "Restarts=" + j.path("requeueCount").asInt(),
                        "BatchFlag=1", "Reboot=0", "ExitCode=" + (exit == null ? "0:0" : exitCode(exit))),
                List.of("RunTime=" + SlurmText.clock(run), "TimeLimit=" + (limit <= 0 ? "UNLIMITED" : SlurmText.clock(limit)),
                        "TimeMin=" + (j.hasNonNull("timeMinSeconds") ? SlurmText.clock(j.get("timeMinSeconds").asLong()) : "N/A")),
                List.of("SubmitTime=" + t(j, "submitTime", "Unknown"), "EligibleTime=" + t(j, "eligibleTime", "Unknown")),
                List.of("AccrueTime=" + t(j, "eligibleTime", "Unknown")),
                List.of("StartTime=" + (pending ? t(j, "expectedStartTime", "Unknown") : t(j, "startTime", "Unknown")),
                        "EndTime=" + (end != null ? t(j, "endTime", "Unknown") : start != null && limit > 0 && !pending
                                ? SlurmText.time(tools.jackson.databind.node.StringNode.valueOf(start.plusSeconds(limit).toString()), env.zone(), "Unknown")
                                : "Unknown"), "Deadline=" + t(j, "deadline", "N/A")),
                List.of("SuspendTime=None", "SecsPreSuspend=0", "LastSchedEval=" + t(j, "submitTime", "Unknown"),
                        "Scheduler=Main"),
                List.of("Partition=" + SlurmText.text(j, "partition", ""), "AllocNode:Sid=" + "(null)"),
                List.of("ReqNodeList=" + SlurmText.text(j, "nodelist", "(null)"),
                        "ExcNodeList=" + SlurmText.text(j, "exclude", "(null)")),
                List.of("NodeList=" + (pending ? "" : nodes)),
                List.of("NumNodes=" + nodeCount, "NumCPUs=" + cpus, "NumTasks=" + Math.max(1, j.path("tasks").asInt(1)),
                        "CPUs/Task=" + Math.max(1, j.path("cpusPerTask").asInt(1)), "ReqB:S:C:T=0:0:*:*"),
                List.of("TRES=" + tres),
                List.of("Socks/Node=*", "NtasksPerN:B:S:C=" + j.path("ntasksPerNode").asInt(0) + ":0:*:*", "CoreSpec=*"),
                List.of("MinCPUsNode=" + Math.max(1, j.path("cpusPerTask").asInt(1)), "MinMemoryNode=" + memText,
                        "MinTmpDiskNode=0"),
                List.of("Features=" + SlurmText.text(j, "constraints", "(null)"), "DelayBoot=00:00:00"),
                List.of("OverSubscribe=" + (j.path("exclusive").asBoolean() ? "NO" : "OK"), "Contiguous=0",
                        "Licenses=(null)", "Network=(null)"),
                List.of("Command=(null)"),
                List.of("WorkDir=" + workdir),
                List.of("StdErr=" + stderr),
                List.of("StdIn=/dev/null"),
                List.of("StdOut=" + stdout),
                List.of("Power=")));
        if (!pending && !nodes.isEmpty()) {
            // Slurm names the node that ran the batch script once the job has started (recorded; Toil reads it).
            int at = lines.indexOf(List.of("NodeList=" + nodes)) + 1;
            lines.add(at, List.of("BatchHost=" + SlurmText.expand(nodes).get(0)));
        }
        return lines;
    }

    private static String exitCode(int code) {
        return code > 128 ? "0:" + (code - 128) : code + ":0";
    }

    /** Power saving's states as Slurm's flags on the node's base state: {@code IDLE+POWERED_DOWN}. */
    /** The state as Slurm prints it: a node inside a reservation now carries +RESERVED (IDLE+RESERVED). */
    private static String scontrolState(JsonNode n, String state) {
        return powerState(n, state) + (n.hasNonNull("reservation") ? "+RESERVED" : "");
    }

    private static String powerState(JsonNode n, String state) {
        if (!state.startsWith("POWER")) {
            return state;
        }
        int alloc = n.path("allocCpus").asInt();
        String base = alloc == 0 ? "IDLE" : alloc >= n.path("cpus").asInt() ? "ALLOCATED" : "MIXED";
        return base + "+" + state;
    }

    private List<List<String>> node(JsonNode n) {
        String name = n.path("name").asString();
        String state = n.path("state").asString();
        String gres = n.path("gpus").asInt() > 0
                ? "gpu:" + (n.hasNonNull("gpuType") ? n.get("gpuType").asString() + ":" : "") + n.path("gpus").asInt()
                : "(null)";
        String features = SlurmText.text(n, "features", "(null)");
        long mem = n.path("memoryMb").asLong();
        List<List<String>> lines = new ArrayList<>();
        lines.add(List.of("NodeName=" + name, "Arch=x86_64", "CoresPerSocket=1", ""));
        lines.add(List.of("CPUAlloc=" + n.path("allocCpus").asInt(), "CPUEfctv=" + n.path("cpus").asInt(),
                "CPUTot=" + n.path("cpus").asInt(), "CPULoad=N/A"));
        lines.add(List.of("AvailableFeatures=" + features));
        lines.add(List.of("ActiveFeatures=" + features));
        lines.add(List.of("Gres=" + gres));
        lines.add(List.of("NodeAddr=" + name, "NodeHostName=" + name, ""));
        lines.add(List.of("RealMemory=" + mem, "AllocMem=" + n.path("allocMemoryMb").asLong(), "FreeMem=N/A",
                "Sockets=" + n.path("cpus").asInt(), "Boards=1"));
        lines.add(List.of("State=" + scontrolState(n, state), "ThreadsPerCore=1", "TmpDisk=0", "Weight=1", "Owner=N/A", "MCS_label=N/A"));
        lines.add(List.of("Partitions=" + SlurmText.text(n, "partitions", ""), ""));
        lines.add(List.of("BootTime=None", "SlurmdStartTime=" + SlurmText.time(n.get("lastHeartbeat"), env.zone(), "None")));
        lines.add(List.of("LastBusyTime=" + SlurmText.time(n.get("lastHeartbeat"), env.zone(), "Unknown")));
        String memTres = mem % 1024 == 0 ? mem / 1024 + "G" : mem + "M";
        lines.add(List.of("CfgTRES=cpu=" + n.path("cpus").asInt() + ",mem=" + memTres + ",billing=" + n.path("cpus").asInt()
                + (n.path("gpus").asInt() > 0 ? ",gres/gpu=" + n.path("gpus").asInt() : "")));
        lines.add(List.of("AllocTRES=" + (n.path("allocCpus").asInt() > 0 ? "cpu=" + n.path("allocCpus").asInt()
                + ",mem=" + n.path("allocMemoryMb").asLong() + "M" : "")));
        lines.add(List.of("CapWatts=n/a"));
        lines.add(List.of("CurrentWatts=0", "AveWatts=0"));
        lines.add(List.of("ExtSensorsJoules=n/s", "ExtSensorsWatts=0", "ExtSensorsTemp=n/s"));
        if (n.hasNonNull("reason")) {
            lines.add(List.of("Reason=" + n.get("reason").asString() + " [" + SlurmText.text(n, "reasonUser", "root") + "@"
                    + SlurmText.time(n.get("reasonTime"), env.zone(), "Unknown") + "]"));
        }
        return lines;
    }

    private List<List<String>> partition(JsonNode p) {
        List<List<String>> lines = new java.util.ArrayList<>(slurmPartition(p));
        List<String> idle = gpuIdleLine(p);
        if (idle != null) {
            lines.add(idle);
        }
        return lines;
    }

    /** Gantry's own line of {@code show partition}: its GPU idle policy under the cluster file's names; null: none. */
    static List<String> gpuIdleLine(JsonNode p) {
        JsonNode idle = p.path("gpuIdle");
        if (!idle.isObject()) {
            return null;
        }
        double threshold = idle.path("thresholdPercent").asDouble();
        return List.of("GpuIdleTimeout=" + idle.path("timeoutSeconds").asLong(), "GpuIdleThreshold="
                + (threshold == Math.rint(threshold) ? Long.toString((long) threshold) : Double.toString(threshold))
                + "%", "GpuIdleGrace=" + idle.path("graceSeconds").asLong(), "GpuIdleAction=" + idle.path("action").asString());
    }

    private List<List<String>> slurmPartition(JsonNode p) {
        return List.of(List.of("PartitionName=" + p.path("name").asString()),
                List.of("AllowGroups=ALL", "AllowAccounts=ALL", "AllowQos=ALL"),
                List.of("AllocNodes=ALL", "Default=" + (p.path("isDefault").asBoolean() ? "YES" : "NO"), "QoS=" + SlurmText.text(p, "qos", "N/A")),
                List.of("DefaultTime=" + (p.hasNonNull("defaultTimeSeconds") ? SlurmText.clock(p.get("defaultTimeSeconds").asLong()) : "NONE"),
                        "DisableRootJobs=NO", "ExclusiveUser=NO", "GraceTime=0", "Hidden=NO"),
                List.of("MaxNodes=UNLIMITED", "MaxTime=" + (p.hasNonNull("maxTimeSeconds")
                        ? SlurmText.clock(p.get("maxTimeSeconds").asLong()) : "UNLIMITED"), "MinNodes=0", "LLN=NO",
                        "MaxCPUsPerNode=UNLIMITED"),
                List.of("Nodes=" + p.path("nodes").asString()),
                List.of("PriorityJobFactor=1", "PriorityTier=" + p.path("priorityTier").asInt(1), "RootOnly=NO",
                        "ReqResv=NO", "OverSubscribe=NO"),
                List.of("OverTimeLimit=NONE", "PreemptMode=" + p.path("preemptMode").asString("OFF")),
                List.of("State=" + p.path("state").asString(), "TotalCPUs=" + p.path("totalCpus").asLong(),
                        "TotalNodes=" + p.path("totalNodes").asInt(), "SelectTypeParameters=NONE"),
                List.of("JobDefaults=(null)"),
                List.of("DefMemPerNode=" + (p.hasNonNull("defaultMemPerNodeMb") ? p.get("defaultMemPerNodeMb").asString() : "UNLIMITED"),
                        "MaxMemPerNode=UNLIMITED"),
                List.of("TRES=cpu=" + p.path("totalCpus").asLong() + ",node=" + p.path("totalNodes").asInt() + ",billing="
                        + p.path("totalCpus").asLong() + (p.path("totalGpus").asLong() > 0 ? ",gres/gpu=" + p.path("totalGpus").asLong() : "")),
                List.of("TRESBillingWeights=" + p.path("tresBillingWeights").asString("")));
    }

    private int action(List<String> ids, String action) {
        if (ids.isEmpty()) {
            env.err().println("scontrol: error: " + action + " needs a job id");
            return 1;
        }
        ControllerApi api = env.api().get();
        int code = 0;
        for (String operand : ids) {
            for (String id : Scancel.expandIds(operand)) {
                try {
                    api.post("/api/v1/jobs/" + HttpControllerApi.encode(id) + "/" + action, null);
                } catch (ControllerApi.ApiException e) {
                    env.err().println(e.status() == 404 ? "Invalid job id specified for job " + id
                            : "scontrol: error: " + action + " of job " + id + ": " + e.getMessage());
                    code = 1;
                }
            }
        }
        return code;
    }

    /**
     * {@code scontrol suspend|resume job_list}: silent on success; each job refused is a line on stderr in
     * Slurm's words ({@code Job is not running for job 12}), and the exit code 1.
     */
    private int suspend(List<String> ids, String action) {
        if (ids.isEmpty()) {
            env.err().println("Invalid job id specified");
            return 1;
        }
        ControllerApi api = env.api().get();
        int code = 0;
        for (String operand : ids) {
            String list = operand.replaceFirst("(?i)^(jobid|job)=", "");
            for (String id : Scancel.expandIds(list)) {
                try {
                    api.post("/api/v1/jobs/" + HttpControllerApi.encode(id) + "/" + action, null);
                } catch (ControllerApi.ApiException e) {
                    // The problem's detail starts with Slurm's words, then says more after a colon.
                    String words = e.status() == 404 ? "Invalid job id specified"
                            : e.getMessage().contains(": ") ? e.getMessage().substring(0, e.getMessage().indexOf(": "))
                            : e.getMessage();
                    env.err().println(words + " for job " + id);
                    code = 1;
                }
            }
        }
        return code;
    }

    private int update(List<String> words) {
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String word : words) {
            int eq = word.indexOf('=');
            if (eq <= 0) {
                env.err().println("scontrol: error: Invalid input: " + word);
                env.err().println("Request aborted");
                return 1;
            }
            pairs.put(word.substring(0, eq).toLowerCase(Locale.ROOT), word.substring(eq + 1));
        }
        ControllerApi api = env.api().get();
        try {
            if (pairs.containsKey("jobid") || pairs.containsKey("job")) {
                String id = pairs.containsKey("jobid") ? pairs.remove("jobid") : pairs.remove("job");
                Map<String, Object> body = new LinkedHashMap<>();
                for (Map.Entry<String, String> e : pairs.entrySet()) {
                    switch (e.getKey()) {
                        case "timelimit" -> body.put("timeLimitSeconds", TimeLimit.seconds(e.getValue()));
                        case "partition" -> body.put("partition", e.getValue());
                        case "qos" -> body.put("qos", e.getValue());
                        case "nice" -> body.put("nice", Integer.valueOf(e.getValue()));
                        case "name", "jobname" -> body.put("name", e.getValue());
                        case "features" -> body.put("constraints", e.getValue());
                        default -> {
                            env.err().println("Update of this parameter is not supported: " + e.getKey() + "=" + e.getValue());
                            env.err().println("Request aborted");
                            return 1;
                        }
                    }
                }
                api.patch("/api/v1/jobs/" + HttpControllerApi.encode(id), body);
                return 0;
            }
            if (pairs.containsKey("nodename")) {
                String hosts = pairs.remove("nodename");
                String state = pairs.remove("state");
                String reason = pairs.remove("reason");
                if (state == null || !pairs.isEmpty()) {
                    env.err().println("Update of this parameter is not supported: " + String.join(" ", words));
                    env.err().println("Request aborted");
                    return 1;
                }
                // One request for the whole hostlist: the server changes every node or, when one is unknown
                // or cannot take the state, none (Slurm would change the good ones and report the rest).
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("nodes", hosts);
                body.put("state", state.toUpperCase(Locale.ROOT).startsWith("UNDRAIN") ? "RESUME"
                        : state.toUpperCase(Locale.ROOT));
                if (reason != null) {
                    body.put("reason", reason);
                }
                try {
                    api.post("/api/v1/nodes/update", body);
                } catch (ControllerApi.ApiException e) {
                    env.err().println("slurm_update error: " + (e.status() == 404 ? "Invalid node name specified ("
                            + e.getMessage() + ")" : e.getMessage()));
                    return 1;
                }
                return 0;
            }
            if (pairs.containsKey("partitionname")) {
                return updatePartition(api, pairs, words);
            }
        } catch (IllegalArgumentException e) {
            env.err().println("scontrol: error: " + e.getMessage());
            return 1;
        } catch (ControllerApi.ApiException e) {
            env.err().println(e.status() == 404 ? "slurm_update error: Invalid job id specified"
                    : "slurm_update error: " + e.getMessage());
            return 1;
        }
        env.err().println("No valid entity in update command");
        env.err().println("Input line must include \"NodeName\", \"PartitionName\", \"Reservation/ReservationName\", or \"JobId\"");
        return 1;
    }

    /**
     * {@code scontrol update PartitionName=gpu State=DOWN QOS=gpu}: the State and the partition QOS ({@code QOS=}
     * with no name clears it) can be changed.
     */
    private int updatePartition(ControllerApi api, Map<String, String> pairs, List<String> words) {
        String name = pairs.remove("partitionname");
        String state = pairs.remove("state");
        String qos = pairs.remove("qos");
        if ((state == null && qos == null) || !pairs.isEmpty()) {
            env.err().println("Update of this parameter is not supported: " + String.join(" ", words));
            env.err().println("Request aborted");
            return 1;
        }
        Map<String, String> body = new java.util.LinkedHashMap<>();
        if (state != null) {
            body.put("state", state.toUpperCase(Locale.ROOT));
        }
        if (qos != null) {
            body.put("qos", qos);
        }
        try {
            api.patch("/api/v1/partitions/" + HttpControllerApi.encode(name), body);
            return 0;
        } catch (ControllerApi.ApiException e) {
            env.err().println(e.status() == 404 ? "slurm_update error: Invalid partition name specified"
                    : "slurm_update error: " + e.getMessage());
            return 1;
        }
    }

    private int ping() {
        ControllerApi api = env.api().get();
        try {
            api.get("/api/v1/auth/whoami");
            env.out().println("Slurmctld(primary) at " + api.host() + " is UP");
            return 0;
        } catch (ControllerApi.Unreachable e) {
            env.out().println("Slurmctld(primary) at " + api.host() + " is DOWN");
            env.out().println("*****************************************");
            env.out().println("** RESTORE SLURMCTLD DAEMON TO SERVICE **");
            env.out().println("*****************************************");
            return 1;
        }
    }
}
