package io.gantry.cli;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.gantry.cli.CommandLine.Option;
import io.gantry.cli.PrintFields.Column;
import io.gantry.cli.PrintFields.Kind;
import tools.jackson.databind.JsonNode;

/**
 * {@code sreport}: {@code cluster Utilization} from {@code GET /api/v1/reports/utilization} (CPU time
 * allocated, down, idle and reserved), and {@code cluster AccountUtilizationByUser} and {@code user TopUsage}
 * from the job records of {@code GET /api/v1/accounting/jobs} (each job's CPUs times its run time within the
 * window), in Slurm 22.05's layouts and time formats ({@code -t}).
 */
final class Sreport {

    static final List<Option> OPTIONS = List.of(new Option("all_clusters", 'a', false),
            new Option("cluster", 'M', true), new Option("noheader", 'n', false), new Option("parsable", 'p', false),
            new Option("parsable2", 'P', false), new Option("quiet", 'Q', false), new Option("time", 't', true),
            new Option("tres", 'T', true), new Option("verbose", 'v', false), new Option("version", 'V', false),
            new Option("help", 'h', false), new Option("usage", '\0', false), new Option("federation", '\0', false),
            new Option("local", '\0', false));

    private static final String RULE = "-".repeat(80);
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");

    /** A time format of {@code -t}: its name in the title, and whether values carry a percentage. */
    private enum Format {
        SECONDS("Seconds"), MINUTES("Minutes"), HOURS("Hours"), PERCENT("Percentage of Total"),
        SECPER("Seconds/Percentage of Total"), MINPER("Minutes/Percentage of Total"),
        HOURPER("Hours/Percentage of Total");

        final String title;

        Format(String title) {
            this.title = title;
        }

        boolean per() {
            return this == SECPER || this == MINPER || this == HOURPER;
        }
    }

    private final CliEnvironment env;
    private Format format = Format.MINUTES;
    private PrintFields print;
    private boolean header;

    Sreport(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        if (line.has("help") || line.has("usage")) {
            env.out().println("Usage: sreport [-nPpt] cluster Utilization|AccountUtilizationByUser [start=] [end=]"
                    + " | user TopUsage [start=] [end=]");
            return 0;
        }
        if (line.has("time") && !timeFormat(line.value("time"))) {
            env.err().print("unknown time format " + line.value("time"));
            return 1;
        }
        if (line.has("tres") && !line.value("tres").equalsIgnoreCase("cpu")) {
            env.err().println("sreport: error: only the cpu TRES is reported by Gantry");
            return 1;
        }
        PrintFields.Mode mode = line.has("parsable2") ? PrintFields.Mode.PARSABLE2
                : line.has("parsable") ? PrintFields.Mode.PARSABLE : PrintFields.Mode.FIXED;
        header = !line.has("noheader");
        print = new PrintFields(env.out(), mode, header);
        List<String> words = line.operands();
        if (words.isEmpty()) {
            env.err().println("sreport: error: Gantry's sreport takes its report on the command line "
                    + "(no interactive mode)");
            return 1;
        }
        String kind = words.get(0);
        List<String> rest = words.subList(1, words.size());
        if (SacctmgrFields.abbreviates(kind, "cluster", 2)) {
            if (rest.isEmpty()) {
                env.err().println("Too few arguments for keyword:" + kind);
                return 1;
            }
            String report = rest.get(0);
            if (startsWith(report, "AccountUtilizationByUser", 1)) {
                return accountByUser(rest.subList(1, rest.size()));
            }
            if (startsWith(report, "Utilization", 2)) {
                return clusterUtilization(rest.subList(1, rest.size()));
            }
            if (startsWith(report, "UserUtilizationByAccount", 18) || startsWith(report, "UA", 2)
                    || startsWith(report, "UserUtilizationByWckey", 18) || startsWith(report, "UW", 2)
                    || startsWith(report, "WCKeyUtilizationByUser", 1)) {
                env.err().println("sreport: error: cluster " + report + " is not supported by Gantry");
                return 1;
            }
            env.err().println("Not valid report " + report);
            env.err().println("Valid cluster reports are, \"AccountUtilizationByUser\", \"UserUtilizationByAccount\", "
                    + "\"UserUtilizationByWckey\", \"Utilization\", and \"WCKeyUtilizationByUser\"");
            return 1;
        }
        if (SacctmgrFields.abbreviates(kind, "user", 1)) {
            if (rest.isEmpty()) {
                env.err().println("Too few arguments for keyword:" + kind);
                return 1;
            }
            if (startsWith(rest.get(0), "Top", 1)) {
                return topUsage(rest.subList(1, rest.size()));
            }
            env.err().println("Not valid report " + rest.get(0));
            env.err().println("Valid user reports are, \"Top\"");
            return 1;
        }
        if (SacctmgrFields.abbreviates(kind, "job", 1) || SacctmgrFields.abbreviates(kind, "reservation", 2)) {
            env.err().println("sreport: error: " + kind + " reports are not supported by Gantry");
            return 1;
        }
        env.err().println("invalid keyword: " + kind);
        return 1;
    }

