package io.gantry.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import io.gantry.cli.CommandLine.Option;

/**
 * {@code squeue}: the queue as Slurm 22.05 prints it, for the tools that parse it. The default
 * layout, {@code -o} with %-fields and widths, {@code -O} with field names, and the filters.
 */
final class Squeue {

    /** The job states the controller has (JobFilter's); Slurm's others never match a Gantry job. */
    private static final Set<String> GANTRY_STATES = Set.of("PENDING", "RUNNING", "COMPLETING", "COMPLETED", "FAILED",
            "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY", "DEADLINE", "SUSPENDED");
    static final String DEFAULT_FORMAT = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
    static final String START_FORMAT = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";
    private static final Pattern FIELD = Pattern.compile("%(\\.)?(\\d+)?([a-zA-Z%])");

    static final List<Option> OPTIONS = List.of(new Option("noheader", 'h', false), new Option("format", 'o', true),
            new Option("Format", 'O', true), new Option("jobs", 'j', true), new Option("user", 'u', true),
            new Option("me", '\0', false), new Option("states", 't', true), new Option("partition", 'p', true),
            new Option("account", 'A', true), new Option("start", '\0', false), new Option("array", 'r', false),
            new Option("name", 'n', true), new Option("qos", 'q', true), new Option("long", 'l', false),
            new Option("all", 'a', false), new Option("sort", 'S', true), new Option("steps", 's', false),
            new Option("help", '\0', false), new Option("usage", '\0', false), new Option("version", 'V', false),
            new Option("noconvert", '\0', false), new Option("nodelist", 'w', true),
            new Option("verbose", 'v', false), new Option("array-unique", '\0', false),
            new Option("clusters", 'M', true), new Option("only-job-state", '\0', false),
            new Option("json", '\0', false));

    /** One column: its header and how to print a job in it. */
    private record Column(String header, java.util.function.BiFunction<Row, Instant, String> value) {
    }

    /** A line of output: a job, or the pending tasks of an array shown together. */
    record Row(JsonNode job, String id, String taskIds) {
    }

    private final CliEnvironment env;

