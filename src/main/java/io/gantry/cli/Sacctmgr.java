package io.gantry.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import io.gantry.cli.CommandLine.Option;
import io.gantry.cli.PrintFields.Column;
import io.gantry.cli.SacctmgrFields.Field;
import tools.jackson.databind.JsonNode;

/**
 * {@code sacctmgr}: {@code list|show} of accounts, users, associations and QOS over the accounting API
 * ({@code /accounts}, {@code /users}, {@code /associations}, {@code /qos}), and {@code add|modify|delete}
 * of them (ADMIN, or a coordinator where the API allows). Output, messages and exit codes are Slurm
 * 22.05's. Without {@code -i} a change is shown and then confirmed on standard input, as sacctmgr asks.
 * Names, descriptions and organizations are lower-cased, as sacctmgr stores them.
 */
final class Sacctmgr {

    static final List<Option> OPTIONS = List.of(new Option("help", 'h', false), new Option("usage", '\0', false),
            new Option("immediate", 'i', false), new Option("noheader", 'n', false),
            new Option("oneliner", 'o', false), new Option("parsable", 'p', false),
            new Option("parsable2", 'P', false), new Option("quiet", 'Q', false), new Option("readonly", 'r', false),
            new Option("associations", 's', false), new Option("verbose", 'v', false),
            new Option("version", 'V', false));

    static final String CLUSTER_ENV = "GANTRY_CLUSTER";

    private final CliEnvironment env;
    private PrintFields print;
    private boolean immediate;
    private boolean withAssocFlag;
    private ControllerApi api;

    Sacctmgr(CliEnvironment env) {
        this.env = env;
    }

    /** The cluster name sacctmgr prints: {@code GANTRY_CLUSTER}, else {@code cluster=} in the config, else "gantry". */
    static String cluster(CliEnvironment env) {
        String name = env.env().get(CLUSTER_ENV);
        if (name == null || name.isBlank()) {
            name = env.configValue("cluster");
        }
        return name == null || name.isBlank() ? "gantry" : name.strip();
    }

    int run(List<String> args) {
        CommandLine line = CommandLine.parse(args, OPTIONS, false);
        if (line.versionPrinted(env)) {
            return 0;
        }
        if (line.has("help") || line.has("usage")) {
            env.out().println("Usage: sacctmgr [-hinopPQrsvV] [add|list|modify|delete] [account|association|qos|user] "
                    + "[name] [where ...] [set ...] [format=...]");
            return 0;
        }
        PrintFields.Mode mode = line.has("parsable2") ? PrintFields.Mode.PARSABLE2
                : line.has("parsable") ? PrintFields.Mode.PARSABLE : PrintFields.Mode.FIXED;
        print = new PrintFields(env.out(), mode, !line.has("noheader"));
        immediate = line.has("immediate");
        withAssocFlag = line.has("associations");
        List<String> words = line.operands();
        if (words.isEmpty()) {
            env.err().println("sacctmgr: error: Gantry's sacctmgr takes its command on the command line "
                    + "(no interactive mode)");
            return 1;
        }
        String verb = words.get(0);
        List<String> rest = words.subList(1, words.size());
        boolean change = SacctmgrFields.abbreviates(verb, "add", 3) || SacctmgrFields.abbreviates(verb, "create", 3)
                || SacctmgrFields.abbreviates(verb, "modify", 1) || SacctmgrFields.abbreviates(verb, "update", 1)
                || SacctmgrFields.abbreviates(verb, "delete", 3) || SacctmgrFields.abbreviates(verb, "remove", 3);
        if (change && line.has("readonly")) {
            env.err().println("Can't run this command in readonly mode.");
            return 1;
        }
        if (SacctmgrFields.abbreviates(verb, "add", 3) || SacctmgrFields.abbreviates(verb, "create", 3)) {
            return add(rest);
        }
        if (SacctmgrFields.abbreviates(verb, "show", 3) || SacctmgrFields.abbreviates(verb, "list", 3)) {
            return list(rest);
        }
        if (SacctmgrFields.abbreviates(verb, "modify", 1) || SacctmgrFields.abbreviates(verb, "update", 1)) {
            return modify(rest);
        }
        if (SacctmgrFields.abbreviates(verb, "delete", 3) || SacctmgrFields.abbreviates(verb, "remove", 3)) {
            return delete(rest);
        }
        env.err().println("invalid keyword: " + verb);
        return 1;
    }

    private ControllerApi api() {
        if (api == null) {
            api = env.api().get();
        }
        return api;
    }

    private enum Entity {
        ACCOUNT, ASSOCIATION, QOS, USER
    }

    /** The entity a word names, as sacctmgr's _show_it/_add_it tell them apart; null when none. */
    private static Entity entity(String word, boolean listing) {
        if (SacctmgrFields.abbreviates(word, "Accounts", 2) || SacctmgrFields.abbreviates(word, "Acct", 4)) {
            return Entity.ACCOUNT;
        }
        if (listing && SacctmgrFields.abbreviates(word, "Associations", 2)) {
            return Entity.ASSOCIATION;
        }
        if (SacctmgrFields.abbreviates(word, "QOS", 1)) {
            return Entity.QOS;
        }
        if (SacctmgrFields.abbreviates(word, "Users", 1)) {
            return Entity.USER;
        }
        return null;
    }

    // --- list ------------------------------------------------------------------------------------

    /** A list command's conditions: names, other key=values, format items, flags. */
    private static final class Conditions {
        final List<String> names = new ArrayList<>();
        final Map<String, List<String>> values = new LinkedHashMap<>();
        final List<String> format = new ArrayList<>();
        boolean withAssoc;
        boolean assocCondition;

        List<String> get(String key) {
            return values.getOrDefault(key, List.of());
        }
    }

