package io.gantry.cli;

import java.util.ArrayList;
import java.util.List;

import io.gantry.cli.PrintFields.Column;
import io.gantry.cli.PrintFields.Kind;

/**
 * sacctmgr's format fields as Slurm 22.05 names them (src/sacctmgr/common.c), in its order: a word
 * names the first field it is an abbreviation of, at least as long as that field's minimum. Each field
 * has a type (the value it prints), a header and a default width.
 */
final class SacctmgrFields {

    /** A field: the value it prints ({@code type}), its column, and the words that name it. */
    record Field(String type, Column column, List<String> names, List<Integer> minimums) {
    }

    private static final List<Field> FIELDS = new ArrayList<>();

    private SacctmgrFields() {
    }

    /** Slurm's {@code xstrncasecmp(name, word, MAX(strlen(word), minimum))}: an abbreviation of at least the minimum. */
    static boolean abbreviates(String word, String name, int minimum) {
        return word.length() >= minimum && word.length() <= name.length()
                && name.regionMatches(true, 0, word, 0, word.length());
    }

    /** The field a format item names ({@code name} or {@code name%width}), or null. */
    static Field lookup(String item) {
        String word = item;
        int width = 0;
        int percent = item.indexOf('%');
        if (percent >= 0) {
            word = item.substring(0, percent);
            width = atoi(item.substring(percent + 1));
        }
        for (Field f : FIELDS) {
            for (int i = 0; i < f.names().size(); i++) {
                if (abbreviates(word, f.names().get(i), f.minimums().get(i))) {
                    return width == 0 ? f : new Field(f.type(), f.column().withWidth(width), f.names(), f.minimums());
                }
            }
        }
        return null;
    }

    /** C's atoi: the leading integer, 0 when there is none. */
    static int atoi(String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\s*([+-]?\\d+)").matcher(text);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private static void f(String type, String header, int width, Kind kind, Object... names) {
        List<String> words = new ArrayList<>();
        List<Integer> minimums = new ArrayList<>();
        for (int i = 0; i < names.length; i += 2) {
            words.add((String) names[i]);
            minimums.add((Integer) names[i + 1]);
        }
        FIELDS.add(new Field(type, new Column(header, width, kind), List.copyOf(words), List.copyOf(minimums)));
    }

