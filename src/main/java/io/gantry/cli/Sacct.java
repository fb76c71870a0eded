package io.gantry.cli;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import io.gantry.cli.CommandLine.Option;
import tools.jackson.databind.JsonNode;

/** {@code sacct}: job accounting from {@code GET /api/v1/accounting/jobs}, in Slurm's fixed-width or parsable layouts. */
final class Sacct {

    static final String DEFAULT_FORMAT = "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode";

    static final List<Option> OPTIONS = List.of(new Option("jobs", 'j', true), new Option("allocations", 'X', false),
            new Option("parsable2", 'P', false), new Option("parsable", 'p', false), new Option("noheader", 'n', false),
            new Option("format", 'o', true), new Option("starttime", 'S', true), new Option("endtime", 'E', true),
            new Option("user", 'u', true), new Option("state", 's', true), new Option("name", '\0', true),
            new Option("allusers", 'a', false), new Option("partition", 'r', true), new Option("accounts", 'A', true),
            new Option("brief", 'b', false), new Option("long", 'l', false), new Option("help", 'h', false),
            new Option("version", 'V', false), new Option("duplicates", 'D', false), new Option("truncate", 'T', false),
            new Option("units", '\0', true), new Option("noconvert", '\0', false), new Option("delimiter", '\0', true),
            new Option("clusters", 'M', true));

    /** A field: header, default width, how to print a record (job or step). */
    private record Field(String header, int width, java.util.function.Function<JsonNode, String> value) {
    }

    private static final Map<String, Field> FIELDS = new LinkedHashMap<>();

    private final CliEnvironment env;

