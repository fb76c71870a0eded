package io.gantry.cli;

import static io.gantry.cli.SacctmgrWords.commaList;
import static io.gantry.cli.SacctmgrWords.matches;
import static io.gantry.cli.SacctmgrWords.number;
import static io.gantry.cli.SacctmgrWords.text;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import io.gantry.cli.SacctmgrWords.Change;
import io.gantry.cli.SacctmgrWords.Conditions;
import io.gantry.cli.SacctmgrWords.Word;
import tools.jackson.databind.JsonNode;

/** {@code sacctmgr list|add|modify|delete user}: users and their associations. */
final class SacctmgrUsers {

    private final CliEnvironment env;
    private final SacctmgrSession session;
    private final SacctmgrAssociations associations;

    SacctmgrUsers(SacctmgrSession session, SacctmgrAssociations associations) {
        this.session = session;
        this.env = session.env();
        this.associations = associations;
    }

    static String adminLevel(JsonNode user) {
        List<String> roles = new ArrayList<>();
        user.path("roles").forEach(r -> roles.add(r.asString()));
        return roles.contains("ADMIN") ? "Administrator" : roles.contains("OPERATOR") ? "Operator" : "None";
    }

    /**
     * Users: {@code /users} for an ADMIN. Anyone else reads the users named in the associations, without
     * their default account or admin level (the API keeps those to ADMINs), which print as unset.
     */
    List<JsonNode> users(List<JsonNode> assocs) {
        try {
            return session.all("/api/v1/users");
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

    List<Map<String, String>> userRows(Conditions c, boolean withAssoc) {
        Map<String, JsonNode> accounts = withAssoc ? session.accounts() : Map.of();
        List<JsonNode> assocs = session.all("/api/v1/associations");
        List<String> allQos = withAssoc ? session.qosNames() : List.of();
        List<JsonNode> users = new ArrayList<>(users(assocs));
        users.sort(Comparator.comparing(u -> u.path("username").asString()));
        List<JsonNode> ordered = withAssoc ? SacctmgrAssociations.hierarchical(assocs, accounts) : assocs;
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
                Map<String, String> row = associations.assocValues(a, accounts, allQos);
                row.putAll(base);
                rows.add(row);
            }
        }
        return rows;
    }

    int addUser(Change c) {
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
            } else if (SacctmgrAssociations.assocLimit(w) != null) {
                limits.put(SacctmgrAssociations.assocLimit(w).getKey(), SacctmgrAssociations.assocLimit(w).getValue());
            } else {
                return session.unknownOption(w);
            }
        }
        if (defaultAccount != null && !accountNames.contains(defaultAccount)) {
            accountNames.add(0, defaultAccount);
        }
        Map<String, JsonNode> accounts = session.accounts();
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
        List<JsonNode> assocs = session.all("/api/v1/associations");
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
                    Sacctmgr.cluster(env)));
        }
        env.out().println(" Non Default Settings");
        associations.printAssocLimits(shares, limits, null);
        if (!session.commit()) {
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
                session.api().post("/api/v1/associations", body);
            }
            if (defaultAccount != null) {
                for (String user : c.names()) {
                    session.api().patch("/api/v1/users/" + HttpControllerApi.encode(user),
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
            return session.refused(e, "user associations");
        }
        return 0;
    }

    int modifyUser(Change c) {
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
            } else if (SacctmgrAssociations.assocLimit(w) != null) {
                limits.put(SacctmgrAssociations.assocLimit(w).getKey(), SacctmgrAssociations.assocLimit(w).getValue());
            } else {
                return session.unknownOption(w);
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
                return session.unknownCondition(w);
            }
        }
        List<JsonNode> assocs = session.all("/api/v1/associations");
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
                    env.err().println("  U = " + n + " C = " + Sacctmgr.cluster(env));
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
                env.out().println(String.format(Locale.ROOT, "  C = %-10s A = %-20s U = %-9s", Sacctmgr.cluster(env),
                        a.path("account").asString(), a.path("user").asString()));
            }
        }
        if (!session.commit()) {
            return 0;
        }
        for (String n : found) {
            if (!user.isEmpty()) {
                session.api().patch("/api/v1/users/" + HttpControllerApi.encode(n), user);
            }
        }
        for (JsonNode a : targets) {
            if (!limits.isEmpty()) {
                session.api().patch("/api/v1/associations/" + a.path("id").asString(), limits);
            }
        }
        return 0;
    }

    int deleteUsers(List<String> names, List<String> accountNames) {
        List<JsonNode> assocs = session.all("/api/v1/associations");
        if (!accountNames.isEmpty()) {
            List<JsonNode> targets = assocs.stream().filter(a -> names.contains(text(a, "user"))
                    && accountNames.contains(a.path("account").asString())).toList();
            if (targets.isEmpty()) {
                env.out().println(" Nothing deleted");
                return 1;
            }
            env.out().println(" Deleting user associations...");
            for (JsonNode a : targets) {
                env.out().println(String.format(Locale.ROOT, "  C = %-10s A = %-10s U = %-9s", Sacctmgr.cluster(env),
                        a.path("account").asString(), a.path("user").asString()));
            }
            if (!session.commit()) {
                return 0;
            }
            for (JsonNode a : targets) {
                session.api().delete("/api/v1/associations/" + a.path("id").asString());
            }
            return 0;
        }
        return session.deleteNamed(names.stream().filter(n -> assocs.stream().anyMatch(a -> n.equals(text(a, "user"))))
                .toList(), "users", "/api/v1/users/");
    }
}
