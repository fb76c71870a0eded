package io.gantry.cli;

import java.time.Instant;
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
 * {@code sshare}: the fair-share tree of {@code GET /api/v1/fairshare} in Slurm 22.05's layout (Fair Tree):
 * accounts and associations depth first, each account's users before its sub-accounts, names indented by
 * depth. Without {@code -a} only the caller's own user lines (or those of {@code -u}) print beside the accounts.
 */
final class Sshare {

    static final List<Option> OPTIONS = List.of(new Option("accounts", 'A', true), new Option("all", 'a', false),
            new Option("helpformat", 'e', false), new Option("long", 'l', false), new Option("partition", 'm', false),
            new Option("cluster", 'M', true), new Option("clusters", 'M', true), new Option("noheader", 'n', false),
            new Option("format", 'o', true), new Option("parsable", 'p', false), new Option("parsable2", 'P', false),
            new Option("users", 'u', true), new Option("Users", 'U', false), new Option("verbose", 'v', false),
            new Option("version", 'V', false), new Option("help", '\0', false), new Option("usage", '\0', false));

    /** sshare's fields in its table order: the first whose name starts with a format item is taken. */
    private static final List<Column> FIELDS = List.of(new Column("Account", -20, Kind.STR),
            new Column("Cluster", 10, Kind.STR), new Column("EffectvUsage", 13, Kind.DOUBLE),
            new Column("FairShare", 10, Kind.DOUBLE), new Column("GrpTRESMins", 30, Kind.STR),
            new Column("GrpTRESRaw", 30, Kind.STR), new Column("ID", 6, Kind.NUM),
            new Column("LevelFS", 10, Kind.DOUBLE), new Column("NormShares", 11, Kind.DOUBLE),
            new Column("NormUsage", 11, Kind.DOUBLE), new Column("Partition", 12, Kind.STR),
            new Column("RawShares", 10, Kind.NUM), new Column("RawUsage", 11, Kind.NUM),
            new Column("TRESRunMins", 30, Kind.STR), new Column("User", 10, Kind.STR));

    private static final String DEFAULT = "A,User,RawShares,NormShares,RawUsage,Eff,Fairshare";
    private static final String LONG = "A,User,RawShares,NormShares,RawUsage,NormUsage,Eff,Fairshare,LevelFS,"
            + "GrpTRESMins,TRESRunMins";
    private static final String TRES_NAMES = "cpu,mem,energy,node,billing,fs/disk,vmem,pages";

    private final CliEnvironment env;

