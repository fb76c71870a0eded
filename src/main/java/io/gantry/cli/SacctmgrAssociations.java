package io.gantry.cli;

import static io.gantry.cli.SacctmgrWords.commaList;
import static io.gantry.cli.SacctmgrWords.matches;
import static io.gantry.cli.SacctmgrWords.number;
import static io.gantry.cli.SacctmgrWords.text;
import static io.gantry.cli.SacctmgrWords.tresCount;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import io.gantry.cli.SacctmgrWords.Conditions;
import io.gantry.cli.SacctmgrWords.Word;
import tools.jackson.databind.JsonNode;

/**
 * {@code sacctmgr}'s associations: their rows as {@code list} prints them (in sacctmgr's tree order),
 * the limits an account or user association takes, and how an add prints them.
 */
final class SacctmgrAssociations {

    private final CliEnvironment env;
    private final SacctmgrSession session;

    SacctmgrAssociations(SacctmgrSession session) {
        this.session = session;
        this.env = session.env();
    }

    /** An association's values, keyed by sacctmgr's field types. */
    Map<String, String> assocValues(JsonNode a, Map<String, JsonNode> accounts, List<String> allQos) {
        Map<String, String> row = new HashMap<>();
        String account = a.path("account").asString();
        String user = text(a, "user");
        row.put("CLUSTER", Sacctmgr.cluster(env));
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
        row.put("GRPJ", text(a, "grpJobs"));
        row.put("GRPS", text(a, "grpSubmitJobs"));
        String perJob = text(a, "maxTresPerJob");
        row.put("MAXT", perJob == null || perJob.isEmpty() ? null : perJob);
        row.put("MAXC", tresCount(perJob, "cpu"));
        row.put("MAXN", tresCount(perJob, "node"));
        String perNode = text(a, "maxTresPerNode");
        row.put("MAXTN", perNode == null || perNode.isEmpty() ? null : perNode);
        row.put("MAXW", a.hasNonNull("maxWallSeconds") ? Long.toString(a.get("maxWallSeconds").asLong() / 60) : null);
        row.put("GRPTM", text(a, "grpTresMins"));
        row.put("GRPTRM", text(a, "grpTresRunMins"));
        row.put("MAXTM", text(a, "maxTresMinsPerJob"));
        row.put("GRPW", grpWallMinutes(a));
        List<String> qos = new ArrayList<>();
        a.path("qos").forEach(q -> qos.add(q.asString()));
        row.put("QOS", String.join(",", new TreeSet<>(qos.isEmpty() ? allQos : qos)));
        row.put("DQOS", text(a, "defaultQos"));
        return row;
    }

