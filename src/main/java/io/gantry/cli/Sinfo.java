package io.gantry.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.gantry.cli.CommandLine.Option;
import tools.jackson.databind.JsonNode;

/**
 * {@code sinfo}: partitions and nodes as Slurm 22.05 prints them. Nodes of a partition that print the
 * same in every field but the count and the list share a line, as in sinfo.
 */
final class Sinfo {

    static final String DEFAULT_FORMAT = "%#P %.5a %.10l %.6D %.6t %N";
    static final String NODE_FORMAT = "%#N %.6D %.#P %6t";
    static final String LONG_FORMAT = "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N";
    private static final Pattern FIELD = Pattern.compile("%(\\.)?(#|\\d+)?([a-zA-Z%])");
    private static final Pattern PARTITION_FIELD = Pattern.compile("%(\\.)?(#|\\d+)?[PRp]");

    static final List<Option> OPTIONS = List.of(new Option("noheader", 'h', false), new Option("format", 'o', true),
            new Option("Node", 'N', false), new Option("partition", 'p', true), new Option("states", 't', true),
            new Option("nodes", 'n', true), new Option("long", 'l', false), new Option("list-reasons", 'R', false),
            new Option("all", 'a', false), new Option("summarize", 's', false), new Option("help", '\0', false),
            new Option("usage", '\0', false), new Option("version", 'V', false), new Option("responding", 'r', false),
            new Option("dead", 'd', false), new Option("exact", 'e', false), new Option("verbose", 'v', false),
            new Option("Format", 'O', true), new Option("json", '\0', false));

    private static final Map<String, String[]> STATES = Map.of("IDLE", new String[] { "idle", "idle" },
            "MIXED", new String[] { "mix", "mixed" }, "ALLOCATED", new String[] { "alloc", "allocated" },
            "DRAINING", new String[] { "drng", "draining" }, "DRAINED", new String[] { "drain", "drained" },
            "DOWN", new String[] { "down", "down" }, "UNKNOWN", new String[] { "unk", "unknown" },
            "POWERED_DOWN", new String[] { "idle~", "idle~" }, "POWERING_UP", new String[] { "idle#", "idle#" },
            "POWERING_DOWN", new String[] { "idle%", "idle%" });

    /** Power saving's suffixes, as sinfo prints them after the state: powered down, powering up, powering down. */
    private static final Map<String, String> POWER_SUFFIX = Map.of("POWERED_DOWN", "~", "POWERING_UP", "#",
            "POWERING_DOWN", "%");

    /** A node's state in sinfo's short ({@code form} 0) or long (1) words; a node coming up for a job shows as taken. */
    static String stateName(JsonNode n, int form) {
        String state = n.path("state").asString();
        String suffix = POWER_SUFFIX.get(state);
        if (suffix != null && n.path("allocCpus").asInt() > 0) {
            boolean full = n.path("allocCpus").asInt() >= n.path("cpus").asInt();
            return (full ? STATES.get("ALLOCATED") : STATES.get("MIXED"))[form] + suffix;
        }
        return STATES.getOrDefault(state, new String[] { "unk", "unknown" })[form];
    }

    private record Cell(JsonNode partition, JsonNode node) {
    }

    private final CliEnvironment env;