    Sshare(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        if (line.has("help") || line.has("usage")) {
            env.out().println("Usage: sshare [-a] [-A accounts] [-l] [-n] [-o format] [-p|-P] [-u users] [-U]");
            return 0;
        }
        if (line.has("helpformat")) {
            env.out().println(String.join(" ", FIELDS.stream().map(Column::name).toList()));
            return 0;
        }
        List<Column> columns = new ArrayList<>();
        String format = line.has("format") ? String.join(",", line.list("format")) : line.has("long") ? LONG : DEFAULT;
        for (String item : format.split(",")) {
            if (item.isBlank()) {
                continue;
            }
            String word = item.strip();
            int width = 0;
            int percent = word.indexOf('%');
            if (percent >= 0) {
                width = SacctmgrFields.atoi(word.substring(percent + 1));
                word = word.substring(0, percent);
            }
            Column found = null;
            for (Column c : FIELDS) {
                if (c.name().regionMatches(true, 0, word, 0, word.length()) && word.length() <= c.name().length()) {
                    found = width == 0 ? c : c.withWidth(width);
                    break;
                }
            }
            if (found == null) {
                env.err().println("sshare: error: Invalid field requested: \"" + word + "\"");
                return 1;
            }
            columns.add(found);
        }
        PrintFields.Mode mode = line.has("parsable2") ? PrintFields.Mode.PARSABLE2
                : line.has("parsable") ? PrintFields.Mode.PARSABLE : PrintFields.Mode.FIXED;
        PrintFields print = new PrintFields(env.out(), mode, !line.has("noheader"));

        ControllerApi api = env.api().get();
        List<JsonNode> lines = new ArrayList<>();
        JsonNode tree = api.get("/api/v1/fairshare");
        if (tree != null) {
            tree.forEach(lines::add);
        }
        List<String> users = new ArrayList<>(line.list("users"));
        boolean all = line.has("all");
        if (!all && users.isEmpty()) {
            JsonNode me = api.get("/api/v1/auth/whoami");
            if (me != null && me.hasNonNull("username")) {
                users.add(me.get("username").asString());
            }
        }
        List<String> accounts = line.list("accounts");
        boolean usersOnly = line.has("Users");
        boolean runMins = columns.stream().anyMatch(c -> c.name().equals("TRESRunMins"));
        Map<String, long[]> running = runMins ? runningTres(api) : Map.of();

        List<JsonNode> ordered = treeOrder(lines);
        double rootUsage = ordered.stream().filter(l -> !l.hasNonNull("user") && !l.hasNonNull("parent"))
                .mapToDouble(l -> l.path("rawUsage").asDouble()).sum();
        Map<String, String> parentOf = new HashMap<>();
        lines.stream().filter(l -> !l.hasNonNull("user"))
                .forEach(l -> parentOf.put(l.path("account").asString(), text(l, "parent")));

        print.header(columns);
        // Indentation as slurmdb_tree_name_get gives it: one more than the parent's, when the parent printed.
        Map<String, Integer> indents = new HashMap<>();
        for (JsonNode l : ordered) {
            String account = l.path("account").asString();
            String user = text(l, "user");
            boolean shown;
            if (user == null) {
                shown = !usersOnly && (accounts.isEmpty() || accounts.contains(account));
            } else {
                shown = (all || users.contains(user)) && (accounts.isEmpty() || accounts.contains(account))
                        && (users.isEmpty() || users.contains(user));
            }
            if (!shown) {
                continue;
            }
            String parentKey = user == null ? text(l, "parent") : account;
            Integer parentIndent = parentKey == null ? null : indents.get(parentKey);
            int indent = parentIndent == null ? 0 : parentIndent + 1;
            if (user == null) {
                indents.put(account, indent);
            }
            boolean root = user == null && text(l, "parent") == null;
            List<String> values = new ArrayList<>();
            for (Column c : columns) {
                values.add(value(c.name(), l, root, indent, rootUsage, running, parentOf));
            }
            print.row(columns, values);
        }
        return 0;
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }

    private static String decimal(double value) {
        return Double.isInfinite(value) ? "inf" : Double.toString(value);
    }

    private String value(String column, JsonNode l, boolean root, int indent, double rootUsage,
            Map<String, long[]> running, Map<String, String> parentOf) {
        String account = l.path("account").asString();
        String user = text(l, "user");
        return switch (column) {
            case "Account" -> " ".repeat(indent) + account;
            case "Cluster" -> Sacctmgr.cluster(env);
            case "User" -> user;
            case "RawShares" -> root ? null : Long.toString(l.path("rawShares").asLong());
            case "NormShares" -> root ? "0" : decimal(l.path("normShares").asDouble());
            case "RawUsage" -> Long.toString((long) l.path("rawUsage").asDouble());
            case "NormUsage" -> root ? null
                    : decimal(rootUsage > 0 ? l.path("rawUsage").asDouble() / rootUsage : 0);
            case "EffectvUsage" -> root ? "1" : decimal(l.path("effectiveUsage").asDouble());
            case "FairShare" -> user == null || !l.hasNonNull("fairShareFactor") ? null
                    : decimal(l.get("fairShareFactor").asDouble());
            case "LevelFS" -> root ? null : l.hasNonNull("levelFairShare") ? decimal(l.get("levelFairShare").asDouble())
                    : "inf";
            case "GrpTRESMins" -> l.hasNonNull("grpTresMins") ? l.get("grpTresMins").asString() : "";
            case "GrpTRESRaw" -> l.hasNonNull("grpTresRaw") ? l.get("grpTresRaw").asString() : "";
            case "Partition" -> "";
            case "TRESRunMins" -> runMins(running, account, user, parentOf);
            case "ID" -> null;
            default -> null;
        };
    }

