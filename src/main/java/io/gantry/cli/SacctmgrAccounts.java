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

import io.gantry.cli.SacctmgrWords.Change;
import io.gantry.cli.SacctmgrWords.Conditions;
import io.gantry.cli.SacctmgrWords.Word;
import tools.jackson.databind.JsonNode;

/** {@code sacctmgr list|add|modify|delete account}. */
final class SacctmgrAccounts {

    private final CliEnvironment env;
    private final SacctmgrSession session;
    private final SacctmgrAssociations associations;

    SacctmgrAccounts(SacctmgrSession session, SacctmgrAssociations associations) {
        this.session = session;
        this.env = session.env();
        this.associations = associations;
    }

    static Map<String, String> accountValues(JsonNode acc) {
        Map<String, String> row = new HashMap<>();
        row.put("ACCT", acc.path("name").asString());
        row.put("DESC", text(acc, "description"));
        row.put("ORG", text(acc, "organization"));
        return row;
    }

    List<Map<String, String>> accountRows(Conditions c, boolean withAssoc) {
        Map<String, JsonNode> accounts = session.accounts();
        List<String> names = accounts.keySet().stream().sorted().toList();
        List<Map<String, String>> rows = new ArrayList<>();
        List<JsonNode> assocs = withAssoc ? session.all("/api/v1/associations") : List.of();
        List<String> allQos = withAssoc ? session.qosNames() : List.of();
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
                Map<String, String> row = associations.assocValues(a, accounts, allQos);
                if (!matches(c.get("user"), row.get("USER")) && !c.get("user").isEmpty()
                        || !c.get("parent").isEmpty() && !matches(c.get("parent"), SacctmgrAssociations.parentOf(a, accounts))) {
                    continue;
                }
                row.putAll(accountValues(acc));
                rows.add(row);
            }
        }
        return rows;
    }

    int addAccount(Change c) {
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
            } else if (SacctmgrAssociations.assocLimit(w) != null) {
                limits.put(SacctmgrAssociations.assocLimit(w).getKey(), SacctmgrAssociations.assocLimit(w).getValue());
            } else {
                return session.unknownOption(w);
            }
        }
        Map<String, JsonNode> accounts = session.accounts();
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
            env.out().println(String.format(Locale.ROOT, "  A = %-10.10s C = %-10.10s", n, Sacctmgr.cluster(env)));
        }
        boolean settings = shares != null || parent != null || !limits.isEmpty();
        if (settings) {
            env.out().println(" Settings");
            associations.printAssocLimits(shares, limits, parent);
        }
        if (!session.commit()) {
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
                session.api().post("/api/v1/accounts", body);
                if (!limits.isEmpty()) {
                    associations.patchAccountAssociation(n, limits);
                }
            }
        } catch (ControllerApi.ApiException e) {
            return session.refused(e, "accounts");
        }
        return 0;
    }

    /** Slurm's default organization: the parent's, or the account's own name under root. */
    static String organizationOf(String parent, String name, Map<String, JsonNode> accounts) {
        if (parent == null || parent.equals("root")) {
            return name;
        }
        JsonNode p = accounts.get(parent);
        String org = p == null ? null : text(p, "organization");
        return org == null ? parent : org;
    }

    int modifyAccount(Change c) {
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
            } else if (SacctmgrAssociations.assocLimit(w) != null) {
                limits.put(SacctmgrAssociations.assocLimit(w).getKey(), SacctmgrAssociations.assocLimit(w).getValue());
            } else {
                return session.unknownOption(w);
            }
        }
        List<String> names = new ArrayList<>(c.names());
        for (Word w : c.where()) {
            if (w.is("Accounts", 1) || w.is("Acct", 4)) {
                names.addAll(commaList(w.value()));
            } else if (!w.is("Cluster", 1)) {
                return session.unknownCondition(w);
            }
        }
        Map<String, JsonNode> accounts = session.accounts();
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
                env.out().println(parent == null ? String.format(Locale.ROOT, "  C = %-10s A = %s", Sacctmgr.cluster(env), n)
                        : String.format(Locale.ROOT, "  C = %-10s A = %s of %s", Sacctmgr.cluster(env), n, parent));
            }
        }
        if (!session.commit()) {
            return 0;
        }
        for (String n : found) {
            if (!account.isEmpty()) {
                session.api().patch("/api/v1/accounts/" + HttpControllerApi.encode(n), account);
            }
            if (!limits.isEmpty()) {
                associations.patchAccountAssociation(n, limits);
            }
        }
        return 0;
    }

    int deleteAccounts(List<String> names) {
        Map<String, JsonNode> accounts = session.accounts();
        return session.deleteNamed(names.stream().filter(accounts::containsKey).toList(), "accounts", "/api/v1/accounts/");
    }
}