    Sacct(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        String format = line.has("format") ? line.value("format") : line.has("brief") ? "JobID,State,ExitCode" : DEFAULT_FORMAT;
        List<String> names = new ArrayList<>();
        List<Integer> widths = new ArrayList<>();
        for (String item : format.split(",")) {
            if (item.isBlank()) {
                continue;
            }
            String[] parts = item.strip().split("%", 2);
            String key = parts[0].toLowerCase(Locale.ROOT);
            Field field = FIELDS.get(key);
            if (field == null) {
                env.err().println("sacct: error: Invalid field requested: \"" + parts[0] + "\"");
                return 1;
            }
            names.add(key);
            widths.add(parts.length > 1 && !parts[1].isEmpty() ? Integer.valueOf(parts[1]) : field.width());
        }
        Map<String, String> query = new LinkedHashMap<>();
        List<String> ids = line.list("jobs");
        if (!ids.isEmpty()) {
            query.put("jobId", String.join(",", ids));
        }
        String start = line.value("starttime");
        if (start != null) {
            query.put("start", instant(start));
        } else if (ids.isEmpty()) {
            query.put("start", instant(LocalDate.now(env.clock().withZone(env.zone())).toString()));
        }
        if (line.value("endtime") != null) {
            query.put("end", instant(line.value("endtime")));
        }
        if (line.has("user")) {
            query.put("user", String.join(",", line.list("user")));
        }
        if (line.has("partition")) {
            query.put("partition", String.join(",", line.list("partition")));
        }
        if (line.has("accounts")) {
            query.put("account", String.join(",", line.list("accounts")));
        }
        if (line.has("state")) {
            List<String> states = new ArrayList<>();
            for (String word : line.list("state")) {
                String state = SlurmText.jobState(word);
                if (state == null) {
                    env.err().println("sacct: error: Invalid state: " + word);
                    return 1;
                }
                states.add(state);
            }
            query.put("state", String.join(",", states));
        }
        query.put("includeSteps", Boolean.toString(!line.has("allocations")));
        List<String> jobNames = line.list("name");
        ControllerApi api = env.api().get();
        List<JsonNode> records = new ArrayList<>();
        for (int page = 0;; page++) {
            StringBuilder path = new StringBuilder("/api/v1/accounting/jobs?size=1000&page=" + page);
            query.forEach((k, v) -> path.append('&').append(k).append('=').append(HttpControllerApi.encode(v)));
            JsonNode answer = api.get(path.toString());
            if (answer == null || !answer.has("items")) {
                break;
            }
            answer.get("items").forEach(records::add);
            if (answer.get("items").isEmpty() || (long) (page + 1) * 1000 >= answer.path("total").asLong()) {
                break;
            }
        }
        if (!jobNames.isEmpty()) {
            records.removeIf(r -> !jobNames.contains(r.path("name").asString()));
        }
        Clusters.named(env, "sacct", line.value("clusters"));
        if (names.contains("comment")) {
            SacctComments.fill(api, records);
        }
        boolean parsable = line.has("parsable") || line.has("parsable2");
        String delimiter = line.value("delimiter") != null ? line.value("delimiter") : "|";
        String trailer = line.has("parsable") ? delimiter : "";
        if (!line.has("noheader")) {
            if (parsable) {
                env.out().println(String.join(delimiter, names.stream().map(n -> FIELDS.get(n).header()).toList()) + trailer);
            } else {
                List<String> header = new ArrayList<>();
                List<String> dashes = new ArrayList<>();
                for (int i = 0; i < names.size(); i++) {
                    header.add(SlurmText.fit(FIELDS.get(names.get(i)).header(), widths.get(i), rightJustified(names.get(i))));
                    dashes.add("-".repeat(widths.get(i)));
                }
                env.out().println(String.join(" ", header) + " ");
                env.out().println(String.join(" ", dashes) + " ");
            }
        }
        for (JsonNode record : records) {
            List<String> cells = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                String value = FIELDS.get(names.get(i)).value().apply(record);
                if (parsable) {
                    cells.add(value);
                } else {
                    // sacct cuts a value too wide for its column and marks the cut with '+'.
                    int width = widths.get(i);
                    String fitted = value.length() > width ? value.substring(0, width - 1) + "+" : value;
                    cells.add(SlurmText.fit(fitted, width, rightJustified(names.get(i))));
                }
            }
            env.out().println(String.join(parsable ? delimiter : " ", cells) + (parsable ? trailer : " "));
        }
        return 0;
    }

    /** sacct's -S/-E forms: YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], now. */
    private String instant(String text) {
        String t = text.strip();
        try {
            if (t.equalsIgnoreCase("now")) {
                return env.clock().instant().toString();
            }
            if (t.contains("T")) {
                String full = t.length() == 16 ? t + ":00" : t;
                return LocalDateTime.parse(full).atZone(env.zone()).toInstant().toString();
            }
            if (t.matches("\\d{1,2}/\\d{1,2}(/\\d{2})?")) {
                String[] p = t.split("/");
                int year = p.length > 2 ? 2000 + Integer.parseInt(p[2]) : LocalDate.now(env.clock().withZone(env.zone())).getYear();
                return LocalDate.of(year, Integer.parseInt(p[0]), Integer.parseInt(p[1])).atStartOfDay(env.zone())
                        .toInstant().toString();
            }
            return LocalDate.parse(t).atStartOfDay(env.zone()).toInstant().toString();
        } catch (DateTimeParseException | NumberFormatException e) {
            throw new IllegalArgumentException("Invalid time specification: " + text);
        }
    }

    /** sacct left-justifies the job id columns (their widths are negative in its field table) and right-justifies the rest. */
    private static boolean rightJustified(String field) {
        return !field.equals("jobid") && !field.equals("jobidraw");
    }

    private static String s(JsonNode r, String field) {
        return SlurmText.text(r, field, "");
    }

    private static boolean step(JsonNode r) {
        return s(r, "jobId").contains(".");
    }

    private static String exitCode(JsonNode r) {
        if (!r.hasNonNull("exitCode")) {
            return "0:0";
        }
        int code = r.get("exitCode").asInt();
        return code > 128 ? "0:" + (code - 128) : code + ":0";
    }

    private static String cpus(JsonNode r) {
        return tres(r, "cpu=", "0");
    }

    /** One item of the record's AllocTRES ({@code cpu=}, {@code mem=}), or {@code fallback}. */
    private static String tres(JsonNode r, String key, String fallback) {
        String tres = s(r, "allocTres");
        for (String part : tres.split(",")) {
            if (part.startsWith(key)) {
                return part.substring(key.length());
            }
        }
        return fallback;
    }

    private static String time(JsonNode r, String field, String fallback) {
        return SlurmText.time(r.get(field), java.time.ZoneId.systemDefault(), fallback);
    }

    private static void field(String name, String header, int width, java.util.function.Function<JsonNode, String> value) {
        FIELDS.put(name.toLowerCase(Locale.ROOT), new Field(header, width, value));
    }

    static {
        field("JobID", "JobID", 12, r -> s(r, "jobId"));
        field("JobIDRaw", "JobIDRaw", 12, r -> s(r, "jobIdRaw").isEmpty() ? s(r, "jobId") : s(r, "jobIdRaw"));
        field("JobName", "JobName", 10, r -> s(r, "name"));
        // Gantry's jobs have no Unix group of their own: the user's name, as scontrol show job's GroupId prints.
        field("Group", "Group", 9, r -> step(r) ? "" : s(r, "user"));
        field("Comment", "Comment", 10, r -> s(r, "comment"));
        field("NCPUS", "NCPUS", 10, Sacct::cpus);
        field("ReqCPUS", "ReqCPUS", 8, Sacct::cpus);
        field("ReqMem", "ReqMem", 10, r -> step(r) ? "" : tres(r, "mem=", "0"));
        field("State", "State", 10, r -> s(r, "state"));
        field("ExitCode", "ExitCode", 8, Sacct::exitCode);
        field("Elapsed", "Elapsed", 10, r -> SlurmText.clock(r.path("elapsedSeconds").asLong()));
        field("ElapsedRaw", "ElapsedRaw", 10, r -> r.path("elapsedSeconds").asString());
        field("Start", "Start", 19, r -> time(r, "startTime", "Unknown"));
        field("End", "End", 19, r -> time(r, "endTime", "Unknown"));
        field("Submit", "Submit", 19, r -> time(r, "submitTime", "Unknown"));
        field("NodeList", "NodeList", 15, r -> s(r, "nodeList").isEmpty() ? "None assigned" : s(r, "nodeList"));
        field("NNodes", "NNodes", 8, r -> s(r, "nodeList").isEmpty() ? "1" : Integer.toString(SlurmText.expand(s(r, "nodeList")).size()));
        field("AllocTRES", "AllocTRES", 10, r -> s(r, "allocTres"));
        field("ReqTRES", "ReqTRES", 10, r -> s(r, "reqTres").isEmpty() ? s(r, "allocTres") : s(r, "reqTres"));
        field("AllocCPUS", "AllocCPUS", 10, Sacct::cpus);
        field("Partition", "Partition", 10, r -> step(r) ? "" : s(r, "partition"));
        field("Account", "Account", 10, r -> s(r, "account"));
        field("User", "User", 9, r -> step(r) ? "" : s(r, "user"));
        field("QOS", "QOS", 10, r -> step(r) ? "" : s(r, "qos"));
        field("MaxRSS", "MaxRSS", 10, r -> s(r, "maxRss"));
        field("TotalCPU", "TotalCPU", 10, r -> s(r, "totalCpu"));
        field("Timelimit", "Timelimit", 10, r -> step(r) ? "" : r.path("timeLimitSeconds").asLong() <= 0 ? "UNLIMITED"
                : SlurmText.clock(r.path("timeLimitSeconds").asLong()));
        field("CPUTimeRAW", "CPUTimeRAW", 10, r -> r.path("cpuSeconds").asString());
        field("TRESUsageInAve", "TRESUsageInAve", 14, r -> s(r, "tresUsageInAve"));
        field("TRESUsageInMax", "TRESUsageInMax", 14, r -> s(r, "tresUsageInMax"));
    }
}