    Sinfo(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        for (String unsupported : List.of("summarize", "exact", "dead", "responding")) {
            if (line.has(unsupported)) {
                env.err().println("sinfo: error: --" + unsupported + " is not supported by Gantry yet");
                return 1;
            }
        }
        List<String> states = new ArrayList<>();
        for (String word : line.list("states")) {
            String lower = word.toLowerCase(Locale.ROOT);
            String found = null;
            for (Map.Entry<String, String[]> e : STATES.entrySet()) {
                if (e.getValue()[0].equals(lower) || e.getValue()[1].equals(lower)
                        || e.getKey().equalsIgnoreCase(lower) || lower.equals("drain") && e.getKey().startsWith("DRAIN")) {
                    found = e.getKey();
                    states.add(found);
                }
            }
            if (found == null) {
                env.err().println("sinfo: error: Invalid node state specified: " + word);
                return 1;
            }
        }
        ControllerApi api = env.api().get();
        List<JsonNode> partitions = items(api.get("/api/v1/partitions?size=1000"));
        Map<String, JsonNode> nodes = new LinkedHashMap<>();
        for (JsonNode node : items(api.get("/api/v1/nodes?size=1000"))) {
            nodes.put(node.path("name").asString(), node);
        }
        if (line.has("json")) {
            env.out().println(SinfoJson.render(new ArrayList<>(nodes.values()), partitions));
            return 0;
        }
        List<String> wantedPartitions = line.list("partition");
        List<String> wantedNodes = new ArrayList<>();
        if (line.has("nodes")) {
            wantedNodes.addAll(SlurmText.expand(line.value("nodes")));
        }
        String format = line.has("Format") ? SinfoFormat.letters(line.value("Format")) : line.value("format");
        if (format == null) {
            format = line.has("Node") ? NODE_FORMAT : line.has("long") ? LONG_FORMAT
                    : line.has("list-reasons") ? "%20E %9u %19H %N" : DEFAULT_FORMAT;
        }
        List<List<Cell>> groups = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        // Without a partition column sinfo counts each node once, whichever partitions hold it (recorded:
        // OOD's "sinfo -aho %F/%C" is one line for the whole cluster).
        boolean perPartition = PARTITION_FIELD.matcher(format).find();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (JsonNode partition : partitions) {
            String name = partition.path("name").asString();
            if (!wantedPartitions.isEmpty() && !wantedPartitions.contains(name)) {
                continue;
            }
            for (String host : SlurmText.expand(partition.path("nodes").asString(""))) {
                JsonNode node = nodes.get(host);
                if (node == null || !wantedNodes.isEmpty() && !wantedNodes.contains(host)
                        || !states.isEmpty() && !states.contains(node.path("state").asString())
                        || !perPartition && !seen.add(host)) {
                    continue;
                }
                Cell cell = new Cell(partition, node);
                String group = perPartition ? name : "";
                String key = line.has("Node") ? group + "|" + host : group + "|" + render(format, List.of(cell), true);
                int at = keys.indexOf(key);
                if (at < 0) {
                    keys.add(key);
                    groups.add(new ArrayList<>(List.of(cell)));
                } else {
                    groups.get(at).add(cell);
                }
            }
        }
        if (line.has("Node")) {
            groups.sort(java.util.Comparator.comparing(g -> g.get(0).node().path("name").asString()));
        }
        if (!line.has("noheader")) {
            env.out().println(header(format));
        }
        for (List<Cell> group : groups) {
            env.out().println(render(format, group, false));
        }
        return 0;
    }

    private static List<JsonNode> items(JsonNode page) {
        List<JsonNode> out = new ArrayList<>();
        if (page != null && page.has("items")) {
            page.get("items").forEach(out::add);
        }
        return out;
    }

    private String header(String format) {
        return expand(format, (letter, width, right) -> SlurmText.fit(HEADERS.getOrDefault(letter, "?"), width, right));
    }

    /** {@code key}: render every field but the aggregates, so equal keys share a line. */
    private String render(String format, List<Cell> cells, boolean key) {
        return expand(format, (letter, width, right) -> {
            if (key && (letter == 'D' || letter == 'N' || letter == 'F' || letter == 'C')) {
                return "";
            }
            return SlurmText.fit(value(letter, cells), width, right);
        });
    }

    @FunctionalInterface
    private interface FieldText {
        String text(char letter, Integer width, boolean right);
    }

    private static String expand(String format, FieldText field) {
        StringBuilder out = new StringBuilder();
        Matcher m = FIELD.matcher(format);
        int last = 0;
        while (m.find()) {
            out.append(format, last, m.start());
            char letter = m.group(3).charAt(0);
            boolean right = m.group(1) != null;
            Integer width = null;
            if ("#".equals(m.group(2))) {
                width = 9;
            } else if (m.group(2) != null) {
                width = Integer.valueOf(m.group(2));
            }
            out.append(letter == '%' ? "%" : field.text(letter, width, right));
            last = m.end();
        }
        out.append(format.substring(last));
        return out.toString();
    }