    private static List<String> commaList(String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                out.add(part.strip());
            }
        }
        return out;
    }

    /** The key of a {@code key=value} word, its value, or null for a bare word. */
    private record Word(String text, String key, String value) {
        static Word of(String text) {
            int eq = text.indexOf('=');
            if (eq <= 0) {
                return new Word(text, null, null);
            }
            String key = text.substring(0, eq);
            // sacctmgr's "+=" and "-=" name the same key.
            if (key.endsWith("+") || key.endsWith("-")) {
                key = key.substring(0, key.length() - 1);
            }
            return new Word(text, key, text.substring(eq + 1));
        }

        boolean is(String name, int minimum) {
            return key != null && SacctmgrFields.abbreviates(key, name, minimum);
        }
    }

    /** Reads a list's conditions; an unknown one is Slurm's message, and null. */
    private Conditions conditions(Entity entity, List<String> args) {
        Conditions c = new Conditions();
        for (String arg : args) {
            Word w = Word.of(arg);
            if (w.key() == null) {
                if (SacctmgrFields.abbreviates(arg, "where", 5) || SacctmgrFields.abbreviates(arg, "set", 3)) {
                    continue;
                }
                if (SacctmgrFields.abbreviates(arg, "Tree", 4)) {
                    env.err().println("sacctmgr: error: tree is not supported by Gantry's sacctmgr");
                    return null;
                }
                if (SacctmgrFields.abbreviates(arg, "WithAssoc", 5)) {
                    c.withAssoc = true;
                    continue;
                }
                if (SacctmgrFields.abbreviates(arg, "WithCoordinators", 5)
                        || SacctmgrFields.abbreviates(arg, "WithDeleted", 5)
                        || SacctmgrFields.abbreviates(arg, "WOPLimits", 4)
                        || SacctmgrFields.abbreviates(arg, "WithRawQOSLevel", 5)) {
                    continue;
                }
                c.names.addAll(commaList(arg));
                continue;
            }
            if (w.is("Format", 1)) {
                c.format.addAll(commaList(w.value()));
            } else if (w.is("Names", 1) || entity == Entity.ACCOUNT && (w.is("Accounts", 1) || w.is("Acct", 4))
                    || entity == Entity.USER && w.is("Users", 1) || entity == Entity.QOS && w.is("QOS", 1)) {
                c.names.addAll(commaList(w.value()));
            } else if (w.is("Accounts", 2) || w.is("Acct", 4)) {
                c.values.computeIfAbsent("account", k -> new ArrayList<>()).addAll(commaList(w.value()));
                c.assocCondition = true;
            } else if (w.is("Users", 1)) {
                c.values.computeIfAbsent("user", k -> new ArrayList<>()).addAll(commaList(w.value()));
                c.assocCondition = true;
            } else if (w.is("Clusters", 1)) {
                c.values.computeIfAbsent("cluster", k -> new ArrayList<>()).addAll(commaList(w.value()));
            } else if (w.is("Parent", 1)) {
                c.values.computeIfAbsent("parent", k -> new ArrayList<>()).addAll(commaList(w.value()));
                c.assocCondition = true;
            } else if (w.is("DefaultAccount", 8)) {
                c.values.computeIfAbsent("defaultaccount", k -> new ArrayList<>()).addAll(commaList(w.value()));
            } else if (w.is("Descriptions", 1) || w.is("Organizations", 1)) {
                c.values.computeIfAbsent(w.key().toLowerCase(Locale.ROOT).startsWith("d") ? "description"
                        : "organization", k -> new ArrayList<>()).addAll(commaList(w.value()));
            } else {
                env.err().println(" Unknown condition: " + arg);
                env.err().println(" Use keyword 'set' to modify value");
                return null;
            }
        }
        return c;
    }

    private int list(List<String> args) {
        Entity entity = args.isEmpty() ? null : entity(args.get(0), true);
        if (entity == null) {
            if (!args.isEmpty() && isOtherEntity(args.get(0))) {
                env.err().println("sacctmgr: error: list " + args.get(0) + " is not supported by Gantry");
                return 1;
            }
            env.err().println("No valid entity in list command");
            env.err().println("Input line must include \"Account\", \"Association\", \"Cluster\", \"Configuration\",");
            env.err().println("\"Event\", \"Federation\", \"Problem\", \"QOS\", \"Resource\", \"Reservation\",");
            env.err().println("\"RunAwayJobs\", \"Stats\", \"Transaction\", \"TRES\", \"User\", or \"WCKey\"");
            return 1;
        }
        Conditions c = conditions(entity, args.subList(1, args.size()));
        if (c == null) {
            return 1;
        }
        boolean withAssoc = c.withAssoc || withAssocFlag;
        List<String> format = new ArrayList<>(c.format);
        if (format.isEmpty()) {
            format.addAll(commaList(switch (entity) {
                case ACCOUNT -> "Acc,Des,O" + (withAssoc ? ",Cl,ParentN,U,Share,Priority,GrpJ,GrpN,GrpCPUs,GrpMEM,"
                        + "GrpS,GrpWall,GrpCPUMins,MaxJ,MaxN,MaxCPUs,MaxS,MaxW,MaxCPUMins,QOS,DefaultQOS" : "");
                case USER -> "U,DefaultA,Ad" + (withAssoc ? ",Cl,Acc,Part,Share,Priority,MaxJ,MaxN,MaxCPUs,MaxS,MaxW,"
                        + "MaxCPUMins,QOS,DefaultQOS" : "");
                case ASSOCIATION -> "Cluster,Account,User,Part,Share,Priority,GrpJ,GrpTRES,GrpS,GrpWall,GrpTRESMins,"
                        + "MaxJ,MaxTRES,MaxTRESPerN,MaxS,MaxW,MaxTRESMins,QOS,DefaultQOS,GrpTRESRunMins";
                case QOS -> "Name,Prio,GraceT,Preempt,PreemptE,PreemptM,Flags%40,UsageThres,UsageFactor,GrpTRES,"
                        + "GrpTRESMins,GrpTRESRunMins,GrpJ,GrpS,GrpW,MaxTRES,MaxTRESPerN,MaxTRESMins,MaxW,"
                        + "MaxTRESPerUser,MaxJobsPerUser,MaxSubmitJobsPerUser,MaxTRESPerAcct,MaxJobsPerAcct,"
                        + "MaxSubmitJobsPerAcct,MinTRES";
            }));
        }
        List<Field> fields = new ArrayList<>();
        for (String item : format) {
            Field f = SacctmgrFields.lookup(item);
            if (f == null) {
                env.err().println("Unknown field '" + item.replaceAll("%.*$", "") + "'");
                return 1;
            }
            fields.add(f);
        }
        List<Map<String, String>> rows = switch (entity) {
            case ACCOUNT -> accountRows(c, withAssoc);
            case USER -> userRows(c, withAssoc);
            case ASSOCIATION -> assocRows(c);
            case QOS -> qosRows(c);
        };
        List<Column> columns = fields.stream().map(Field::column).toList();
        print.header(columns);
        for (Map<String, String> row : rows) {
            List<String> values = new ArrayList<>();
            for (Field f : fields) {
                values.add(row.get(f.type()));
            }
            print.row(columns, values);
        }
        return 0;
    }

    private static boolean isOtherEntity(String word) {
        for (String[] other : new String[][] { { "Clusters", "2" }, { "Configuration", "2" }, { "Events", "1" },
                { "Federation", "1" }, { "Problems", "1" }, { "RunawayJobs", "2" }, { "Resource", "4" },
                { "Reservations", "4" }, { "Stats", "1" }, { "Transactions", "1" }, { "WCKeys", "1" },
                { "tres", "2" }, { "Coordinator", "2" } }) {
            if (SacctmgrFields.abbreviates(word, other[0], Integer.parseInt(other[1]))) {
                return true;
            }
        }
        return false;
    }

    // --- the accounting data as rows keyed by field type -----------------------------------------

    private List<JsonNode> all(String path) {
        List<JsonNode> out = new ArrayList<>();
        String sep = path.contains("?") ? "&" : "?";
        for (int page = 0;; page++) {
            JsonNode answer = api().get(path + sep + "size=1000&page=" + page);
            if (answer == null || !answer.has("items")) {
                break;
            }
            answer.get("items").forEach(out::add);
            if (answer.get("items").isEmpty() || (long) (page + 1) * 1000 >= answer.path("total").asLong()) {
                break;
            }
        }
        return out;
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }

    private Map<String, JsonNode> accounts() {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode a : all("/api/v1/accounts")) {
            out.put(a.path("name").asString(), a);
        }
        return out;
    }

    /** Every QOS name, in the API's order: an association with no QOS list may use them all. */
    private List<String> qosNames() {
        return all("/api/v1/qos").stream().map(q -> q.path("name").asString()).toList();
    }

    private static String tresCount(String tres, String name) {
        if (tres == null) {
            return null;
        }
        for (String part : tres.split(",")) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        return null;
    }

    /** An association's values, keyed by sacctmgr's field types. */
    private Map<String, String> assocValues(JsonNode a, Map<String, JsonNode> accounts, List<String> allQos) {
        Map<String, String> row = new HashMap<>();
        String account = a.path("account").asString();
        String user = text(a, "user");
        row.put("CLUSTER", cluster(env));
        row.put("ACCT", account);
        row.put("USER", user);
        row.put("ID", a.has("id") ? a.get("id").asString() : null);
        if (user == null) {
            JsonNode acc = accounts.get(account);
            row.put("PNAME", acc == null ? null : text(acc, "parent"));
        }
        row.put("FAIRSHARE", a.hasNonNull("shares") ? a.get("shares").asString() : "1");
        row.put("MAXJ", text(a, "maxJobs"));
        row.put("MAXS", text(a, "maxSubmitJobs"));
        String grp = text(a, "grpTres");
        row.put("GRPT", grp == null || grp.isEmpty() ? null : grp);
        row.put("GRPC", tresCount(grp, "cpu"));
        row.put("GRPN", tresCount(grp, "node"));
        row.put("GRPMEM", tresCount(grp, "mem"));
        List<String> qos = new ArrayList<>();
        a.path("qos").forEach(q -> qos.add(q.asString()));
        row.put("QOS", String.join(",", new TreeSet<>(qos.isEmpty() ? allQos : qos)));
        row.put("DQOS", text(a, "defaultQos"));
        return row;
    }

    /** Associations in sacctmgr's order: depth first from root, each account's users before its sub-accounts. */
    private static List<JsonNode> hierarchical(List<JsonNode> assocs, Map<String, JsonNode> accounts) {
        Map<String, List<String>> children = new HashMap<>();
        for (JsonNode acc : accounts.values()) {
            String parent = text(acc, "parent");
            if (parent != null) {
                children.computeIfAbsent(parent, k -> new ArrayList<>()).add(acc.path("name").asString());
            }
        }
        Map<String, List<JsonNode>> byAccount = new HashMap<>();
        for (JsonNode a : assocs) {
            byAccount.computeIfAbsent(a.path("account").asString(), k -> new ArrayList<>()).add(a);
        }
        List<JsonNode> out = new ArrayList<>();
        List<String> roots = accounts.values().stream().filter(acc -> text(acc, "parent") == null)
                .map(acc -> acc.path("name").asString()).sorted().toList();
        for (String root : roots) {
            walk(root, children, byAccount, out);
        }
        // Associations of accounts the tree did not reach (none in a consistent store) still print.
        for (JsonNode a : assocs) {
            if (!out.contains(a)) {
                out.add(a);
            }
        }
        return out;
    }

    private static void walk(String account, Map<String, List<String>> children, Map<String, List<JsonNode>> byAccount,
            List<JsonNode> out) {
        List<JsonNode> own = new ArrayList<>(byAccount.getOrDefault(account, List.of()));
        own.sort(Comparator.comparing((JsonNode a) -> a.hasNonNull("user") ? 1 : 0)
                .thenComparing(a -> a.path("user").asString("")));
        out.addAll(own);
        List<String> kids = new ArrayList<>(children.getOrDefault(account, List.of()));
        kids.sort(Comparator.naturalOrder());
        for (String kid : kids) {
            walk(kid, children, byAccount, out);
        }
    }

    private static boolean matches(List<String> wanted, String value) {
        return wanted.isEmpty() || value != null && wanted.stream().anyMatch(w -> w.equalsIgnoreCase(value));
    }

    private List<Map<String, String>> assocRows(Conditions c) {
        Map<String, JsonNode> accounts = accounts();
        List<String> allQos = qosNames();
        List<JsonNode> assocs = hierarchical(all("/api/v1/associations"), accounts);
        List<String> users = new ArrayList<>(c.get("user"));
        List<String> accountNames = new ArrayList<>(c.get("account"));
        accountNames.addAll(c.names);
        List<Map<String, String>> rows = new ArrayList<>();
        for (JsonNode a : assocs) {
            Map<String, String> row = assocValues(a, accounts, allQos);
            if (!users.isEmpty() && !matches(users, row.get("USER")) || !matches(accountNames, row.get("ACCT"))
                    || !matches(c.get("cluster"), row.get("CLUSTER"))
                    || !c.get("parent").isEmpty() && !matches(c.get("parent"), parentOf(a, accounts))) {
                continue;
            }
            rows.add(row);
        }
        return rows;
    }

    private static String parentOf(JsonNode assoc, Map<String, JsonNode> accounts) {
        if (assoc.hasNonNull("user")) {
            return assoc.path("account").asString();
        }
        JsonNode acc = accounts.get(assoc.path("account").asString());
        return acc == null ? null : text(acc, "parent");
    }

    private static Map<String, String> accountValues(JsonNode acc) {
        Map<String, String> row = new HashMap<>();
        row.put("ACCT", acc.path("name").asString());
        row.put("DESC", text(acc, "description"));
        row.put("ORG", text(acc, "organization"));
        return row;
    }

    private List<Map<String, String>> accountRows(Conditions c, boolean withAssoc) {
        Map<String, JsonNode> accounts = accounts();
        List<String> names = accounts.keySet().stream().sorted().toList();
        List<Map<String, String>> rows = new ArrayList<>();
        List<JsonNode> assocs = withAssoc ? all("/api/v1/associations") : List.of();
        List<String> allQos = withAssoc ? qosNames() : List.of();
        for (String name : names) {
            JsonNode acc = accounts.get(name);
            if (!matches(c.names, name) || !matches(c.get("description"), text(acc, "description"))
                    || !matches(c.get("organization"), text(acc, "organization"))) {
                continue;
            }
            if (!withAssoc) {
                rows.add(accountValues(acc));
                continue;
            }
            List<JsonNode> own = assocs.stream().filter(a -> a.path("account").asString().equals(name))
                    .sorted(Comparator.comparing((JsonNode a) -> a.hasNonNull("user") ? 1 : 0)
                            .thenComparing(a -> a.path("user").asString("")))
                    .toList();
            for (JsonNode a : own) {
                Map<String, String> row = assocValues(a, accounts, allQos);
                if (!matches(c.get("user"), row.get("USER")) && !c.get("user").isEmpty()
                        || !c.get("parent").isEmpty() && !matches(c.get("parent"), parentOf(a, accounts))) {
                    continue;
                }
                row.putAll(accountValues(acc));
                rows.add(row);
            }
        }
        return rows;
    }

    private static String adminLevel(JsonNode user) {
        List<String> roles = new ArrayList<>();
        user.path("roles").forEach(r -> roles.add(r.asString()));
        return roles.contains("ADMIN") ? "Administrator" : roles.contains("OPERATOR") ? "Operator" : "None";
    }

    /**
     * Users: {@code /users} for an ADMIN. Anyone else reads the users named in the associations, without
     * their default account or admin level (the API keeps those to ADMINs), which print as unset.
     */
    private List<JsonNode> users(List<JsonNode> assocs) {
        try {
            return all("/api/v1/users");
        } catch (ControllerApi.ApiException e) {
            if (e.status() != 403) {
                throw e;
            }
            TreeSet<String> names = new TreeSet<>();
            for (JsonNode a : assocs) {
                if (a.hasNonNull("user")) {
                    names.add(a.get("user").asString());
                }
            }
            List<JsonNode> out = new ArrayList<>();
            for (String name : names) {
                out.add(HttpControllerApi.JSON.createObjectNode().put("username", name));
            }
            return out;
        }
    }

    private List<Map<String, String>> userRows(Conditions c, boolean withAssoc) {
        Map<String, JsonNode> accounts = withAssoc ? accounts() : Map.of();
        List<JsonNode> assocs = all("/api/v1/associations");
        List<String> allQos = withAssoc ? qosNames() : List.of();
        List<JsonNode> users = new ArrayList<>(users(assocs));
        users.sort(Comparator.comparing(u -> u.path("username").asString()));
        List<JsonNode> ordered = withAssoc ? hierarchical(assocs, accounts) : assocs;
        List<Map<String, String>> rows = new ArrayList<>();
        for (JsonNode u : users) {
            String name = u.path("username").asString();
            if (!matches(c.names, name) || !matches(c.get("defaultaccount"), text(u, "defaultAccount"))) {
                continue;
            }
            Map<String, String> base = new HashMap<>();
            base.put("USER", name);
            base.put("DACCT", text(u, "defaultAccount"));
            base.put("ADMIN", u.has("roles") ? adminLevel(u) : null);
            if (!withAssoc) {
                rows.add(base);
                continue;
            }
            for (JsonNode a : ordered) {
                if (!name.equals(text(a, "user")) || !matches(c.get("account"), a.path("account").asString())) {
                    continue;
                }
                Map<String, String> row = assocValues(a, accounts, allQos);
                row.putAll(base);
                rows.add(row);
            }
        }
        return rows;
    }

    private static Map<String, String> qosValues(JsonNode q) {
        Map<String, String> row = new HashMap<>();
        row.put("NAME", q.path("name").asString());
        row.put("DESC", text(q, "description") == null ? q.path("name").asString() : text(q, "description"));
        row.put("ID", text(q, "id"));
        row.put("PRIO", q.path("priority").asString("0"));
        row.put("GRACE", q.hasNonNull("graceSeconds") ? q.get("graceSeconds").asString() : "0");
        List<String> preempt = new ArrayList<>();
        q.path("preempt").forEach(p -> preempt.add(p.asString()));
        row.put("PREE", preempt.isEmpty() ? null : String.join(",", new TreeSet<>(preempt)));
        row.put("PREEM", q.hasNonNull("preemptMode") ? q.get("preemptMode").asString().toLowerCase(Locale.ROOT)
                : "cluster");
        row.put("UF", q.hasNonNull("usageFactor") ? q.get("usageFactor").asString() : "1");
        String grp = text(q, "grpTres");
        row.put("GRPT", grp == null || grp.isEmpty() ? null : grp);
        String perJob = text(q, "maxTresPerJob");
        row.put("MAXT", perJob == null || perJob.isEmpty() ? null : perJob);
        row.put("MAXC", tresCount(perJob, "cpu"));
        String perUser = text(q, "maxTresPerUser");
        row.put("MAXTU", perUser == null || perUser.isEmpty() ? null : perUser);
        row.put("MAXCU", tresCount(perUser, "cpu"));
        row.put("MAXW", q.hasNonNull("maxWallSeconds") ? Long.toString(q.get("maxWallSeconds").asLong() / 60) : null);
        row.put("MAXJ", text(q, "maxJobsPerUser"));
        row.put("MAXS", text(q, "maxSubmitJobsPerUser"));
        return row;
    }

    private List<Map<String, String>> qosRows(Conditions c) {
        List<Map<String, String>> rows = new ArrayList<>();
        for (JsonNode q : all("/api/v1/qos")) {
            if (matches(c.names, q.path("name").asString())) {
                rows.add(qosValues(q));
            }
        }
        // slurmdbd answers a query by name in name order, and all of them in the order they were made.
        if (!c.names.isEmpty()) {
            rows.sort(Comparator.comparing(r -> r.get("NAME")));
        }
        return rows;
    }

    // --- add, modify, delete ---------------------------------------------------------------------

    /**
     * Slurm's commit_check: with {@code -i} yes; else the question, then the first character of standard
     * input decides (y commits). At the end of the input Slurm would ask again and again; Gantry answers as
     * Slurm does when its 30 seconds run out.
     */
    private boolean commit() {
        if (immediate) {
            return true;
        }
        env.out().println("Would you like to commit changes? (You have 30 seconds to decide)");
        while (true) {
            env.out().print("(N/y): ");
            env.out().flush();
            int c;
            try {
                c = env.in().read();
            } catch (IOException e) {
                c = -1;
            }
            if (c < 0) {
                env.out().println("timeout");
                env.out().println(" Changes Discarded");
                return false;
            }
            env.out().println();
            if (c == 'y' || c == 'Y') {
                return true;
            }
            if (c == 'n' || c == 'N' || c == '\n') {
                env.out().println(" Changes Discarded");
                return false;
            }
            env.out().println("Y or N please");
        }
    }

    /** What an API refusal prints: Slurm's permission message for 403, else the problem's detail. */
    private int refused(ControllerApi.ApiException e, String adding) {
        if (e.status() == 403) {
            if (adding != null) {
                env.err().println(" Problem adding " + adding + ": Access/permission denied");
            } else {
                env.err().println("sacctmgr: error: Your user doesn't have privilege to perform this action");
                env.err().println(" Error with request: Access/permission denied");
            }
        } else {
            env.err().println(" Error with request: " + e.getMessage());
        }
        return 1;
    }

    /** The names and settings of an add or modify: bare words and names= are names, the rest key=value. */
    private record Change(List<String> names, List<Word> where, List<Word> set) {
    }

    private static Change change(List<String> args, boolean modify) {
        List<String> names = new ArrayList<>();
        List<Word> where = new ArrayList<>();
        List<Word> set = new ArrayList<>();
        boolean inSet = !modify;
        for (String arg : args) {
            Word w = Word.of(arg);
            if (w.key() == null && SacctmgrFields.abbreviates(arg, "set", 3)) {
                inSet = true;
                continue;
            }
            if (w.key() == null && SacctmgrFields.abbreviates(arg, "where", 5)) {
                inSet = false;
                continue;
            }
            if (w.key() == null) {
                names.addAll(commaList(arg.toLowerCase(Locale.ROOT)));
            } else if (!inSet && (w.is("Names", 1))) {
                names.addAll(commaList(w.value().toLowerCase(Locale.ROOT)));
            } else if (inSet) {
                set.add(w);
            } else {
                where.add(w);
            }
        }
        return new Change(names, where, set);
    }

    private int add(List<String> args) {
        Entity entity = changedEntity(args, "add", "Input line must include, \"Account\", \"Cluster\", "
                + "\"Coordinator\", \"Federation\", \"QOS\", \"Resource\", \"User\", or \"WCKey\"");
        if (entity == null) {
            return 1;
        }
        Change c = change(args.subList(1, args.size()), false);
        return switch (entity) {
            case ACCOUNT -> addAccount(c);
            case USER -> addUser(c);
            case QOS -> addQos(c);
            case ASSOCIATION -> 1;
        };
    }

    /** Association limits named like sacctmgr's, as the association API's fields; null when not one. */
    private static Map.Entry<String, Object> assocLimit(Word w) {
        if (w.is("MaxJobs", 4)) {
            return Map.entry("maxJobs", number(w));
        }
        if (w.is("MaxSubmitJobs", 4)) {
            return Map.entry("maxSubmitJobs", number(w));
        }
        if (w.is("GrpTRES", 7)) {
            return Map.entry("grpTres", w.value().equals("-1") ? "" : w.value());
        }
        if (w.is("QosLevel", 1) || w.is("QOS", 1)) {
            return Map.entry("qos", commaList(w.value()));
        }
        if (w.is("DefaultQOS", 8)) {
            return Map.entry("defaultQos", w.value());
        }
        return null;
    }

    private static int number(Word w) {
        String v = w.value().strip();
        if (v.equals("-1") || v.equalsIgnoreCase("none") || v.isEmpty()) {
            return -1;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value '" + w.value() + "' for " + w.key());
        }
    }

    private int unknownOption(Word w) {
        env.err().println(" Unknown option: " + w.text());
        env.err().println(" Use keyword 'where' to modify condition");
        return 1;
    }

    private int unknownCondition(Word w) {
        env.err().println(" Unknown condition: " + w.text());
        env.err().println(" Use keyword 'set' to modify value");
        return 1;
    }

    /**
     * The entity an add, modify or delete command line names first; null, after saying so with the entities
     * {@code command} takes ({@code mustInclude}), when it names none or an association.
     */
    private Entity changedEntity(List<String> args, String command, String mustInclude) {
        Entity entity = args.isEmpty() ? null : entity(args.get(0), false);
        if (entity == null || entity == Entity.ASSOCIATION) {
            env.err().println("No valid entity in " + command + " command");
            env.err().println(mustInclude);
            return null;
        }
        return entity;
    }

    /** The QOS settings of {@code words}; null, after saying which, when one is not a QOS setting. */
    private Map<String, Object> qosSettings(List<Word> words) {
        Map<String, Object> settings = new LinkedHashMap<>();
        for (Word w : words) {
            Map.Entry<String, Object> s = qosSetting(w);
            if (s == null) {
                unknownOption(w);
                return null;
            }
            settings.put(s.getKey(), s.getValue());
        }
        return settings;
    }

    private int addAccount(Change c) {
        if (c.names().isEmpty()) {
            env.err().println(" Need name of account to add.");
            return 1;
        }
        String parent = null;
        String description = null;
        String organization = null;
        Integer shares = null;
        Map<String, Object> limits = new LinkedHashMap<>();
        for (Word w : c.set()) {
            if (w.is("Parent", 1)) {
                parent = w.value().toLowerCase(Locale.ROOT);
            } else if (w.is("Description", 1)) {
                description = w.value().toLowerCase(Locale.ROOT);
            } else if (w.is("Organization", 1)) {
                organization = w.value().toLowerCase(Locale.ROOT);
            } else if (w.is("Fairshare", 1) || w.is("Shares", 1)) {
                shares = number(w);
            } else if (w.is("Cluster", 1)) {
                continue;
            } else if (assocLimit(w) != null) {
                limits.put(assocLimit(w).getKey(), assocLimit(w).getValue());
            } else {
                return unknownOption(w);
            }
        }
        Map<String, JsonNode> accounts = accounts();
        List<String> fresh = c.names().stream().filter(n -> !accounts.containsKey(n)).toList();
        if (fresh.isEmpty()) {
            env.out().println(" Nothing new added.");
            return 1;
        }
        if (parent != null && !accounts.containsKey(parent)) {
            env.err().println(" The parent account '" + parent + "' doesn't exist.");
            return 1;
        }
        env.out().println(" Adding Account(s)");
        fresh.forEach(n -> env.out().println("  " + n));
        env.out().println(" Settings");
        env.out().println("  Description     = " + (description == null ? "Account Name" : description));
        env.out().println("  Organization    = " + (organization == null ? "Parent/Account Name" : organization));
        env.out().println(" Associations");
        for (String n : fresh) {
            env.out().println(String.format(Locale.ROOT, "  A = %-10.10s C = %-10.10s", n, cluster(env)));
        }
        boolean settings = shares != null || parent != null || !limits.isEmpty();
        if (settings) {
            env.out().println(" Settings");
            printAssocLimits(shares, limits, parent);
        }
        if (!commit()) {
            return 0;
        }
        try {
            for (String n : fresh) {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("name", n);
                body.put("parent", parent == null ? "root" : parent);
                body.put("description", description == null ? n : description);
                body.put("organization", organization == null ? organizationOf(parent, n, accounts) : organization);
                if (shares != null) {
                    body.put("shares", shares);
                }
                api().post("/api/v1/accounts", body);
                if (!limits.isEmpty()) {
                    patchAccountAssociation(n, limits);
                }
            }
        } catch (ControllerApi.ApiException e) {
            return refused(e, "accounts");
        }
        return 0;
    }

    /** Slurm's default organization: the parent's, or the account's own name under root. */
    private static String organizationOf(String parent, String name, Map<String, JsonNode> accounts) {
        if (parent == null || parent.equals("root")) {
            return name;
        }
        JsonNode p = accounts.get(parent);
        String org = p == null ? null : text(p, "organization");
        return org == null ? parent : org;
    }

    private void patchAccountAssociation(String account, Map<String, Object> limits) {
        for (JsonNode a : all("/api/v1/associations?account=" + HttpControllerApi.encode(account))) {
            if (!a.hasNonNull("user")) {
                api().patch("/api/v1/associations/" + a.path("id").asString(), limits);
            }
        }
    }

    private void printAssocLimits(Integer shares, Map<String, Object> limits, String parent) {
        if (shares != null) {
            env.out().println("  Fairshare     = " + (shares < 0 ? "NONE" : shares));
        }
        if (limits.containsKey("grpTres")) {
            env.out().println("  GrpTRES       = " + limits.get("grpTres"));
        }
        if (limits.containsKey("maxJobs")) {
            int v = (Integer) limits.get("maxJobs");
            env.out().println("  MaxJobs       = " + (v < 0 ? "NONE" : v));
        }
        if (limits.containsKey("maxSubmitJobs")) {
            int v = (Integer) limits.get("maxSubmitJobs");
            env.out().println("  MaxSubmitJobs = " + (v < 0 ? "NONE" : v));
        }
        if (parent != null) {
            env.out().println("  Parent        = " + parent);
        }
        if (limits.containsKey("qos")) {
            @SuppressWarnings("unchecked")
            List<String> qos = (List<String>) limits.get("qos");
            env.out().println("  QOS           = " + String.join(",", new TreeSet<>(qos)));
        }
        if (limits.containsKey("defaultQos")) {
            env.out().println("  DefQOS        = " + limits.get("defaultQos"));
        }
    }

    private int addUser(Change c) {
        if (c.names().isEmpty()) {
            env.err().println(" Need name of user to add.");
            return 1;
        }
        List<String> accountNames = new ArrayList<>();
        String defaultAccount = null;
        Integer shares = null;
        Map<String, Object> limits = new LinkedHashMap<>();
        for (Word w : c.set()) {
            if (w.is("Accounts", 1) || w.is("Acct", 4)) {
                accountNames.addAll(commaList(w.value()));
            } else if (w.is("DefaultAccount", 8)) {
                defaultAccount = w.value();
            } else if (w.is("Fairshare", 1) || w.is("Shares", 1)) {
                shares = number(w);
            } else if (w.is("Cluster", 1) || w.is("Partition", 3)) {
                continue;
            } else if (assocLimit(w) != null) {
                limits.put(assocLimit(w).getKey(), assocLimit(w).getValue());
            } else {
                return unknownOption(w);
            }
        }
        if (defaultAccount != null && !accountNames.contains(defaultAccount)) {
            accountNames.add(0, defaultAccount);
        }
        Map<String, JsonNode> accounts = accounts();
        for (String a : accountNames) {
            if (!accounts.containsKey(a)) {
                env.err().println(" This account '" + a + "' doesn't exist.");
                env.err().println("        Contact your admin to add this account.");
                env.out().println(" Nothing new added.");
                return 1;
            }
        }
        if (accountNames.isEmpty()) {
            env.err().println(" Need a default account for these users to add.");
            return 1;
        }
        List<JsonNode> assocs = all("/api/v1/associations");
        List<String[]> fresh = new ArrayList<>();
        for (String user : c.names()) {
            for (String account : accountNames) {
                boolean exists = assocs.stream().anyMatch(a -> user.equals(text(a, "user"))
                        && account.equals(a.path("account").asString()));
                if (!exists) {
                    fresh.add(new String[] { user, account });
                }
            }
        }
        if (fresh.isEmpty()) {
            env.out().println(" Nothing new added.");
            return 1;
        }
        env.out().println(" Associations =");
        for (String[] ua : fresh) {
            env.out().println(String.format(Locale.ROOT, "  U = %-9.9s A = %-10.10s C = %-10.10s", ua[0], ua[1],
                    cluster(env)));
        }
        env.out().println(" Non Default Settings");
        printAssocLimits(shares, limits, null);
        if (!commit()) {
            return 0;
        }
        try {
            for (String[] ua : fresh) {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("account", ua[1]);
                body.put("user", ua[0]);
                if (shares != null) {
                    body.put("shares", shares);
                }
                body.putAll(limits);
                api().post("/api/v1/associations", body);
            }
            if (defaultAccount != null) {
                for (String user : c.names()) {
                    api().patch("/api/v1/users/" + HttpControllerApi.encode(user),
                            Map.of("defaultAccount", defaultAccount));
                }
            }
        } catch (ControllerApi.ApiException e) {
            if (e.status() == 404 || e.getMessage().toLowerCase(Locale.ROOT).contains("user")
                    && e.status() == 400) {
                env.err().println(" Problem adding users: " + e.getMessage()
                        + " (Gantry's users sign in: create them first with POST /api/v1/users)");
                return 1;
            }
            return refused(e, "user associations");
        }
        return 0;
    }

    /** A QOS setting named like sacctmgr's, as the QOS API's field and value; null when not one. */
    private static Map.Entry<String, Object> qosSetting(Word w) {
        String v = w.value();
        boolean clear = v.equals("-1") || v.equalsIgnoreCase("none") || v.equalsIgnoreCase("unlimited")
                || v.equalsIgnoreCase("infinite");
        if (w.is("Description", 1)) {
            return Map.entry("description", v);
        }
        if (w.is("Priority", 3)) {
            return Map.entry("priority", clear ? 0 : number(w));
        }
        if (w.is("MaxWallDurationPerJob", 4)) {
            return Map.entry("maxWallSeconds", clear ? -1L : TimeLimit.seconds(v));
        }
        if (w.is("MaxJobsPerUser", 11) || w.is("MaxJobsPU", 9)) {
            return Map.entry("maxJobsPerUser", number(w));
        }
        if (w.is("MaxSubmitJobsPerUser", 10) || w.is("MaxSubmitJobsPU", 10) || w.is("MaxSubmitPU", 6)) {
            return Map.entry("maxSubmitJobsPerUser", number(w));
        }
        if (w.is("MaxTRESPerUser", 11) || w.is("MaxTRESPU", 9)) {
            return Map.entry("maxTresPerUser", clear ? "" : v);
        }
        if (w.is("MaxTRESPerJob", 11) || w.is("MaxTRES", 7)) {
            return Map.entry("maxTresPerJob", clear ? "" : v);
        }
        if (w.is("GrpTRES", 7)) {
            return Map.entry("grpTres", clear ? "" : v);
        }
        if (w.is("PreemptMode", 8)) {
            return Map.entry("preemptMode", v.toUpperCase(Locale.ROOT));
        }
        if (w.is("Preempt", 7)) {
            return Map.entry("preempt", clear || v.isEmpty() ? List.of() : commaList(v));
        }
        if (w.is("UsageFactor", 6)) {
            try {
                return Map.entry("usageFactor", Double.parseDouble(v));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Invalid value '" + v + "' for UsageFactor");
            }
        }
        if (w.is("GraceTime", 3)) {
            // Slurm's GraceTime is a number of seconds (sacctmgr reads it as an integer), not a time limit in
            // minutes; a time as `show qos` prints it (00:02:00) is taken too.
            return Map.entry("graceSeconds", clear ? -1L : v.matches("\\d+") ? Long.parseLong(v) : TimeLimit.seconds(v));
        }
        return null;
    }

    /** The settings block of a QOS add, as sacctmgr_print_qos_limits orders it. */
    private void printQosSettings(Map<String, Object> settings, String name) {
        env.out().println(" Settings");
        env.out().println("  Description    = " + settings.getOrDefault("description", name));
        printSetting(settings, "graceSeconds", "  GraceTime                = ");
        printSetting(settings, "grpTres", "  GrpTRES                  = ");
        printSetting(settings, "maxJobsPerUser", "  MaxJobsPerUser = ");
        printSetting(settings, "maxSubmitJobsPerUser", "  MaxSubmitJobsPerUser     = ");
        printSetting(settings, "maxTresPerJob", "  MaxTRESPerJob            = ");
        printSetting(settings, "maxTresPerUser", "  MaxTRESPerUser           = ");
        if (settings.containsKey("maxWallSeconds")) {
            long s = (Long) settings.get("maxWallSeconds");
            env.out().println("  MaxWall                  = " + (s < 0 ? "NONE" : PrintFields.duration(s)));
        }
        if (settings.containsKey("preempt")) {
            @SuppressWarnings("unchecked")
            List<String> p = (List<String>) settings.get("preempt");
            env.out().println("  Preempt                  = " + String.join(",", p));
        }
        printSetting(settings, "preemptMode", "  PreemptMode              = ");
        printSetting(settings, "priority", "  Priority                 = ");
        if (settings.containsKey("usageFactor")) {
            env.out().println("  UsageFactor              = " + String.format(Locale.ROOT, "%f", settings.get("usageFactor")));
        }
    }

    /** {@code line} and the setting {@code key}'s value, when {@code settings} has one. */
    private void printSetting(Map<String, Object> settings, String key, String line) {
        if (settings.containsKey(key)) {
            env.out().println(line + settings.get(key));
        }
    }

    private int addQos(Change c) {
        if (c.names().isEmpty()) {
            env.err().println(" Need name of qos to add.");
            return 1;
        }
        Map<String, Object> settings = qosSettings(c.set());
        if (settings == null) {
            return 1;
        }
        List<String> existing = qosNames();
        List<String> fresh = c.names().stream().filter(n -> !existing.contains(n)).toList();
        if (fresh.isEmpty()) {
            env.out().println(" Nothing new added.");
            return 1;
        }
        env.out().println(" Adding QOS(s)");
        fresh.forEach(n -> env.out().println("  " + n));
        printQosSettings(settings, fresh.get(0));
        if (!commit()) {
            return 0;
        }
        try {
            for (String n : fresh) {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("name", n);
                body.putAll(settings);
                api().post("/api/v1/qos", body);
            }
        } catch (ControllerApi.ApiException e) {
            return refused(e, "QOS");
        }
        return 0;
    }

    private int modify(List<String> args) {
        Entity entity = changedEntity(args, "modify", "Input line must include \"Account\", \"Cluster\", "
                + "\"Federation\", \"Job\", \"QOS\", \"Resource\", \"User\", or \"WCKey\"");
        if (entity == null) {
            return 1;
        }
        Change c = change(args.subList(1, args.size()), true);
        if (c.set().isEmpty()) {
            env.err().println(" You didn't give me anything to set");
            return 1;
        }
        try {
            return switch (entity) {
                case ACCOUNT -> modifyAccount(c);
                case USER -> modifyUser(c);
                case QOS -> modifyQos(c);
                case ASSOCIATION -> 1;
            };
        } catch (ControllerApi.ApiException e) {
            return refused(e, null);
        }
    }

    private int modifyAccount(Change c) {
        Map<String, Object> account = new LinkedHashMap<>();
        Map<String, Object> limits = new LinkedHashMap<>();
        for (Word w : c.set()) {
            if (w.is("Description", 1)) {
                account.put("description", w.value().toLowerCase(Locale.ROOT));
            } else if (w.is("Organization", 1)) {
                account.put("organization", w.value().toLowerCase(Locale.ROOT));
            } else if (w.is("Parent", 1)) {
                account.put("parent", w.value().toLowerCase(Locale.ROOT));
            } else if (w.is("Fairshare", 1) || w.is("Shares", 1)) {
                account.put("shares", number(w));
            } else if (assocLimit(w) != null) {
                limits.put(assocLimit(w).getKey(), assocLimit(w).getValue());
            } else {
                return unknownOption(w);
            }
        }
        List<String> names = new ArrayList<>(c.names());
        for (Word w : c.where()) {
            if (w.is("Accounts", 1) || w.is("Acct", 4)) {
                names.addAll(commaList(w.value()));
            } else if (!w.is("Cluster", 1)) {
                return unknownCondition(w);
            }
        }
        Map<String, JsonNode> accounts = accounts();
        List<String> found = names.stream().filter(accounts::containsKey).toList();
        if (found.isEmpty()) {
            env.out().println(" Nothing modified");
            return 1;
        }
        boolean assocChange = account.containsKey("shares") || account.containsKey("parent") || !limits.isEmpty();
        boolean accountChange = account.containsKey("description") || account.containsKey("organization");
        if (accountChange) {
            env.out().println(" Modified accounts...");
            found.forEach(n -> env.out().println("  " + n));
        }
        if (assocChange) {
            env.out().println(" Modified account associations...");
            for (String n : found) {
                String parent = account.containsKey("parent") ? (String) account.get("parent")
                        : text(accounts.get(n), "parent");
                env.out().println(parent == null ? String.format(Locale.ROOT, "  C = %-10s A = %s", cluster(env), n)
                        : String.format(Locale.ROOT, "  C = %-10s A = %s of %s", cluster(env), n, parent));
            }
        }
        if (!commit()) {
            return 0;
        }
        for (String n : found) {
            if (!account.isEmpty()) {
                api().patch("/api/v1/accounts/" + HttpControllerApi.encode(n), account);
            }
            if (!limits.isEmpty()) {
                patchAccountAssociation(n, limits);
            }
        }
        return 0;
    }

    private int modifyUser(Change c) {
        Map<String, Object> user = new LinkedHashMap<>();
        Map<String, Object> limits = new LinkedHashMap<>();
        for (Word w : c.set()) {
            if (w.is("DefaultAccount", 8)) {
                user.put("defaultAccount", w.value());
            } else if (w.is("AdminLevel", 2)) {
                String level = w.value().toLowerCase(Locale.ROOT);
                user.put("roles", level.startsWith("a") ? List.of("ADMIN")
                        : level.startsWith("o") ? List.of("OPERATOR") : List.of("USER"));
            } else if (w.is("Fairshare", 1) || w.is("Shares", 1)) {
                limits.put("shares", number(w));
            } else if (assocLimit(w) != null) {
                limits.put(assocLimit(w).getKey(), assocLimit(w).getValue());
            } else {
                return unknownOption(w);
            }
        }
        List<String> names = new ArrayList<>(c.names());
        List<String> accountNames = new ArrayList<>();
        for (Word w : c.where()) {
            if (w.is("Users", 1)) {
                names.addAll(commaList(w.value()));
            } else if (w.is("Accounts", 1) || w.is("Acct", 4)) {
                accountNames.addAll(commaList(w.value()));
            } else if (!w.is("Cluster", 1)) {
                return unknownCondition(w);
            }
        }
        List<JsonNode> assocs = all("/api/v1/associations");
        List<String> found = new ArrayList<>();
        for (String n : names) {
            if (assocs.stream().anyMatch(a -> n.equals(text(a, "user"))) && !found.contains(n)) {
                found.add(n);
            }
        }
        List<JsonNode> targets = assocs.stream().filter(a -> found.contains(text(a, "user"))
                && (accountNames.isEmpty() || accountNames.contains(a.path("account").asString()))).toList();
        if (found.isEmpty() || !limits.isEmpty() && targets.isEmpty()) {
            env.out().println(" Nothing modified");
            return 1;
        }
        if (user.containsKey("defaultAccount")) {
            String account = (String) user.get("defaultAccount");
            for (String n : found) {
                if (assocs.stream().noneMatch(a -> n.equals(text(a, "user")) && account.equals(a.path("account")
                        .asString()))) {
                    env.err().println(" Can't modify because these users aren't associated with new default account '"
                            + account + "'...");
                    env.err().println("  U = " + n + " C = " + cluster(env));
                    return 1;
                }
            }
        }
        if (!user.isEmpty()) {
            env.out().println(" Modified users...");
            found.forEach(n -> env.out().println("  " + n));
        }
        if (!limits.isEmpty()) {
            env.out().println(" Modified user associations...");
            for (JsonNode a : targets) {
                env.out().println(String.format(Locale.ROOT, "  C = %-10s A = %-20s U = %-9s", cluster(env),
                        a.path("account").asString(), a.path("user").asString()));
            }
        }
        if (!commit()) {
            return 0;
        }
        for (String n : found) {
            if (!user.isEmpty()) {
                api().patch("/api/v1/users/" + HttpControllerApi.encode(n), user);
            }
        }
        for (JsonNode a : targets) {
            if (!limits.isEmpty()) {
                api().patch("/api/v1/associations/" + a.path("id").asString(), limits);
            }
        }
        return 0;
    }

    private int modifyQos(Change c) {
        Map<String, Object> settings = qosSettings(c.set());
        if (settings == null) {
            return 1;
        }
        List<String> names = new ArrayList<>(c.names());
        for (Word w : c.where()) {
            if (w.is("QOS", 1) || w.is("Names", 1)) {
                names.addAll(commaList(w.value()));
            } else {
                return unknownCondition(w);
            }
        }
        List<String> existing = qosNames();
        List<String> found = names.stream().filter(existing::contains).toList();
        if (found.isEmpty()) {
            env.out().println(" Nothing modified");
            return 1;
        }
        env.out().println(" Modified qos...");
        found.forEach(n -> env.out().println("  " + n));
        if (!commit()) {
            return 0;
        }
        for (String n : found) {
            api().patch("/api/v1/qos/" + HttpControllerApi.encode(n), settings);
        }
        return 0;
    }

    private int delete(List<String> args) {
        Entity entity = changedEntity(args, "delete", "Input line must include \"Account\", \"Cluster\", "
                + "\"Coordinator\", \"Federation\", \"QOS\", \"Resource\", \"User\", or \"WCKey\"");
        if (entity == null) {
            return 1;
        }
        Change c = change(args.subList(1, args.size()), true);
        List<String> names = new ArrayList<>(c.names());
        List<String> accountNames = new ArrayList<>();
        for (Word w : c.where()) {
            if (entity == Entity.USER && (w.is("Accounts", 1) || w.is("Acct", 4))) {
                accountNames.addAll(commaList(w.value()));
            } else if (w.is("Names", 1) || entity == Entity.ACCOUNT && (w.is("Accounts", 1) || w.is("Acct", 4))
                    || entity == Entity.USER && w.is("Users", 1) || entity == Entity.QOS && w.is("QOS", 1)) {
                names.addAll(commaList(w.value()));
            } else if (!w.is("Cluster", 1)) {
                return unknownCondition(w);
            }
        }
        try {
            return switch (entity) {
                case ACCOUNT -> deleteAccounts(names);
                case USER -> deleteUsers(names, accountNames);
                case QOS -> deleteQos(names);
                case ASSOCIATION -> 1;
            };
        } catch (ControllerApi.ApiException e) {
            return refused(e, null);
        }
    }

    private int deleteAccounts(List<String> names) {
        Map<String, JsonNode> accounts = accounts();
        return deleteNamed(names.stream().filter(accounts::containsKey).toList(), "accounts", "/api/v1/accounts/");
    }

    /** Lists what {@code found} names under " Deleting WHAT...", asks to commit, and deletes each at {@code path}. */
    private int deleteNamed(List<String> found, String what, String path) {
        if (found.isEmpty()) {
            env.out().println(" Nothing deleted");
            return 1;
        }
        env.out().println(" Deleting " + what + "...");
        found.forEach(n -> env.out().println("  " + n));
        if (!commit()) {
            return 0;
        }
        for (String n : found) {
            api().delete(path + HttpControllerApi.encode(n));
        }
        return 0;
    }

    private int deleteUsers(List<String> names, List<String> accountNames) {
        List<JsonNode> assocs = all("/api/v1/associations");
        if (!accountNames.isEmpty()) {
            List<JsonNode> targets = assocs.stream().filter(a -> names.contains(text(a, "user"))
                    && accountNames.contains(a.path("account").asString())).toList();
            if (targets.isEmpty()) {
                env.out().println(" Nothing deleted");
                return 1;
            }
            env.out().println(" Deleting user associations...");
            for (JsonNode a : targets) {
                env.out().println(String.format(Locale.ROOT, "  C = %-10s A = %-10s U = %-9s", cluster(env),
                        a.path("account").asString(), a.path("user").asString()));
            }
            if (!commit()) {
                return 0;
            }
            for (JsonNode a : targets) {
                api().delete("/api/v1/associations/" + a.path("id").asString());
            }
            return 0;
        }
        return deleteNamed(names.stream().filter(n -> assocs.stream().anyMatch(a -> n.equals(text(a, "user"))))
                .toList(), "users", "/api/v1/users/");
    }

    private int deleteQos(List<String> names) {
        List<String> existing = qosNames();
        return deleteNamed(names.stream().filter(existing::contains).toList(), "QOS(s)", "/api/v1/qos/");
    }
}
