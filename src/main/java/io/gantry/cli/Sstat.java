package io.gantry.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

import io.gantry.cli.CommandLine.Option;
import io.gantry.cli.PrintFields.Column;
import io.gantry.cli.PrintFields.Kind;
import tools.jackson.databind.JsonNode;

/**
 * {@code sstat}: the live usage of running steps, from {@code GET /api/v1/jobs/{id}/steps/{step}/stat}, in
 * Slurm 22.05's columns (its field table, default format and unit conversion, recorded from a live Slurm
 * with jobacct_gather/linux). Gantry has no energy or CPU frequency accounting: those columns print 0, as
 * Slurm's do without them.
 */
final class Sstat {

    static final List<Option> OPTIONS = List.of(new Option("allsteps", 'a', false),
            new Option("helpformat", 'e', false), new Option("help", 'h', false), new Option("pidformat", 'i', false),
            new Option("jobs", 'j', true), new Option("noheader", 'n', false), new Option("fields", '\0', true),
            new Option("format", 'o', true), new Option("noconvert", '\0', false), new Option("parsable", 'p', false),
            new Option("parsable2", 'P', false), new Option("usage", '\0', false), new Option("verbose", 'v', false),
            new Option("version", 'V', false));

    /** sstat's STAT_FIELDS. */
    static final String DEFAULT_FORMAT = "jobid,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,maxrssnode,"
            + "maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,mincputask,avecpu,"
            + "ntasks,avecpufreq,reqcpufreqmin,reqcpufreqmax,reqcpufreqgov,consumedenergy,maxdiskread,"
            + "maxdiskreadnode,maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,"
            + "avediskwrite,tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,"
            + "tresusageinminn,tresusageinmint,tresusageintot,tresusageoutave,tresusageoutmax,tresusageoutmaxn,"
            + "tresusageoutmaxt,tresusageoutmin,tresusageoutminn,tresusageoutmint,tresusageouttot";
    static final String PID_FORMAT = "jobid,nodelist,pids";

    /** One field of sstat's table: its column, and its value for a step's usage. */
    private record Field(Column column, BiFunction<Usage, Boolean, String> value) {
    }

    /** A step's usage as the controller gave it, and whether it is the batch step. */
    record Usage(JsonNode stat, boolean batch) {
        long n(String figure, String part) {
            return stat.path(figure).path(part).asLong();
        }

        String s(String figure, String part) {
            JsonNode v = stat.path(figure).path(part);
            return v.isNull() || v.isMissingNode() ? null : v.asString();
        }
    }

    /** sstat's fields[], in its order: a format item names the first whose name it begins. */
    private static final List<Field> FIELDS = new ArrayList<>();