    static {
        f("ACCT", "Account", 10, Kind.STR, "Account", 3, "Acct", 4);
        f("ACTIONRAW", "ActionRaw", 10, Kind.NUM, "ActionRaw", 7);
        f("ACTION", "Action", 20, Kind.STR, "Action", 4);
        f("ACTOR", "Actor", 10, Kind.STR, "Actor", 4);
        f("ADMIN", "Admin", 9, Kind.STR, "AdminLevel", 2);
        f("ALLOWED", "% Allowed", 10, Kind.NUM, "Allowed", 2);
        f("ASSOC_NAME", "Assocs", 10, Kind.STR, "Associations", 2);
        f("TRES", "TRES", 20, Kind.STR, "TRES", 2);
        f("CLASS", "Class", 9, Kind.STR, "Classification", 3);
        f("CLUSTER_NODES", "Cluster Nodes", 20, Kind.STR, "ClusterNodes", 8);
        f("CLUSTER", "Cluster", 10, Kind.STR, "Clusters", 2);
        f("COORDS", "Coord Accounts", 20, Kind.STR, "Coordinators", 2);
        f("CHOST", "ControlHost", 15, Kind.STR, "ControlHost", 8);
        f("CPORT", "ControlPort", 12, Kind.NUM, "ControlPort", 8);
        f("COUNT", "Count", 6, Kind.NUM, "Count", 3);
        f("CALLOWED", "# Allowed", 10, Kind.NUM, "CountAllowed", 6);
        f("CALLOWED", "# Used", 10, Kind.NUM, "CountUsed", 6);
        f("CPUS", "CPU Cnt", 7, Kind.STR, "CPUCount", 2);
        f("DACCT", "Def Acct", 10, Kind.STR, "DefaultAccount", 8);
        f("DQOS", "Def QOS", 9, Kind.STR, "DefaultQOS", 8);
        f("DWCKEY", "Def WCKey", 10, Kind.STR, "DefaultWCKey", 8);
        f("DESC", "Descr", 20, Kind.STR, "Description", 3);
        f("DURATION", "Duration", 13, Kind.SECONDS, "Duration", 2);
        f("EVENTRAW", "EventRaw", 8, Kind.NUM, "EventRaw", 6);
        f("EVENT", "Event", 7, Kind.STR, "Event", 2);
        f("FEATURES", "Features", 20, Kind.STR, "Features", 3);
        f("FEDERATION", "Federation", 10, Kind.STR, "Federation", 3);
        f("FEDSTATE", "FedState", 12, Kind.STR, "FedState", 4);
        f("FEDSTATERAW", "FedStateRaw", 11, Kind.NUM, "FedStateRaw", 9);
        f("FLAGS", "Flags", 20, Kind.STR, "Flags", 2);
        f("GRACE", "GraceTime", 10, Kind.SECONDS, "GraceTime", 3);
        f("GRPC", "GrpCPUs", 8, Kind.NUM, "GrpCPUs", 6);
        f("GRPCM", "GrpCPUMins", 11, Kind.NUM, "GrpCPUMins", 7);
        f("GRPCRM", "GrpCPURunMins", 13, Kind.NUM, "GrpCPURunMins", 7);
        f("GRPT", "GrpTRES", 13, Kind.STR, "GrpTRES", 7);
        f("GRPTM", "GrpTRESMins", 13, Kind.STR, "GrpTRESMins", 7);
        f("GRPTRM", "GrpTRESRunMins", 13, Kind.STR, "GrpTRESRunMins", 7);
        f("GRPJ", "GrpJobs", 7, Kind.NUM, "GrpJobs", 4);
        f("GRPJA", "GrpJobsAccrue", 13, Kind.NUM, "GrpJobsAccrue", 8);
        f("GRPMEM", "GrpMem", 7, Kind.NUM, "GrpMemory", 4);
        f("GRPN", "GrpNodes", 8, Kind.NUM, "GrpNodes", 4);
        f("GRPS", "GrpSubmit", 9, Kind.NUM, "GrpSubmitJobs", 4);
        f("GRPW", "GrpWall", 11, Kind.MINUTES, "GrpWall", 4);
        f("ID", "ID", 6, Kind.NUM, "ID", 2);
        f("INFO", "Info", 20, Kind.STR, "Info", 2);
        f("LFT", "LFT", 6, Kind.NUM, "LFT", 1);
        f("SERVERTYPE", "ServerType", 10, Kind.STR, "servertype", 10);
        f("MAXCM", "MaxCPUMins", 11, Kind.NUM, "MaxCPUMinsPerJob", 7);
        f("MAXCRM", "MaxCPURunMinsPU", 15, Kind.NUM, "MaxCPURunMinsPerUser", 7, "MaxCPURunMinsPU", 7);
        f("MAXC", "MaxCPUs", 8, Kind.NUM, "MaxCPUsPerJob", 7);
        f("MAXCU", "MaxCPUsPU", 9, Kind.NUM, "MaxCPUsPerUser", 11, "MaxCPUsPU", 9);
        f("MAXT", "MaxTRES", 13, Kind.STR, "MaxTRES", 7, "MaxTRESPerJob", 11);
        f("MAXTN", "MaxTRESPerNode", 14, Kind.STR, "MaxTRESPerNode", 11);
        f("MAXTM", "MaxTRESMins", 13, Kind.STR, "MaxTRESMinsPerJob", 8);
        f("MAXTRMA", "MaxTRESRunMinsPA", 15, Kind.STR, "MaxTRESRunMinsPerAccount", 18, "MaxTRESRunMinsPerAcct", 18, "MaxTRESRunMinsPA", 15);
        f("MAXTRM", "MaxTRESRunMinsPU", 15, Kind.STR, "MaxTRESRunMinsPerUser", 8, "MaxTRESRunMinsPU", 8);
        f("MAXTA", "MaxTRESPA", 13, Kind.STR, "MaxTRESPerAccount", 11, "MaxTRESPerAcct", 11, "MaxTRESPA", 9);
        f("MAXTU", "MaxTRESPU", 13, Kind.STR, "MaxTRESPerUser", 11, "MaxTRESPU", 9);
        f("MAXJ", "MaxJobs", 7, Kind.NUM, "MaxJobs", 4);
        f("MAXJA", "MaxJobsAccrue", 13, Kind.NUM, "MaxJobsAccrue", 4);
        f("MAXJAA", "MaxJobsAccruePA", 15, Kind.NUM, "MaxJobsAccruePerAccount", 17, "MaxJobsAccruePerAcct", 17, "MaxJobsAccruePA", 15);
        f("MAXJAU", "MaxJobsAccruePU", 15, Kind.NUM, "MaxJobsAccruePerUser", 17, "MaxJobsAccruePU", 15);
        f("MAXJPA", "MaxJobsPA", 9, Kind.NUM, "MaxJobsPerAccount", 11, "MaxJobsPerAcct", 11, "MaxJobsPA", 9);
        f("MAXJ", "MaxJobsPU", 9, Kind.NUM, "MaxJobsPerUser", 11, "MaxJobsPU", 9);
        f("MAXN", "MaxNodes", 8, Kind.NUM, "MaxNodesPerJob", 4);
        f("MAXNU", "MaxNodesPU", 10, Kind.NUM, "MaxNodesPerUser", 12, "MaxNodesPU", 10);
        f("MINPT", "MinPrioThres", 12, Kind.NUM, "MinPrioThreshold", 4);
        f("MAXS", "MaxSubmit", 9, Kind.NUM, "MaxSubmitJobs", 4);
        f("MAXSA", "MaxSubmitPA", 11, Kind.NUM, "MaxSubmitJobsPerAccount", 17, "MaxSubmitJobsPerAcct", 17, "MaxSubmitJobsPA", 15, "MaxSubmitPA", 11);
        f("MAXS", "MaxSubmitPU", 11, Kind.NUM, "MaxSubmitJobsPerUser", 10, "MaxSubmitJobsPU", 10, "MaxSubmitPU", 6);
        f("MAXW", "MaxWall", 11, Kind.MINUTES, "MaxWallDurationPerJob", 4);
        f("MINC", "MinCPUs", 8, Kind.NUM, "MinCPUsPerJob", 7);
        f("MINT", "MinTRES", 13, Kind.STR, "MinTRESPerJob", 7);
        f("NAME", "Name", 10, Kind.STR, "Name", 2);
        f("NODECNT", "NodeCount", 9, Kind.NUM, "NodeCount", 5);
        f("NODEINX", "NodeInx", 9, Kind.STR, "NodeInx", 5);
        f("NODENAME", "NodeName", -15, Kind.STR, "NodeNames", 5);
        f("ORG", "Org", 20, Kind.STR, "Organization", 1);
        f("PID", "ParentID", 8, Kind.NUM, "ParentID", 7);
        f("PNAME", "ParentName", 10, Kind.STR, "ParentName", 7);
        f("PART", "Partition", 10, Kind.STR, "Partition", 4);
        f("SELECT", "PluginIDSelect", 14, Kind.NUM, "PluginIDSelect", 2);
        f("PREEM", "PreemptMode", 11, Kind.STR, "PreemptMode", 8);
        f("PREE", "Preempt", 10, Kind.STR, "Preempt", 7);
        f("PRXMPT", "PreemptExemptTime", 19, Kind.SECONDS, "PreemptExemptTime", 8);
        f("PRIO", "Priority", 10, Kind.NUM, "Priority", 3);
        f("PROBLEM", "Problem", 40, Kind.STR, "Problem", 1);
        f("QOS", "QOS", 20, Kind.STR, "QOSLevel", 3);
        f("QOS_RAW", "QOS_RAW", 10, Kind.STR, "QOSRAWLevel", 4);
        f("REASON", "Reason", 30, Kind.STR, "Reason", 1);
        f("RGT", "RGT", 6, Kind.NUM, "RGT", 1);
        f("RPC_VERSION", "RPC", 5, Kind.NUM, "RPC", 1);
        f("SERVER", "Server", 10, Kind.STR, "Server", 3);
        f("FAIRSHARE", "Share", 9, Kind.NUM, "Share", 1, "FairShare", 2);
        f("STATERAW", "StateRaw", 8, Kind.NUM, "StateRaw", 6);
        f("STATE", "State", 6, Kind.STR, "State", 1);
        f("TS", "Time", 19, Kind.STR, "TimeStamp", 2);
        f("TIMEELIGIBLE", "TimeEligible", 19, Kind.STR, "TimeEligible", 6, "Eligible", 2);
        f("TIMEEND", "TimeEnd", 19, Kind.STR, "TimeEnd", 6, "End", 2);
        f("TIMESTART", "TimeStart", 19, Kind.STR, "TimeStart", 7, "Start", 3);
        f("TIMESUBMIT", "TimeSubmit", 19, Kind.STR, "TimeSubmit", 6, "Submit", 2);
        f("TRES", "TRES", 20, Kind.STR, "TRES", 2);
        f("TYPE", "Type", 8, Kind.STR, "Type", 2);
        f("UNUSED", "UnusedWall", 10, Kind.DOUBLE, "UnusedWall", 2);
        f("UF", "UsageFactor", 11, Kind.DOUBLE, "UsageFactor", 6);
        f("UT", "UsageThres", 10, Kind.DOUBLE, "UsageThreshold", 6);
        f("LF", "LimitFactor", 11, Kind.DOUBLE, "LimitFactor", 6);
        f("ALLOCATED", "% Allocated", 11, Kind.NUM, "Allocated", 7);
        f("USER", "User", 10, Kind.STR, "User", 1);
        f("WCKEYS", "WCKeys", 20, Kind.STR, "WCKeys", 2);
        f("WHERE", "Where", 20, Kind.STR, "Where", 2);
    }
}