    /** Associations in sacctmgr's order: depth first from root, each account's users before its sub-accounts. */
    static List<JsonNode> hierarchical(List<JsonNode> assocs, Map<String, JsonNode> accounts) {
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

    static void walk(String account, Map<String, List<String>> children, Map<String, List<JsonNode>> byAccount,
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

    List<Map<String, String>> assocRows(Conditions c) {
        Map<String, JsonNode> accounts = session.accounts();
        List<String> allQos = session.qosNames();
        List<JsonNode> assocs = hierarchical(session.all("/api/v1/associations"), accounts);
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

    static String parentOf(JsonNode assoc, Map<String, JsonNode> accounts) {
        if (assoc.hasNonNull("user")) {
            return assoc.path("account").asString();
        }
        JsonNode acc = accounts.get(assoc.path("account").asString());
        return acc == null ? null : text(acc, "parent");
    }

    /** Association limits named like sacctmgr's, as the association API's fields; null when not one. */
    static Map.Entry<String, Object> assocLimit(Word w) {
        if (w.is("MaxJobs", 4)) {
            return Map.entry("maxJobs", number(w));
        }
        if (w.is("MaxSubmitJobs", 4)) {
            return Map.entry("maxSubmitJobs", number(w));
        }
        if (w.is("GrpTRES", 7)) {
            return Map.entry("grpTres", w.value().equals("-1") ? "" : w.value());
        }
        if (w.is("GrpJobs", 4)) {
            return Map.entry("grpJobs", number(w));
        }
        if (w.is("GrpSubmitJobs", 4)) {
            return Map.entry("grpSubmitJobs", number(w));
        }
        if (w.is("MaxTRESPerNode", 11)) {
            return Map.entry("maxTresPerNode", clear(w) ? "" : w.value());
        }
        if (w.is("MaxTRESPerJob", 11) || w.is("MaxTRES", 7)) {
            return Map.entry("maxTresPerJob", clear(w) ? "" : w.value());
        }
        if (w.is("MaxWallDurationPerJob", 4)) {
            return Map.entry("maxWallSeconds", clear(w) ? -1L : TimeLimit.seconds(w.value()));
        }
        Map.Entry<String, Object> budget = budgetSetting(w);
        if (budget != null) {
            return budget;
        }
        if (w.is("QosLevel", 1) || w.is("QOS", 1)) {
            return Map.entry("qos", commaList(w.value()));
        }
        if (w.is("DefaultQOS", 8)) {
            return Map.entry("defaultQos", w.value());
        }
        return null;
    }

    private static boolean clear(Word w) {
        String v = w.value();
        return v.equals("-1") || v.equalsIgnoreCase("none") || v.equalsIgnoreCase("unlimited")
                || v.equalsIgnoreCase("infinite");
    }

    /** GrpWall as sacctmgr's rows hold it: whole minutes (the API has seconds); null without one. */
    static String grpWallMinutes(JsonNode limits) {
        return limits.hasNonNull("grpWallSeconds") ? Long.toString(limits.get("grpWallSeconds").asLong() / 60) : null;
    }

    /**
     * The budget settings associations and QOS share, as the API's fields: {@code GrpTRESMins},
     * {@code GrpTRESRunMins}, {@code MaxTRESMinsPerJob} (TRES-minutes; -1 clears), {@code GrpWall} (a time
     * as for MaxWall, a bare number being minutes; -1 clears) and {@code RawUsage=0}.
     */
    static Map.Entry<String, Object> budgetSetting(Word w) {
        String v = w.value();
        boolean clear = v.equals("-1") || v.equalsIgnoreCase("none");
        if (w.is("GrpWall", 4)) {
            return Map.entry("grpWallSeconds", clear(w) ? -1L : TimeLimit.seconds(v));
        }
        if (w.is("GrpTRESMins", 8)) {
            return Map.entry("grpTresMins", clear ? "" : v);
        }
        if (w.is("GrpTRESRunMins", 8)) {
            return Map.entry("grpTresRunMins", clear ? "" : v);
        }
        if (w.is("MaxTRESMinsPerJob", 8)) {
            return Map.entry("maxTresMinsPerJob", clear ? "" : v);
        }
        if (w.is("RawUsage", 4)) {
            try {
                return Map.entry("rawUsage", Double.parseDouble(v));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Invalid value '" + v + "' for RawUsage");
            }
        }
        return null;
    }

    void printAssocLimits(Integer shares, Map<String, Object> limits, String parent) {
        if (shares != null) {
            env.out().println("  Fairshare     = " + (shares < 0 ? "NONE" : shares));
        }
        if (limits.containsKey("grpTres")) {
            env.out().println("  GrpTRES       = " + limits.get("grpTres"));
        }
        if (limits.containsKey("grpJobs")) {
            int v = (Integer) limits.get("grpJobs");
            env.out().println("  GrpJobs       = " + (v < 0 ? "NONE" : v));
        }
        if (limits.containsKey("grpSubmitJobs")) {
            int v = (Integer) limits.get("grpSubmitJobs");
            env.out().println("  GrpSubmitJobs = " + (v < 0 ? "NONE" : v));
        }
        if (limits.containsKey("grpWallSeconds")) {
            env.out().println("  GrpWall       = " + wall((Long) limits.get("grpWallSeconds")));
        }
        if (limits.containsKey("grpTresMins")) {
            env.out().println("  GrpTRESMins   = " + limits.get("grpTresMins"));
        }
        if (limits.containsKey("grpTresRunMins")) {
            env.out().println("  GrpTRESRunMins= " + limits.get("grpTresRunMins"));
        }
        if (limits.containsKey("maxJobs")) {
            int v = (Integer) limits.get("maxJobs");
            env.out().println("  MaxJobs       = " + (v < 0 ? "NONE" : v));
        }
        if (limits.containsKey("maxTresPerJob")) {
            env.out().println("  MaxTRESPerJob = " + limits.get("maxTresPerJob"));
        }
        if (limits.containsKey("maxTresPerNode")) {
            env.out().println("  MaxTRESPerNode = " + limits.get("maxTresPerNode"));
        }
        if (limits.containsKey("maxWallSeconds")) {
            long v = (Long) limits.get("maxWallSeconds");
            env.out().println("  MaxWall       = " + (v < 0 ? "NONE" : PrintFields.duration(v)));
        }
        if (limits.containsKey("maxSubmitJobs")) {
            int v = (Integer) limits.get("maxSubmitJobs");
            env.out().println("  MaxSubmitJobs = " + (v < 0 ? "NONE" : v));
        }
        if (limits.containsKey("maxTresMinsPerJob")) {
            env.out().println("  MaxTRESMins   = " + limits.get("maxTresMinsPerJob"));
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

    /** A GrpWall setting as an add prints it: NONE when cleared, else as a time. */
    static String wall(long seconds) {
        return seconds < 0 ? "NONE" : PrintFields.duration(seconds);
    }

    void patchAccountAssociation(String account, Map<String, Object> limits) {
        for (JsonNode a : session.all("/api/v1/associations?account=" + HttpControllerApi.encode(account))) {
            if (!a.hasNonNull("user")) {
                session.api().patch("/api/v1/associations/" + a.path("id").asString(), limits);
            }
        }
    }
}