    static {
        field("AveCPU", 10, Kind.STR, (u, c) -> time(u.n("cpuMillis", "average")));
        field("AveCPUFreq", 10, Kind.STR, (u, c) -> "0");
        field("AveDiskRead", 12, Kind.STR, (u, c) -> small(u.n("diskReadBytes", "average"), c));
        field("AveDiskWrite", 12, Kind.STR, (u, c) -> small(u.n("diskWriteBytes", "average"), c));
        field("AvePages", 10, Kind.STR, (u, c) -> units(u.n("pages", "average"), c));
        field("AveRSS", 10, Kind.STR, (u, c) -> units(u.n("rssBytes", "average"), c));
        field("AveVMSize", 10, Kind.STR, (u, c) -> units(u.n("vmSizeBytes", "average"), c));
        field("ConsumedEnergy", 14, Kind.STR, (u, c) -> "0");
        field("ConsumedEnergyRaw", 17, Kind.NUM, (u, c) -> "0");
        field("JobID", -12, Kind.STR, (u, c) -> u.stat().path("id").asString());
        field("MaxDiskRead", 12, Kind.STR, (u, c) -> small(u.n("diskReadBytes", "max"), c));
        field("MaxDiskReadNode", 15, Kind.STR, (u, c) -> u.s("diskReadBytes", "maxNode"));
        field("MaxDiskReadTask", 15, Kind.NUM, (u, c) -> u.s("diskReadBytes", "maxTask"));
        field("MaxDiskWrite", 12, Kind.STR, (u, c) -> small(u.n("diskWriteBytes", "max"), c));
        field("MaxDiskWriteNode", 16, Kind.STR, (u, c) -> u.s("diskWriteBytes", "maxNode"));
        field("MaxDiskWriteTask", 16, Kind.NUM, (u, c) -> u.s("diskWriteBytes", "maxTask"));
        field("MaxPages", 8, Kind.STR, (u, c) -> units(u.n("pages", "max"), c));
        field("MaxPagesNode", 12, Kind.STR, (u, c) -> u.s("pages", "maxNode"));
        field("MaxPagesTask", 14, Kind.NUM, (u, c) -> u.s("pages", "maxTask"));
        field("MaxRSS", 10, Kind.STR, (u, c) -> units(u.n("rssBytes", "max"), c));
        field("MaxRSSNode", 10, Kind.STR, (u, c) -> u.s("rssBytes", "maxNode"));
        field("MaxRSSTask", 10, Kind.NUM, (u, c) -> u.s("rssBytes", "maxTask"));
        field("MaxVMSize", 10, Kind.STR, (u, c) -> units(u.n("vmSizeBytes", "max"), c));
        field("MaxVMSizeNode", 14, Kind.STR, (u, c) -> u.s("vmSizeBytes", "maxNode"));
        field("MaxVMSizeTask", 14, Kind.NUM, (u, c) -> u.s("vmSizeBytes", "maxTask"));
        field("MinCPU", 10, Kind.STR, (u, c) -> time(u.n("cpuMillis", "min")));
        field("MinCPUNode", 10, Kind.STR, (u, c) -> u.s("cpuMillis", "minNode"));
        field("MinCPUTask", 10, Kind.NUM, (u, c) -> u.s("cpuMillis", "minTask"));
        field("Nodelist", 20, Kind.STR, (u, c) -> u.stat().path("nodelist").asString());
        field("NTasks", 8, Kind.NUM, (u, c) -> u.stat().path("tasks").asString());
        field("Pids", 20, Kind.STR, (u, c) -> pids(u.stat()));
        field("ReqCPUFreq", 10, Kind.STR, Sstat::cpuFreq);
        field("ReqCPUFreqMin", 13, Kind.STR, Sstat::cpuFreq);
        field("ReqCPUFreqMax", 13, Kind.STR, Sstat::cpuFreq);
        field("ReqCPUFreqGov", 13, Kind.STR, Sstat::cpuFreq);
        field("TRESUsageInAve", 14, Kind.STR, (u, c) -> tres(u, "average", c, true));
        field("TRESUsageInMax", 14, Kind.STR, (u, c) -> tres(u, "max", c, true));
        field("TRESUsageInMaxNode", 18, Kind.STR, (u, c) -> tresNodes(u, "maxNode", true));
        field("TRESUsageInMaxTask", 18, Kind.STR, (u, c) -> tresTasks(u, "maxTask", true));
        field("TRESUsageInMin", 14, Kind.STR, (u, c) -> tres(u, "min", c, true));
        field("TRESUsageInMinNode", 18, Kind.STR, (u, c) -> tresNodes(u, "minNode", true));
        field("TRESUsageInMinTask", 18, Kind.STR, (u, c) -> tresTasks(u, "minTask", true));
        field("TRESUsageInTot", 14, Kind.STR, (u, c) -> tres(u, "total", c, true));
        field("TRESUsageOutAve", 15, Kind.STR, (u, c) -> tres(u, "average", c, false));
        field("TRESUsageOutMax", 15, Kind.STR, (u, c) -> tres(u, "max", c, false));
        field("TRESUsageOutMaxNode", 19, Kind.STR, (u, c) -> tresNodes(u, "maxNode", false));
        field("TRESUsageOutMaxTask", 19, Kind.STR, (u, c) -> tresTasks(u, "maxTask", false));
        field("TRESUsageOutMin", 15, Kind.STR, (u, c) -> tres(u, "min", c, false));
        field("TRESUsageOutMinNode", 19, Kind.STR, (u, c) -> tresNodes(u, "minNode", false));
        field("TRESUsageOutMinTask", 19, Kind.STR, (u, c) -> tresTasks(u, "minTask", false));
        field("TRESUsageOutTot", 15, Kind.STR, (u, c) -> tres(u, "total", c, false));
    }