    Squeue(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        for (String unsupported : List.of("long", "sort", "steps")) {
            if (line.has(unsupported)) {
                env.err().println("squeue: error: --" + unsupported + " is not supported by Gantry yet");
                return 1;
            }
        }
        Set<String> states = new LinkedHashSet<>();
        for (String word : line.list("states")) {
            if (word.equalsIgnoreCase("all")) {
                states.clear();
                states.addAll(SlurmText.JOB_STATES);
                break;
            }
            String state = SlurmText.jobState(word);
            if (state == null) {
                env.err().println("squeue: error: Invalid job state specified: " + word);
                env.err().println("squeue: error: Valid job states include: " + String.join(",", SlurmText.JOB_STATES));
                return 1;
            }
            states.add(state);
        }
        ControllerApi api = env.api().get();
        List<JsonNode> jobs = new ArrayList<>();
        List<String> ids = line.list("jobs");
        if (!ids.isEmpty()) {
            for (String id : ids) {
                jobs.addAll(Jobs.byId(api, id));
            }
            if (jobs.isEmpty()) {
                env.err().println("slurm_load_jobs error: Invalid job id specified");
                return 1;
            }
        } else {
            Map<String, String> filters = new LinkedHashMap<>();
            // Only the states a Gantry job can be in go to the controller (-t all names Slurm's every state,
            // BOOT_FAIL and REVOKED among them, which no Gantry job ever has).
            List<String> asked = states.stream().filter(GANTRY_STATES::contains).toList();
            filters.put("state", states.isEmpty() ? "PENDING,RUNNING,SUSPENDED,COMPLETING" : String.join(",", asked));
            if (states.isEmpty() || !asked.isEmpty()) {
                jobs.addAll(Jobs.list(api, filters));
            }
        }
        List<String> users = new ArrayList<>(line.list("user"));
        if (line.has("me")) {
            JsonNode me = api.get("/api/v1/auth/whoami");
            users.add(me == null ? "" : me.path("username").asString());
        }
        List<String> partitions = line.list("partition");
        List<String> accounts = line.list("account");
        List<String> names = line.list("name");
        List<String> qos = line.list("qos");
        // Even a job named with -j is left out once it ended, as Slurm 22.05's squeue leaves it out (recorded).
        Set<String> wanted = !states.isEmpty() ? states : line.has("start") ? Set.of("PENDING")
                : Set.of("PENDING", "RUNNING", "COMPLETING", "SUSPENDED");
        jobs.removeIf(j -> !wanted.contains(j.path("state").asString())
                || !users.isEmpty() && !users.contains(j.path("user").asString())
                || !partitions.isEmpty() && !partitions.contains(j.path("partition").asString())
                || !accounts.isEmpty() && !accounts.contains(j.path("account").asString())
                || !names.isEmpty() && !names.contains(j.path("name").asString())
                || !qos.isEmpty() && !qos.contains(j.path("qos").asString()));
        jobs.sort(Comparator.comparing((JsonNode j) -> j.path("partition").asString())
                .thenComparing(j -> SlurmText.JOB_STATES.indexOf(j.path("state").asString()))
                .thenComparing(Comparator.comparingLong((JsonNode j) -> j.path("priority").asLong()).reversed())
                .thenComparingLong(j -> j.path("jobId").asLong())
                .thenComparingLong(j -> j.path("arrayTaskId").asLong(-1)));
        if (line.has("json")) {
            String cluster = Clusters.named(env, "squeue", line.value("clusters"));
            env.out().println(SqueueJson.render(jobs, cluster != null ? cluster : Sacctmgr.cluster(env)));
            return 0;
        }
        List<Row> rows = line.has("array") ? jobs.stream().map(j -> new Row(j, Jobs.id(j), taskId(j))).toList()
                : collapse(jobs);
        List<Column> columns;
        String format = line.value("format");
        if (line.has("Format")) {
            columns = named(line.value("Format"));
        } else {
            columns = formatted(format != null ? format
                    : line.has("start") ? START_FORMAT : DEFAULT_FORMAT);
        }
        Instant now = env.clock().instant();
        // Slurm's squeue names the cluster before its table whenever -M is given, header or not.
        String cluster = Clusters.named(env, "squeue", line.value("clusters"));
        if (cluster != null) {
            env.out().println("CLUSTER: " + cluster);
        }
        if (!line.has("noheader")) {
            env.out().println(render(columns, null, now));
        }
        for (Row row : rows) {
            env.out().println(render(columns, row, now));
        }
        return 0;
    }

    private static String taskId(JsonNode job) {
        return job.hasNonNull("arrayTaskId") ? job.get("arrayTaskId").asString() : "N/A";
    }

    /** Pending tasks of one array in the same state and reason print as one line, {@code 42_[1-3]}, as squeue does without -r. */
    private static List<Row> collapse(List<JsonNode> jobs) {
        List<Row> rows = new ArrayList<>();
        Map<String, List<JsonNode>> groups = new LinkedHashMap<>();
        for (JsonNode job : jobs) {
            if (job.hasNonNull("arrayJobId") && "PENDING".equals(job.path("state").asString())) {
                String key = job.get("arrayJobId").asString() + "|" + job.path("reason").asString();
                if (!groups.containsKey(key)) {
                    rows.add(new Row(job, key, null));
                }
                groups.computeIfAbsent(key, k -> new ArrayList<>()).add(job);
            } else {
                rows.add(new Row(job, Jobs.id(job), taskId(job)));
            }
        }
        List<Row> out = new ArrayList<>();
        for (Row row : rows) {
            List<JsonNode> group = groups.get(row.id());
            if (group == null || row.taskIds() != null) {
                out.add(row);
                continue;
            }
            if (group.size() == 1) {
                out.add(new Row(group.get(0), Jobs.id(group.get(0)), taskId(group.get(0))));
                continue;
            }
            List<String> tasks = group.stream().map(j -> "t" + j.get("arrayTaskId").asString()).toList();
            String ranges = SlurmText.compress(tasks).replace("t[", "").replace("]", "");
            String arrayId = group.get(0).get("arrayJobId").asString();
            String taskRange = ranges.startsWith("t") ? ranges.substring(1) : ranges;
            out.add(new Row(group.get(0), arrayId + "_[" + taskRange + "]", taskRange));
        }
        return out;
    }

    private String render(List<Column> columns, Row row, Instant now) {
        StringBuilder out = new StringBuilder();
        for (Column column : columns) {
            out.append(row == null ? column.header() : column.value().apply(row, now));
        }
        return out.toString();
    }