    /** C's {@code xstrncasecmp(word, name, n) == 0}: the first n characters agree (a shorter word must end alike). */
    private static boolean startsWith(String word, String name, int n) {
        int len = Math.min(n, Math.max(word.length(), Math.min(n, name.length())));
        for (int i = 0; i < len; i++) {
            char a = i < word.length() ? Character.toLowerCase(word.charAt(i)) : 0;
            char b = i < name.length() ? Character.toLowerCase(name.charAt(i)) : 0;
            if (a != b) {
                return false;
            }
            if (a == 0) {
                return true;
            }
        }
        return true;
    }

    private boolean timeFormat(String word) {
        Format f = null;
        if (SacctmgrFields.abbreviates(word, "SecPer", 6)) {
            f = Format.SECPER;
        } else if (SacctmgrFields.abbreviates(word, "MinPer", 6)) {
            f = Format.MINPER;
        } else if (SacctmgrFields.abbreviates(word, "HourPer", 6)) {
            f = Format.HOURPER;
        } else if (SacctmgrFields.abbreviates(word, "Seconds", 1)) {
            f = Format.SECONDS;
        } else if (SacctmgrFields.abbreviates(word, "Minutes", 1)) {
            f = Format.MINUTES;
        } else if (SacctmgrFields.abbreviates(word, "Hours", 1)) {
            f = Format.HOURS;
        } else if (SacctmgrFields.abbreviates(word, "Percent", 1)) {
            f = Format.PERCENT;
        }
        if (f != null) {
            format = f;
        }
        return f != null;
    }

    /** The report's window: start= and end= (Slurm's time forms), rounded to the nearest hour, at least one hour. */
    private record Window(Instant start, Instant end) {
        long seconds() {
            return end.getEpochSecond() - start.getEpochSecond();
        }
    }

    private Window window(List<String> args, List<String> formatOut) {
        String start = null;
        String end = null;
        for (String arg : args) {
            int eq = arg.indexOf('=');
            String key = eq < 0 ? arg : arg.substring(0, eq);
            String value = eq < 0 ? "" : arg.substring(eq + 1);
            if (SacctmgrFields.abbreviates(key, "Start", 1)) {
                start = value;
            } else if (SacctmgrFields.abbreviates(key, "End", 1)) {
                end = value;
            } else if (SacctmgrFields.abbreviates(key, "Format", 1)) {
                formatOut.addAll(List.of(value.split(",")));
            } else if (SacctmgrFields.abbreviates(key, "Clusters", 1) || SacctmgrFields.abbreviates(key, "Tree", 4)) {
                continue;
            } else {
                throw new IllegalArgumentException("Unknown condition: " + arg);
            }
        }
        ZonedDateTime now = ZonedDateTime.ofInstant(env.clock().instant(), env.zone());
        ZonedDateTime to = end == null ? now.truncatedTo(ChronoUnit.DAYS) : rounded(parse(end));
        ZonedDateTime from = start == null ? now.truncatedTo(ChronoUnit.DAYS).minusDays(1) : rounded(parse(start));
        if (to.toEpochSecond() - from.toEpochSecond() < 3600) {
            to = from.plusHours(1);
        }
        return new Window(from.toInstant(), to.toInstant());
    }

    private static ZonedDateTime rounded(ZonedDateTime t) {
        ZonedDateTime r = t;
        if (r.getSecond() >= 30) {
            r = r.plusMinutes(1);
        }
        if (r.getMinute() >= 30) {
            r = r.plusHours(1);
        }
        return r.truncatedTo(ChronoUnit.HOURS);
    }