    private final CliEnvironment env;

    Sstat(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        if (line.has("help")) {
            env.out().print(HELP);
            return 0;
        }
        if (line.has("helpformat")) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < FIELDS.size(); i++) {
                text.append(i % 4 != 0 ? " " : i > 0 ? "\n" : "")
                        .append(String.format(Locale.ROOT, "%-19s", FIELDS.get(i).column().name()));
            }
            env.out().println(text);
            return 0;
        }
        if (line.has("usage")) {
            env.out().print("Usage: sstat [options] -j <job(.stepid)>\n\tUse --help for help\n");
            return 0;
        }
        List<String> items = new ArrayList<>(line.list("jobs"));
        if (!line.operands().isEmpty()) {
            items.addAll(List.of(line.operands().get(0).split(",")));
        }
        items.removeIf(String::isBlank);
        List<Column> columns = new ArrayList<>();
        List<Field> fields = new ArrayList<>();
        StringBuilder format = new StringBuilder();
        if (line.has("pidformat")) {
            format.append(PID_FORMAT).append(',');
        }
        for (String f : line.all().getOrDefault("format", List.of())) {
            format.append(f).append(',');
        }
        for (String f : line.all().getOrDefault("fields", List.of())) {
            format.append(f).append(',');
        }
        for (String item : (format.isEmpty() ? DEFAULT_FORMAT : format.toString()).split(",")) {
            String name = item.strip();
            if (name.isEmpty()) {
                continue;
            }
            Integer width = null;
            int percent = name.indexOf('%');
            if (percent >= 0) {
                try {
                    int w = Integer.parseInt(name.substring(percent + 1));
                    width = w == 0 ? null : w;
                } catch (NumberFormatException e) {
                    width = null;
                }
                name = name.substring(0, percent);
            }
            Field field = lookup(name);
            if (field == null) {
                env.err().println("sstat: error: Invalid field requested: \"" + name + "\"");
                return 1;
            }
            fields.add(field);
            columns.add(width == null ? field.column() : field.column().withWidth(width));
        }
        if (items.isEmpty()) {
            env.err().println("sstat: error: You didn't give me any jobs to stat.");
            return 1;
        }
        PrintFields.Mode mode = line.has("parsable2") ? PrintFields.Mode.PARSABLE2
                : line.has("parsable") ? PrintFields.Mode.PARSABLE : PrintFields.Mode.FIXED;
        PrintFields out = new PrintFields(env.out(), mode, !line.has("noheader"));
        boolean convert = !line.has("noconvert");
        boolean all = line.has("allsteps");
        out.header(columns);
        ControllerApi api = env.api().get();
        for (String item : items) {
            String jobId = item;
            String wanted = null;
            int dot = item.indexOf('.');
            if (dot >= 0) {
                jobId = item.substring(0, dot);
                wanted = item.substring(dot + 1);
            }
            JsonNode steps;
            try {
                steps = api.get("/api/v1/jobs/" + HttpControllerApi.encode(jobId) + "/steps");
            } catch (ControllerApi.ApiException e) {
                steps = null;
            }
            if (steps == null || !steps.has("items")) {
                env.err().println("sstat: error: couldn't get steps for job " + jobId);
                continue;
            }
            List<String> running = new ArrayList<>();
            for (JsonNode step : steps.get("items")) {
                if ("RUNNING".equals(step.path("state").asString())) {
                    running.add(step.path("stepId").asString());
                }
            }
            List<String> chosen = choose(running, wanted, all);
            if (running.isEmpty() || wanted != null && chosen.isEmpty()) {
                env.err().println(wanted == null ? "sstat: error: No steps running for job " + jobId
                        : "sstat: error: StepId=" + jobId + "." + wanted + " not found running.");
                continue;
            }
            for (String step : chosen) {
                JsonNode stat;
                try {
                    stat = api.get("/api/v1/jobs/" + HttpControllerApi.encode(jobId) + "/steps/" + step + "/stat");
                } catch (ControllerApi.ApiException e) {
                    if (e.status() == 403) {
                        env.err().println("sstat: error: problem getting step_layout for StepId=" + jobId + "." + step
                                + ": Access/permission denied");
                    }
                    // 409 or 404: it ended meanwhile, which sstat passes over in silence
                    continue;
                }
                if (stat == null) {
                    continue;
                }
                Usage usage = new Usage(stat, "batch".equals(step));
                List<String> values = new ArrayList<>();
                for (Field field : fields) {
                    values.add(field.value().apply(usage, convert));
                }
                out.row(columns, values);
            }
        }
        env.out().flush();
        return 0;
    }

    /**
     * The steps sstat reads of a job's running ones: the one asked for; without one, the lowest-numbered
     * srun step (batch and the like are left out) or, with {@code -a}, all of them.
     */
    static List<String> choose(List<String> running, String wanted, boolean all) {
        if (wanted != null) {
            return running.stream().filter(s -> s.equals(wanted)).toList();
        }
        if (all) {
            return running;
        }
        return running.stream().filter(s -> s.matches("\\d+")).min((a, b) -> Long.compare(Long.parseLong(a),
                Long.parseLong(b))).map(List::of).orElse(List.of());
    }

    private static Field lookup(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (Field field : FIELDS) {
            if (field.column().name().toLowerCase(Locale.ROOT).startsWith(lower)) {
                return field;
            }
        }
        return null;
    }

    private static void field(String name, int width, Kind kind, BiFunction<Usage, Boolean, String> value) {
        FIELDS.add(new Field(new Column(name, width, kind), value));
    }

    /** sstat's requested CPU frequency: Unknown for an srun step that asked for none, 0 for the batch step. */
    private static String cpuFreq(Usage u, boolean convert) {
        return u.batch() ? "0" : "Unknown";
    }

    private static String pids(JsonNode stat) {
        List<String> pids = new ArrayList<>();
        for (JsonNode node : stat.path("pids")) {
            node.path("pids").forEach(p -> pids.add(p.asString()));
        }
        return String.join(",", pids);
    }

    /** Slurm's {@code _elapsed_time} of whole seconds (CPU time is kept in milliseconds): [D-][HH:]MM:SS. */
    static String time(long millis) {
        return PrintFields.duration(millis / 1000);
    }

    /**
     * Slurm's {@code convert_num_unit} of a count (bytes, pages) with CONVERT_NUM_UNIT_EXACT: divided by 1024
     * while that loses nothing (a half still counts as exact: 1536 is 1.50K); with {@code --noconvert} as it is.
     */
    static String units(long value, boolean convert) {
        if (value == 0) {
            return "0";
        }
        if (!convert) {
            return Long.toString(value);
        }
        String suffixes = "KMGTP";
        double num = value;
        int unit = -1;
        while (num >= 1024 && ((long) num) % 512 == 0) {
            num /= 1024;
            unit++;
        }
        String suffix = unit < 0 ? "" : unit < suffixes.length() ? String.valueOf(suffixes.charAt(unit)) : "?";
        long whole = (long) num;
        return whole == num ? whole + suffix : String.format(Locale.ROOT, "%.2f", num) + suffix;
    }

    /** sstat's {@code _print_small_double} for the disk columns: under 1 (never, for whole bytes) as "0". */
    static String small(long value, boolean convert) {
        return value > 1 ? units(value, convert) : value == 1 ? "1.00M" : "0";
    }

    /** A TRESUsageIn (cpu, energy, fs/disk, mem, pages, vmem) or TRESUsageOut (energy, fs/disk) string. */
    static String tres(Usage u, String part, boolean convert, boolean in) {
        String disk = "fs/disk=" + units(u.n(in ? "diskReadBytes" : "diskWriteBytes", part), convert);
        if (!in) {
            return "energy=0," + disk;
        }
        return "cpu=" + PrintFields.duration(u.n("cpuMillis", part) / 1000) + ",energy=0," + disk
                + gpu(u.stat().path("gpuUsage"), part, convert) + ",mem=" + units(u.n("rssBytes", part), convert) + ",pages=" + units(u.n("pages", part), convert)
                + ",vmem=" + units(u.n("vmSizeBytes", part), convert);
    }

    /**
     * The job's GPU use as Slurm's gres/gpumem and gres/gpuutil (with acct_gather_gpu): for average the
     * mean memory and utilisation, for max the peaks; nothing for the other parts or without readings.
     */
    static String gpu(JsonNode usage, String part, boolean convert) {
        if (usage.isMissingNode() || usage.isNull() || !(part.equals("average") || part.equals("max"))) {
            return "";
        }
        JsonNode mem = usage.path(part.equals("max") ? "peakMemoryMb" : "averageMemoryMb");
        JsonNode util = usage.path(part.equals("max") ? "peakUtilization" : "averageUtilization");
        StringBuilder out = new StringBuilder();
        if (mem.isNumber()) {
            out.append(",gres/gpumem=").append(units(mem.asLong() * 1024 * 1024, convert));
        }
        if (util.isNumber()) {
            out.append(",gres/gpuutil=").append(Math.round(util.asDouble()));
        }
        return out.toString();
    }

    /** The node of each TRES's highest or lowest task. */
    static String tresNodes(Usage u, String part, boolean in) {
        String disk = "fs/disk=" + orEmpty(u.s(in ? "diskReadBytes" : "diskWriteBytes", part));
        if (!in) {
            return "energy=" + orEmpty(u.s("diskWriteBytes", part)) + "," + disk;
        }
        return "cpu=" + orEmpty(u.s("cpuMillis", part)) + ",energy=" + orEmpty(u.s("cpuMillis", part)) + "," + disk
                + ",mem=" + orEmpty(u.s("rssBytes", part)) + ",pages=" + orEmpty(u.s("pages", part))
                + ",vmem=" + orEmpty(u.s("vmSizeBytes", part));
    }

    /**
     * The task id of each TRES's highest or lowest task, as Slurm prints them: raw numbers, but the cpu one
     * formatted as a time like every cpu value (so task 1 shows as 00:00:00), and no energy.
     */
    static String tresTasks(Usage u, String part, boolean in) {
        String disk = "fs/disk=" + u.n(in ? "diskReadBytes" : "diskWriteBytes", part);
        if (!in) {
            return disk;
        }
        return "cpu=" + PrintFields.duration(u.n("cpuMillis", part) / 1000) + "," + disk + ",mem="
                + u.n("rssBytes", part) + ",pages=" + u.n("pages", part) + ",vmem=" + u.n("vmSizeBytes", part);
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    static final String HELP = """
            sstat [<OPTION>] -j <job(.stepid)>
                Valid <OPTION> values are:
                  -a, --allsteps:
                               Print all steps for the given job(s) when no step is
                               specified.
                  -e, --helpformat:
                               Print a list of fields that can be specified with the
                               '--format' option
                 -h, --help:   Print this description of use.
                 -i, --pidformat:
                               Predefined format to list the pids running for each
                               job step.  (JobId,Nodes,Pids)
                 -j, --jobs:
                               Format is <job(.step)>. Stat this job step
                               or comma-separated list of job steps. This option is
                               required.  The step portion will default to the lowest
                               numbered (not batch, extern, etc) step running if not
                               specified, unless the --allsteps flag is set where not
                               specifying a step will result in all running steps
                               to be displayed. A step id of 'batch' will display the
                               information about the batch step.
                 -n, --noheader:
                               No header will be added to the beginning of output.
                               The default is to print a header.
                 --noconvert:  Don't convert units from their original type
                               (e.g. 2048M won't be converted to 2G).
                 -o, --format:
                               Comma separated list of fields. (use "--helpformat"
                               for a list of available fields).
                 -p, --parsable: output will be '|' delimited with a '|' at the end
                 -P, --parsable2: output will be '|' delimited without a '|' at the end
                 --usage:      Display brief usage message.
                 -V, --version: Print version.

            """;
}