    /** {@code -o}: literal text between %-fields, each %-field with its optional width. */
    private List<Column> formatted(String format) {
        List<Column> columns = new ArrayList<>();
        Matcher m = FIELD.matcher(format);
        int last = 0;
        while (m.find()) {
            if (m.start() > last) {
                String literal = format.substring(last, m.start());
                columns.add(new Column(literal, (r, n) -> literal));
            }
            boolean right = m.group(1) != null;
            Integer width = m.group(2) == null ? null : Integer.valueOf(m.group(2));
            char letter = m.group(3).charAt(0);
            Field field = FIELDS.get(letter);
            if (letter == '%') {
                columns.add(new Column("%", (r, n) -> "%"));
            } else if (field == null) {
                String text = m.group();
                columns.add(new Column(SlurmText.fit(text, width, right), (r, n) -> SlurmText.fit(text, width, right)));
            } else {
                columns.add(new Column(SlurmText.fit(field.header(), width, right),
                        (r, n) -> SlurmText.fit(field.value().apply(r, n), width, right)));
            }
            last = m.end();
        }
        if (last < format.length()) {
            String literal = format.substring(last);
            columns.add(new Column(literal, (r, n) -> literal));
        }
        return columns;
    }

    /**
     * {@code -O}: {@code type[:[.][size][suffix]]} items, as squeue reads them. Without a suffix each value is
     * padded to its size (20 by default) and followed by a space once it fills it; with one (Open OnDemand
     * ends each field with {@code \x1F}) the value is printed as it is, padded only to a size given, and the
     * suffix follows. A name squeue does not know is said on stderr and printed as an empty column, as
     * squeue 22.05 does (recorded: {@code excnodes}).
     */
    private List<Column> named(String format) {
        List<Column> columns = new ArrayList<>();
        for (String item : format.split(",")) {
            if (item.isEmpty()) {
                continue;
            }
            String[] parts = item.split(":", 2);
            String name = parts[0].strip().toLowerCase(Locale.ROOT);
            Field field = NAMED_ONLY.get(name);
            if (field == null && NAMED.containsKey(name)) {
                field = FIELDS.get(NAMED.get(name));
            }
            if (field == null) {
                env.err().println("squeue: error: Invalid job format specification: " + parts[0]);
                field = new Field("", (r, n) -> "");
            }
            Matcher spec = SPEC.matcher(parts.length > 1 ? parts[1] : "");
            spec.matches();
            boolean right = spec.group(1) != null;
            String suffix = spec.group(3);
            Field shown = field;
            if (suffix.isEmpty()) {
                int width = spec.group(2) != null ? Integer.parseInt(spec.group(2)) : 20;
                // squeue -O pads each value to its width without cutting it and adds no separator.
                columns.add(new Column(pad(shown.header(), width, right),
                        (r, n) -> pad(shown.value().apply(r, n), width, right)));
            } else {
                int width = spec.group(2) != null ? Integer.parseInt(spec.group(2)) : 0;
                columns.add(new Column(fill(shown.header(), width, right) + suffix,
                        (r, n) -> fill(shown.value().apply(r, n), width, right) + suffix));
            }
        }
        return columns;
    }

    /** An -O item's part after the colon: right-justified, size, suffix. */
    private static final Pattern SPEC = Pattern.compile("(\\.)?(\\d+)?(.*)", Pattern.DOTALL);

    private static String fill(String value, int width, boolean right) {
        if (value.length() >= width) {
            return value;
        }
        String spaces = " ".repeat(width - value.length());
        return right ? spaces + value : value + spaces;
    }

    private static String pad(String value, int width, boolean right) {
        if (value.length() >= width) {
            return value + " ";
        }
        String spaces = " ".repeat(width - value.length());
        return right ? spaces + value : value + spaces;
    }

    private record Field(String header, java.util.function.BiFunction<Row, Instant, String> value) {
    }

    private static final Map<Character, Field> FIELDS = new LinkedHashMap<>();
    private static final Map<String, Character> NAMED = new LinkedHashMap<>();
    /** -O names without a %-letter of Gantry's, or with another header than their letter's. */
    private static final Map<String, Field> NAMED_ONLY = new LinkedHashMap<>();