    private static final Map<Character, String> HEADERS = Map.ofEntries(Map.entry('P', "PARTITION"),
            Map.entry('R', "PARTITION"), Map.entry('a', "AVAIL"), Map.entry('l', "TIMELIMIT"), Map.entry('D', "NODES"),
            Map.entry('t', "STATE"), Map.entry('T', "STATE"), Map.entry('N', "NODELIST"), Map.entry('c', "CPUS"),
            Map.entry('m', "MEMORY"), Map.entry('G', "GRES"), Map.entry('f', "AVAIL_FEATURES"),
            Map.entry('b', "ACTIVE_FEATURES"), Map.entry('C', "CPUS(A/I/O/T)"), Map.entry('E', "REASON"),
            Map.entry('s', "JOB_SIZE"), Map.entry('r', "ROOT"), Map.entry('h', "OVERSUBS"), Map.entry('g', "GROUPS"),
            Map.entry('u', "USER"), Map.entry('H', "TIMESTAMP"), Map.entry('n', "HOSTNAMES"), Map.entry('z', "S:C:T"),
            Map.entry('F', "NODES(A/I/O/T)"), Map.entry('p', "PRIO_TIER"), Map.entry('M', "PREEMPT_MODE"),
            Map.entry(SinfoFormat.GRES_USED, "GRES_USED"));

    private String value(char letter, List<Cell> cells) {
        Cell first = cells.get(0);
        JsonNode p = first.partition();
        JsonNode n = first.node();
        return switch (letter) {
            case 'P' -> p.path("name").asString() + (p.path("isDefault").asBoolean() ? "*" : "");
            case 'R' -> p.path("name").asString();
            case 'a' -> switch (p.path("state").asString()) {
                case "UP" -> "up";
                case "DOWN" -> "down";
                case "DRAIN" -> "drain";
                default -> "inact";
            };
            case 'l' -> p.hasNonNull("maxTimeSeconds") ? SlurmText.elapsed(p.get("maxTimeSeconds").asLong()) : "infinite";
            case 'D' -> Integer.toString(cells.size());
            case 't' -> stateName(n, 0);
            case 'T' -> stateName(n, 1);
            case 'N', 'n' -> SlurmText.compress(cells.stream().map(c -> c.node().path("name").asString()).toList());
            case 'F' -> {
                long alloc = cells.stream().filter(c -> List.of("ALLOCATED", "MIXED")
                        .contains(c.node().path("state").asString())).count();
                long idle = cells.stream().filter(c -> "IDLE".equals(c.node().path("state").asString())).count();
                yield alloc + "/" + idle + "/" + (cells.size() - alloc - idle) + "/" + cells.size();
            }
            case 'p' -> p.path("priorityTier").asString("1");
            case 'M' -> p.path("preemptMode").asString("OFF");
            case SinfoFormat.GRES_USED -> n.path("gpus").asInt() > 0
                    ? "gpu:" + (n.hasNonNull("gpuType") ? n.get("gpuType").asString() + ":" : "") + n.path("allocGpus").asInt()
                    : "(null)";
            case 'c' -> n.path("cpus").asString();
            case 'm' -> n.path("memoryMb").asString();
            case 'G' -> n.path("gpus").asInt() > 0
                    ? "gpu:" + (n.hasNonNull("gpuType") ? n.get("gpuType").asString() + ":" : "") + n.path("gpus").asInt()
                    : "(null)";
            case 'f', 'b' -> SlurmText.text(n, "features", "(null)");
            case 'C' -> {
                long alloc = 0;
                long other = 0;
                long total = 0;
                for (Cell c : cells) {
                    alloc += c.node().path("allocCpus").asLong();
                    total += c.node().path("cpus").asLong();
                    // a node that cannot run jobs counts its CPUs as "other", as sinfo does (recorded)
                    if (List.of("DOWN", "DRAINED", "UNKNOWN").contains(c.node().path("state").asString())) {
                        other += c.node().path("cpus").asLong() - c.node().path("allocCpus").asLong();
                    }
                }
                yield alloc + "/" + (total - alloc - other) + "/" + other + "/" + total;
            }
            case 'E' -> SlurmText.text(n, "reason", "none");
            case 'u' -> SlurmText.text(n, "reasonUser", "Unknown");
            case 'H' -> SlurmText.time(n.get("reasonTime"), env.zone(), "Unknown");
            case 's' -> "1-infinite";
            case 'r' -> "no";
            case 'h' -> "NO";
            case 'g' -> "all";
            case 'z' -> n.path("cpus").asString() + ":1:1";
            default -> "?";
        };
    }
}