    /** Slurm's TRESRunMins: what the running jobs still hold, TRES times the minutes left of their time limit. */
    private String runMins(Map<String, long[]> running, String account, String user, Map<String, String> parentOf) {
        long[] sum = new long[4];
        for (Map.Entry<String, long[]> e : running.entrySet()) {
            String[] key = e.getKey().split("\u0000", 2);
            boolean counts;
            if (user != null) {
                counts = key[0].equals(account) && key[1].equals(user);
            } else {
                counts = false;
                for (String a = key[0]; a != null; a = parentOf.get(a)) {
                    if (a.equals(account)) {
                        counts = true;
                        break;
                    }
                }
            }
            if (counts) {
                for (int i = 0; i < sum.length; i++) {
                    sum[i] += e.getValue()[i];
                }
            }
        }
        // cpu, mem, energy, node, billing (the CPUs'), fs/disk, vmem, pages: the TRES Slurm lists.
        String[] names = TRES_NAMES.split(",");
        long[] values = { sum[0], sum[1], 0, sum[2], sum[0], 0, 0, 0 };
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < names.length; i++) {
            out.append(i == 0 ? "" : ",").append(names[i]).append('=').append(values[i]);
        }
        if (sum[3] > 0) {
            // GPU-minutes, for GPU budgets; left out without GPUs, as Slurm does without gres/gpu in its TRES.
            out.append(",gres/gpu=").append(sum[3]);
        }
        return out.toString();
    }

    /** Per (account, user): CPU-, memory(MB)-, node- and GPU-minutes left to the running jobs. */
    private Map<String, long[]> runningTres(ControllerApi api) {
        Map<String, long[]> out = new HashMap<>();
        Instant now = env.clock().instant();
        JsonNode page = api.get("/api/v1/jobs?state=RUNNING&size=1000");
        if (page == null || !page.has("items")) {
            return out;
        }
        for (JsonNode j : page.get("items")) {
            long limit = j.path("timeLimitSeconds").asLong();
            Instant start = SlurmText.instant(j.get("startTime"));
            if (limit <= 0 || start == null) {
                continue;
            }
            long left = Math.max(0, limit - (now.getEpochSecond() - start.getEpochSecond())) / 60;
            long cpus = (long) Math.max(1, j.path("tasks").asInt(1)) * Math.max(1, j.path("cpusPerTask").asInt(1));
            long[] t = out.computeIfAbsent(j.path("account").asString() + "\u0000" + j.path("user").asString(),
                    k -> new long[4]);
            long nodes = Math.max(1, j.path("nodes").asInt(1));
            long gpus = j.path("gpus").asInt(0) > 0 ? j.path("gpus").asInt() : nodes * j.path("gpusPerNode").asInt(0);
            t[0] += cpus * left;
            t[1] += j.path("memoryMb").asLong() * left;
            t[2] += nodes * left;
            t[3] += gpus * left;
        }
        return out;
    }

    /** Slurm's print order: from the root account, each account, then its users by name, then its sub-accounts by name. */
    static List<JsonNode> treeOrder(List<JsonNode> lines) {
        Map<String, JsonNode> accounts = new LinkedHashMap<>();
        Map<String, List<JsonNode>> users = new HashMap<>();
        Map<String, List<String>> children = new HashMap<>();
        for (JsonNode l : lines) {
            String account = l.path("account").asString();
            if (l.hasNonNull("user")) {
                users.computeIfAbsent(account, k -> new ArrayList<>()).add(l);
            } else {
                accounts.put(account, l);
                if (l.hasNonNull("parent")) {
                    children.computeIfAbsent(l.get("parent").asString(), k -> new ArrayList<>()).add(account);
                }
            }
        }
        List<JsonNode> out = new ArrayList<>();
        accounts.values().stream().filter(l -> !l.hasNonNull("parent")).map(l -> l.path("account").asString())
                .sorted().forEach(root -> walk(root, accounts, users, children, out));
        return out;
    }

    private static void walk(String account, Map<String, JsonNode> accounts, Map<String, List<JsonNode>> users,
            Map<String, List<String>> children, List<JsonNode> out) {
        out.add(accounts.get(account));
        List<JsonNode> own = new ArrayList<>(users.getOrDefault(account, List.of()));
        own.sort(Comparator.comparing(l -> l.path("user").asString().toLowerCase(Locale.ROOT)));
        out.addAll(own);
        List<String> kids = new ArrayList<>(children.getOrDefault(account, List.of()));
        kids.sort(Comparator.naturalOrder());
        for (String kid : kids) {
            walk(kid, accounts, users, children, out);
        }
    }
}