    private static void named(String name, String header, java.util.function.BiFunction<Row, Instant, String> value) {
        NAMED_ONLY.put(name.toLowerCase(Locale.ROOT), new Field(header, value));
    }

    private static void field(char letter, String header, String name, java.util.function.BiFunction<Row, Instant, String> value) {
        FIELDS.put(letter, new Field(header, value));
        if (name != null) {
            NAMED.put(name.toLowerCase(Locale.ROOT), letter);
        }
    }

    private static String s(Row r, String field, String fallback) {
        return SlurmText.text(r.job(), field, fallback);
    }

    private static boolean pending(Row r) {
        return "PENDING".equals(r.job().path("state").asString());
    }

    private static long elapsedSeconds(Row r, Instant now) {
        Instant start = SlurmText.instant(r.job().get("startTime"));
        if (start == null || pending(r)) {
            return 0;
        }
        Instant end = SlurmText.instant(r.job().get("endTime"));
        return Duration.between(start, end != null ? end : now).getSeconds();
    }

    private static String nodes(Row r) {
        String allocated = s(r, "allocatedNodes", "");
        if (!allocated.isEmpty() && !pending(r)) {
            return Integer.toString(SlurmText.expand(allocated).size());
        }
        return Integer.toString(Math.max(1, r.job().path("nodes").asInt()));
    }

    private static String cpus(Row r) {
        JsonNode allocation = r.job().get("allocation");
        if (allocation != null && allocation.isArray() && !allocation.isEmpty() && !pending(r)) {
            int sum = 0;
            for (JsonNode a : allocation) {
                sum += a.path("cpus").asInt();
            }
            return Integer.toString(sum);
        }
        return Integer.toString(Math.max(1, r.job().path("tasks").asInt(1)) * Math.max(1, r.job().path("cpusPerTask").asInt(1)));
    }

    private static String reasonOrNodes(Row r) {
        if (pending(r)) {
            return "(" + reason(r) + ")";
        }
        return s(r, "allocatedNodes", "");
    }

    /** Slurm prints some reasons as sentences in %R; Gantry's reason words are Slurm's already. */
    private static String reason(Row r) {
        String reason = s(r, "reason", "None");
        return reason.replace('_', ' ');
    }

    private static String tres(Row r) {
        int perNode = r.job().path("gpusPerNode").asInt();
        int gpus = r.job().path("gpus").asInt();
        String type = s(r, "gpuType", null);
        if (perNode > 0) {
            return "gres/gpu" + (type == null ? "" : ":" + type) + ":" + perNode;
        }
        if (gpus > 0) {
            return "gres/gpu" + (type == null ? "" : ":" + type) + ":" + gpus;
        }
        return "N/A";
    }