    /** Slurm's time forms for start= and end=: YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], now. */
    private ZonedDateTime parse(String text) {
        String t = text.strip();
        try {
            if (t.equalsIgnoreCase("now")) {
                return ZonedDateTime.ofInstant(env.clock().instant(), env.zone());
            }
            if (t.contains("T")) {
                return LocalDateTime.parse(t.length() == 16 ? t + ":00" : t).atZone(env.zone());
            }
            if (t.matches("\\d{1,2}/\\d{1,2}(/\\d{2})?")) {
                String[] p = t.split("/");
                int year = p.length > 2 ? 2000 + Integer.parseInt(p[2])
                        : LocalDate.now(env.clock().withZone(env.zone())).getYear();
                return LocalDate.of(year, Integer.parseInt(p[0]), Integer.parseInt(p[1])).atStartOfDay(env.zone());
            }
            return LocalDate.parse(t).atStartOfDay(env.zone());
        } catch (DateTimeParseException | NumberFormatException e) {
            throw new IllegalArgumentException("Invalid time specification: " + text);
        }
    }

    private String local(Instant t) {
        return TIME.format(LocalDateTime.ofInstant(t, env.zone()));
    }

    private void title(String text) {
        if (!header) {
            return;
        }
        env.out().println(RULE);
        env.out().println(text);
        env.out().println(format == Format.PERCENT ? "Usage reported in " + format.title
                : "Usage reported in CPU " + format.title);
        env.out().println(RULE);
    }

    /** slurmdb_report_print_time's text for {@code seconds} out of {@code total}. */
    private String time(long seconds, long total) {
        double percent = seconds * 100.0 / (total == 0 ? 1 : total);
        return switch (format) {
            case SECONDS -> Long.toString(seconds);
            case MINUTES -> String.format(Locale.ROOT, "%.0f", seconds / 60.0);
            case HOURS -> String.format(Locale.ROOT, "%.0f", seconds / 3600.0);
            case PERCENT -> String.format(Locale.ROOT, "%.2f%%", percent);
            case SECPER -> String.format(Locale.ROOT, "%d(%.2f%%)", seconds, percent);
            case MINPER -> String.format(Locale.ROOT, "%.0f(%.2f%%)", seconds / 60.0, percent);
            case HOURPER -> String.format(Locale.ROOT, "%.0f(%.2f%%)", seconds / 3600.0, percent);
        };
    }

    /** sreport_set_usage_col_width: 8, one more per digit past eight of the largest value, 9 more with a percentage. */
    private int usageWidth(long largest) {
        int width = 8;
        for (long order = 100_000_000L; largest >= order && order <= Long.MAX_VALUE / 10; order *= 10) {
            width++;
        }
        return format.per() ? width + 9 : width;
    }

    private int clusterUtilization(List<String> args) {
        List<String> fields = new ArrayList<>();
        Window w = window(args, fields);
        if (!fields.isEmpty()) {
            env.err().println("sreport: error: format= is not supported by Gantry's sreport yet");
            return 1;
        }
        JsonNode report = env.api().get().get("/api/v1/reports/utilization?groupBy=cluster&interval=hour&start="
                + HttpControllerApi.encode(w.start().toString()) + "&end=" + HttpControllerApi.encode(w.end().toString()));
        double allocated = 0;
        double down = 0;
        double idle = 0;
        double reserved = 0;
        boolean any = false;
        if (report != null) {
            for (JsonNode b : report.path("buckets")) {
                JsonNode cpu = b.path("cpuHours");
                allocated += cpu.path("allocated").asDouble();
                down += cpu.path("down").asDouble();
                idle += cpu.path("idle").asDouble();
                reserved += cpu.path("reserved").asDouble();
                any = true;
            }
        }
        long alloc = Math.round(allocated * 3600);
        long downSecs = Math.round(down * 3600);
        long idleSecs = Math.round(idle * 3600);
        long planSecs = Math.round(reserved * 3600);
        long reported = alloc + downSecs + idleSecs + planSecs;
        title("Cluster Utilization " + local(w.start()) + " - " + local(w.end().minusSeconds(1)));
        List<Column> columns = List.of(new Column("Cluster", 9, Kind.STR), new Column("Allocated", usageWidth(alloc), Kind.STR),
                new Column("Down", usageWidth(downSecs), Kind.STR), new Column("PLND Down", usageWidth(0), Kind.STR),
                new Column("Idle", usageWidth(idleSecs), Kind.STR), new Column("Planned", usageWidth(planSecs), Kind.STR),
                new Column("Reported", usageWidth(reported), Kind.STR));
        print.header(columns);
        if (!any) {
            return 0;
        }
        // Reported is out of the window's length times the cluster's CPUs, the others out of what was reported.
        print.row(columns, timeCells(columns, List.of(Sacctmgr.cluster(env), time(alloc, reported),
                time(downSecs, reported), time(0, reported), time(idleSecs, reported), time(planSecs, reported),
                time(reported, w.seconds() * clusterCpus())), 1));
        return 0;
    }

