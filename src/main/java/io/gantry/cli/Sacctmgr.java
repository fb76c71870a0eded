package io.gantry.cli;

import static io.gantry.cli.SacctmgrWords.commaList;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.gantry.cli.CommandLine.Option;
import io.gantry.cli.PrintFields.Column;
import io.gantry.cli.SacctmgrFields.Field;
import io.gantry.cli.SacctmgrWords.Change;
import io.gantry.cli.SacctmgrWords.Conditions;
import io.gantry.cli.SacctmgrWords.Word;

/**
 * {@code sacctmgr}: {@code list|show} of accounts, users, associations and QOS over the accounting API
 * ({@code /accounts}, {@code /users}, {@code /associations}, {@code /qos}), and {@code add|modify|delete}
 * of them (ADMIN, or a coordinator where the API allows). Output, messages and exit codes are Slurm
 * 22.05's. Without {@code -i} a change is shown and then confirmed on standard input, as sacctmgr asks.
 * Names, descriptions and organizations are lower-cased, as sacctmgr stores them.
 * <p>
 * This class reads the command and dispatches it; each entity has its own class
 * ({@link SacctmgrAccounts}, {@link SacctmgrUsers}, {@link SacctmgrAssociations}, {@link SacctmgrQos})
 * over the shared {@link SacctmgrSession} and {@link SacctmgrWords}.
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
    private SacctmgrSession session;
    private boolean withAssocFlag;
    private SacctmgrAccounts accounts;
    private SacctmgrUsers users;
    private SacctmgrAssociations associations;
    private SacctmgrQos qos;

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
        session = new SacctmgrSession(env, line.has("immediate"));
        associations = new SacctmgrAssociations(session);
        accounts = new SacctmgrAccounts(session, associations);
        users = new SacctmgrUsers(session, associations);
        qos = new SacctmgrQos(session);
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
            case ACCOUNT -> accounts.accountRows(c, withAssoc);
            case USER -> users.userRows(c, withAssoc);
            case ASSOCIATION -> associations.assocRows(c);
            case QOS -> qos.qosRows(c);
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

    // --- add, modify, delete ---------------------------------------------------------------------

    private int add(List<String> args) {
        Entity entity = changedEntity(args, "add", "Input line must include, \"Account\", \"Cluster\", "
                + "\"Coordinator\", \"Federation\", \"QOS\", \"Resource\", \"User\", or \"WCKey\"");
        if (entity == null) {
            return 1;
        }
        Change c = SacctmgrWords.change(args.subList(1, args.size()), false);
        return switch (entity) {
            case ACCOUNT -> accounts.addAccount(c);
            case USER -> users.addUser(c);
            case QOS -> qos.addQos(c);
            case ASSOCIATION -> 1;
        };
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

    private int modify(List<String> args) {
        Entity entity = changedEntity(args, "modify", "Input line must include \"Account\", \"Cluster\", "
                + "\"Federation\", \"Job\", \"QOS\", \"Resource\", \"User\", or \"WCKey\"");
        if (entity == null) {
            return 1;
        }
        Change c = SacctmgrWords.change(args.subList(1, args.size()), true);
        if (c.set().isEmpty()) {
            env.err().println(" You didn't give me anything to set");
            return 1;
        }
        try {
            return switch (entity) {
                case ACCOUNT -> accounts.modifyAccount(c);
                case USER -> users.modifyUser(c);
                case QOS -> qos.modifyQos(c);
                case ASSOCIATION -> 1;
            };
        } catch (ControllerApi.ApiException e) {
            return session.refused(e, null);
        }
    }

    private int delete(List<String> args) {
        Entity entity = changedEntity(args, "delete", "Input line must include \"Account\", \"Cluster\", "
                + "\"Coordinator\", \"Federation\", \"QOS\", \"Resource\", \"User\", or \"WCKey\"");
        if (entity == null) {
            return 1;
        }
        Change c = SacctmgrWords.change(args.subList(1, args.size()), true);
        List<String> names = new ArrayList<>(c.names());
        List<String> accountNames = new ArrayList<>();
        for (Word w : c.where()) {
            if (entity == Entity.USER && (w.is("Accounts", 1) || w.is("Acct", 4))) {
                accountNames.addAll(commaList(w.value()));
            } else if (w.is("Names", 1) || entity == Entity.ACCOUNT && (w.is("Accounts", 1) || w.is("Acct", 4))
                    || entity == Entity.USER && w.is("Users", 1) || entity == Entity.QOS && w.is("QOS", 1)) {
                names.addAll(commaList(w.value()));
            } else if (!w.is("Cluster", 1)) {
                return session.unknownCondition(w);
            }
        }
        try {
            return switch (entity) {
                case ACCOUNT -> accounts.deleteAccounts(names);
                case USER -> users.deleteUsers(names, accountNames);
                case QOS -> qos.deleteQos(names);
                case ASSOCIATION -> 1;
            };
        } catch (ControllerApi.ApiException e) {
            return session.refused(e, null);
        }
    }
}