    static {
        field('i', "JOBID", "JobID", (r, n) -> r.id());
        field('A', "JOBID", "ArrayJobID", (r, n) -> s(r, "jobId", ""));
        field('F', "ARRAY_JOB_ID", null, (r, n) -> s(r, "jobId", ""));
        field('K', "ARRAY_TASK_ID", "ArrayTaskID", (r, n) -> r.taskIds() == null ? "N/A" : r.taskIds());
        field('a', "ACCOUNT", "Account", (r, n) -> s(r, "account", "(null)"));
        field('j', "NAME", "Name", (r, n) -> s(r, "name", ""));
        field('u', "USER", "UserName", (r, n) -> s(r, "user", ""));
        field('T', "STATE", "State", (r, n) -> s(r, "state", ""));
        field('t', "ST", "StateCompact", (r, n) -> SlurmText.STATE_CODES.getOrDefault(s(r, "state", ""), "?"));
        field('M', "TIME", "TimeUsed", (r, n) -> SlurmText.elapsed(elapsedSeconds(r, n)));
        field('l', "TIME_LIMIT", "TimeLimit", (r, n) -> SlurmText.limit(r.job().get("timeLimitSeconds")));
        field('L', "TIME_LEFT", "TimeLeft", (r, n) -> {
            long limit = r.job().path("timeLimitSeconds").asLong();
            return limit <= 0 ? "UNLIMITED" : SlurmText.elapsed(limit - elapsedSeconds(r, n));
        });
        field('D', "NODES", "NumNodes", (r, n) -> nodes(r));
        field('C', "CPUS", "NumCPUs", (r, n) -> cpus(r));
        field('c', "MIN_CPUS", "MinCpus", (r, n) -> Integer.toString(Math.max(1, r.job().path("cpusPerTask").asInt(1))));
        field('m', "MIN_MEMORY", "MinMemory", (r, n) -> r.job().path("memoryMb").asLong() + "M");
        field('R', "NODELIST(REASON)", "ReasonList", (r, n) -> reasonOrNodes(r));
        field('N', "NODELIST", "NodeList", (r, n) -> pending(r) ? "" : s(r, "allocatedNodes", ""));
        field('B', "EXEC_HOST", "BatchHost", (r, n) -> {
            String nodes = s(r, "allocatedNodes", "");
            return nodes.isEmpty() || pending(r) ? "n/a" : SlurmText.expand(nodes).get(0);
        });
        field('r', "REASON", "Reason", (r, n) -> reason(r));
        field('P', "PARTITION", "Partition", (r, n) -> s(r, "partition", ""));
        field('q', "QOS", "QOS", (r, n) -> s(r, "qos", "(null)"));
        field('b', "TRES_PER_NODE", "tres-per-node", (r, n) -> tres(r));
        field('S', "START_TIME", "StartTime", (r, n) -> {
            JsonNode start = pending(r) ? r.job().get("expectedStartTime") : r.job().get("startTime");
            return SlurmText.time(start, java.time.ZoneId.systemDefault(), "N/A");
        });
        field('V', "SUBMIT_TIME", "SubmitTime",
                (r, n) -> SlurmText.time(r.job().get("submitTime"), java.time.ZoneId.systemDefault(), "N/A"));
        field('e', "END_TIME", "EndTime",
                (r, n) -> SlurmText.time(r.job().get("endTime"), java.time.ZoneId.systemDefault(), "N/A"));
        field('Q', "PRIORITY", "Priority", (r, n) -> s(r, "priority", "0"));
        field('y', "NICE", "Nice", (r, n) -> s(r, "nice", "0"));
        field('E', "DEPENDENCY", "Dependency", (r, n) -> s(r, "dependency", "(null)"));
        field('Z', "WORK_DIR", "WorkDir", (r, n) -> s(r, "workdir", "(null)"));
        field('f', "FEATURES", "Feature", (r, n) -> s(r, "constraints", "(null)"));
        field('Y', "SCHEDNODES", "SchedNodes", (r, n) -> "(null)");
        field('o', "COMMAND", "Command", (r, n) -> "(null)");
        field('k', "COMMENT", "Comment", (r, n) -> s(r, "comment", "(null)"));
        field('v', "RESERVATION", "Reservation", (r, n) -> s(r, "reservation", "(null)"));
        // Open OnDemand asks squeue -O for these (recorded from Slurm 22.05 for their headers); where Gantry
        // has no such notion the value is what scontrol show job prints for it.
        named("ArrayJobID", "ARRAY_JOB_ID", (r, n) -> s(r, "jobId", ""));
        named("JobArrayID", "JOBID", (r, n) -> r.id());
        named("MinTmpDisk", "MIN_TMP_DISK", (r, n) -> "0");
        named("GroupName", "GROUP", (r, n) -> s(r, "user", ""));
        named("GroupID", "GROUP", (r, n) -> "0");
        named("UserID", "UID", (r, n) -> "0");
        named("OverSubscribe", "OVER_SUBSCRIBE", (r, n) -> r.job().path("exclusive").asBoolean() ? "NO" : "OK");
        named("Sockets", "SOCKETS_PER_NODE", (r, n) -> "*");
        named("Cores", "CORES_PER_SOCKET", (r, n) -> "*");
        named("Threads", "THREADS_PER_CORE", (r, n) -> "*");
        named("SCT", "S:C:T", (r, n) -> "*:*:*");
        named("ReqNodes", "REQ_NODES", (r, n) -> s(r, "nodelist", ""));
        named("Contiguous", "CONTIGUOUS", (r, n) -> "0");
        named("PriorityLong", "PRIORITY", (r, n) -> s(r, "priority", "0"));
        named("WCKey", "WCKEY", (r, n) -> "(null)");
        named("Licenses", "LICENSES", (r, n) -> "(null)");
        named("CoreSpec", "CORE_SPEC", (r, n) -> "N/A");
    }
}