    /** Time cells (from {@code first} on) are cut to their width without the '+' text cells get. */
    private static List<String> timeCells(List<Column> columns, List<String> values, int first) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            String v = values.get(i);
            int width = Math.abs(columns.get(i).width());
            out.add(i >= first && v.length() > width ? v.substring(0, width) : v);
        }
        return out;
    }

    /** The CPUs of every node the controller knows. */
    private long clusterCpus() {
        long cpus = 0;
        ControllerApi api = env.api().get();
        for (int page = 0;; page++) {
            JsonNode answer = api.get("/api/v1/nodes?size=1000&page=" + page);
            if (answer == null || !answer.has("items")) {
                break;
            }
            for (JsonNode node : answer.get("items")) {
                cpus += node.path("cpus").asLong();
            }
            if (answer.get("items").isEmpty() || (long) (page + 1) * 1000 >= answer.path("total").asLong()) {
                break;
            }
        }
        return cpus;
    }

    /** CPU-seconds per (account, user) of the jobs' run time inside the window. */
    private Map<String, Map<String, Long>> usage(Window w) {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        ControllerApi api = env.api().get();
        for (int page = 0;; page++) {
            JsonNode answer = api.get("/api/v1/accounting/jobs?size=1000&page=" + page + "&includeSteps=false&start="
                    + HttpControllerApi.encode(w.start().toString()) + "&end=" + HttpControllerApi.encode(w.end().toString()));
            if (answer == null || !answer.has("items")) {
                break;
            }
            for (JsonNode job : answer.get("items")) {
                Instant start = SlurmText.instant(job.get("startTime"));
                if (start == null) {
                    continue;
                }
                Instant end = SlurmText.instant(job.get("endTime"));
                if (end == null) {
                    end = env.clock().instant();
                }
                long from = Math.max(start.getEpochSecond(), w.start().getEpochSecond());
                long to = Math.min(end.getEpochSecond(), w.end().getEpochSecond());
                if (to <= from) {
                    continue;
                }
                long cpus = cpus(SlurmText.text(job, "allocTres", ""));
                out.computeIfAbsent(SlurmText.text(job, "account", ""), k -> new LinkedHashMap<>())
                        .merge(SlurmText.text(job, "user", ""), cpus * (to - from), Long::sum);
            }
            if (answer.get("items").isEmpty() || (long) (page + 1) * 1000 >= answer.path("total").asLong()) {
                break;
            }
        }
        return out;
    }

    private static long cpus(String tres) {
        for (String part : tres.split(",")) {
            if (part.startsWith("cpu=")) {
                try {
                    return Long.parseLong(part.substring(4));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    /** The cluster's reported CPU-seconds in the window, the whole a percentage is of. */
    private long reported(Window w) {
        JsonNode report = env.api().get().get("/api/v1/reports/utilization?groupBy=cluster&interval=hour&start="
                + HttpControllerApi.encode(w.start().toString()) + "&end=" + HttpControllerApi.encode(w.end().toString()));
        double total = 0;
        if (report != null) {
            for (JsonNode b : report.path("buckets")) {
                JsonNode cpu = b.path("cpuHours");
                total += cpu.path("allocated").asDouble() + cpu.path("down").asDouble() + cpu.path("idle").asDouble()
                        + cpu.path("reserved").asDouble();
            }
        }
        return Math.round(total * 3600);
    }

    private int accountByUser(List<String> args) {
        List<String> fields = new ArrayList<>();
        Window w = window(args, fields);
        if (!fields.isEmpty()) {
            env.err().println("sreport: error: format= is not supported by Gantry's sreport yet");
            return 1;
        }
        Map<String, Map<String, Long>> usage = usage(w);
        long total = format == Format.PERCENT || format.per() ? reported(w) : 0;
        // The account tree, so an account's line holds its sub-accounts' usage too.
        Map<String, String> parentOf = new HashMap<>();
        Map<String, List<String>> children = new HashMap<>();
        ControllerApi api = env.api().get();
        JsonNode accounts = api.get("/api/v1/accounts?size=1000");
        List<String> roots = new ArrayList<>();
        if (accounts != null) {
            for (JsonNode a : accounts.path("items")) {
                String name = a.path("name").asString();
                String parent = SlurmText.text(a, "parent", null);
                parentOf.put(name, parent);
                if (parent == null) {
                    roots.add(name);
                } else {
                    children.computeIfAbsent(parent, k -> new ArrayList<>()).add(name);
                }
            }
        }
        Map<String, Long> accountTotals = new HashMap<>();
        usage.forEach((account, users) -> {
            long sum = users.values().stream().mapToLong(Long::longValue).sum();
            for (String a = account; a != null; a = parentOf.get(a)) {
                accountTotals.merge(a, sum, Long::sum);
            }
        });
        title("Cluster/Account/User Utilization " + local(w.start()) + " - " + local(w.end().minusSeconds(1)) + " ("
                + w.seconds() + " secs)");
        long largest = accountTotals.values().stream().mapToLong(Long::longValue).max().orElse(0);
        List<Column> columns = List.of(new Column("Cluster", 9, Kind.STR), new Column("Account", 15, Kind.STR),
                new Column("Login", 9, Kind.STR), new Column("Proper Name", 15, Kind.STR),
                new Column("Used", usageWidth(largest), Kind.STR), new Column("Energy", usageWidth(0), Kind.STR));
        print.header(columns);
        List<String[]> rows = new ArrayList<>();
        roots.sort(Comparator.naturalOrder());
        for (String root : roots) {
            walk(root, children, usage, accountTotals, rows);
        }
        for (String[] r : rows) {
            long used = Long.parseLong(r[2]);
            print.row(columns, timeCells(columns, List.of(Sacctmgr.cluster(env), r[0], r[1], "", time(used, total),
                    time(0, total)), 4));
        }
        return 0;
    }

    /** Accounts with usage, depth first; each account's line, then its users', then its sub-accounts'. */
    private static void walk(String account, Map<String, List<String>> children, Map<String, Map<String, Long>> usage,
            Map<String, Long> totals, List<String[]> rows) {
        if (!totals.containsKey(account)) {
            return;
        }
        rows.add(new String[] { account, "", Long.toString(totals.get(account)) });
        Map<String, Long> users = usage.getOrDefault(account, Map.of());
        users.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()
                .thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> rows.add(new String[] { account, e.getKey(), Long.toString(e.getValue()) }));
        List<String> kids = new ArrayList<>(children.getOrDefault(account, List.of()));
        kids.sort(Comparator.naturalOrder());
        for (String kid : kids) {
            walk(kid, children, usage, totals, rows);
        }
    }

    /** sreport's user TopUsage: a line per user and account, most used first, ten at most. */
    private int topUsage(List<String> args) {
        List<String> fields = new ArrayList<>();
        Window w = window(args, fields);
        if (!fields.isEmpty()) {
            env.err().println("sreport: error: format= is not supported by Gantry's sreport yet");
            return 1;
        }
        Map<String, Map<String, Long>> usage = usage(w);
        long total = format == Format.PERCENT || format.per() ? reported(w) : 0;
        List<String[]> rows = new ArrayList<>();
        usage.forEach((account, users) -> users.forEach((user, used) -> rows.add(new String[] { user, account,
                Long.toString(used) })));
        rows.sort(Comparator.comparingLong((String[] r) -> Long.parseLong(r[2])).reversed()
                .thenComparing(r -> r[0]).thenComparing(r -> r[1]));
        title("Top 10 Users " + local(w.start()) + " - " + local(w.end().minusSeconds(1)) + " (" + w.seconds()
                + " secs)");
        long largest = rows.stream().mapToLong(r -> Long.parseLong(r[2])).max().orElse(0);
        List<Column> columns = List.of(new Column("Cluster", 9, Kind.STR), new Column("Login", 9, Kind.STR),
                new Column("Proper Name", 15, Kind.STR), new Column("Account", 15, Kind.STR),
                new Column("Used", usageWidth(largest), Kind.STR), new Column("Energy", usageWidth(0), Kind.STR));
        print.header(columns);
        for (String[] r : rows.subList(0, Math.min(10, rows.size()))) {
            print.row(columns, timeCells(columns, List.of(Sacctmgr.cluster(env), r[0], "", r[1],
                    time(Long.parseLong(r[2]), total), time(0, total)), 4));
        }
        return 0;
    }
}
