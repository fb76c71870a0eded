package io.gantry.cli;

import static io.gantry.cli.SacctmgrWords.commaList;
import static io.gantry.cli.SacctmgrWords.matches;
import static io.gantry.cli.SacctmgrWords.number;
import static io.gantry.cli.SacctmgrWords.text;
import static io.gantry.cli.SacctmgrWords.tresCount;

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

/** {@code sacctmgr list|add|modify|delete qos}: its rows, and its settings named as sacctmgr names them. */
final class SacctmgrQos {

    private final CliEnvironment env;
    private final SacctmgrSession session;

    SacctmgrQos(SacctmgrSession session) {
        this.session = session;
        this.env = session.env();
    }

    static Map<String, String> qosValues(JsonNode q) {
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
        row.put("PRXMPT", text(q, "preemptExemptSeconds"));
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
        row.put("MAXJPA", text(q, "maxJobsPerAccount"));
        String perAccount = text(q, "maxTresPerAccount");
        row.put("MAXTA", perAccount == null || perAccount.isEmpty() ? null : perAccount);
        String min = text(q, "minTresPerJob");
        row.put("MINT", min == null || min.isEmpty() ? null : min);
        row.put("MINC", tresCount(min, "cpu"));
        row.put("MAXS", text(q, "maxSubmitJobsPerUser"));
        row.put("GRPTM", text(q, "grpTresMins"));
        row.put("GRPTRM", text(q, "grpTresRunMins"));
        row.put("MAXTM", text(q, "maxTresMinsPerJob"));
        row.put("GRPW", SacctmgrAssociations.grpWallMinutes(q));
        // Slurm's flags OverPartQOS and NoDecay (in Slurm's order), then Gantry's own: exempt from the partitions' GPU idle policies.
        List<String> flags = new ArrayList<>();
        for (Map.Entry<String, String> f : FLAGS.entrySet()) {
            if (q.path(f.getValue()).asBoolean(false)) {
                flags.add(f.getKey());
            }
        }
        row.put("FLAGS", flags.isEmpty() ? null : String.join(",", flags));
        return row;
    }

    List<Map<String, String>> qosRows(Conditions c) {
        List<Map<String, String>> rows = new ArrayList<>();
        for (JsonNode q : session.all("/api/v1/qos")) {
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

    /** The QOS flags Gantry has, as sacctmgr names them and in the order it prints them, with the API's fields. */
    private static final Map<String, String> FLAGS = new LinkedHashMap<>();

    static {
        FLAGS.put("OverPartQOS", "overPartQos");
        FLAGS.put("NoDecay", "noDecay");
        FLAGS.put("GpuIdleExempt", "gpuIdleExempt");
    }

    /**
     * {@code Flags=} as the QOS API's fields: {@code Flags=A,B} sets exactly those ({@code -1} none),
     * {@code Flags+=A} sets A and {@code Flags-=A} clears it, leaving the others. Of Slurm's flags Gantry has
     * NoDecay and OverPartQOS; GpuIdleExempt is its own; another is refused rather than ignored.
     */
    static Map<String, Object> qosFlags(Word w) {
        String v = w.value();
        boolean clear = v.equals("-1") || v.equalsIgnoreCase("none");
        String key = w.text().substring(0, w.text().indexOf('='));
        boolean add = key.endsWith("+");
        boolean remove = key.endsWith("-");
        Map<String, Object> out = new LinkedHashMap<>();
        if (!add && !remove) {
            FLAGS.values().forEach(field -> out.put(field, false));
        }
        for (String flag : clear || v.isEmpty() ? List.<String>of() : commaList(v)) {
            String field = FLAGS.entrySet().stream().filter(f -> f.getKey().equalsIgnoreCase(flag))
                    .map(Map.Entry::getValue).findFirst().orElseThrow(() -> new IllegalArgumentException(
                            "Invalid QOS flag '" + flag + "': Gantry's QOS flags are OverPartQOS, NoDecay and GpuIdleExempt "
                                    + "(Flags=-1 clears them)"));
            out.put(field, !remove);
        }
        return out;
    }

    /** A QOS setting named like sacctmgr's, as the QOS API's field and value; null when not one (or Flags). */
    static Map.Entry<String, Object> qosSetting(Word w) {
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
        if (w.is("MaxJobsPerAccount", 11) || w.is("MaxJobsPerAcct", 11) || w.is("MaxJobsPA", 9)) {
            return Map.entry("maxJobsPerAccount", number(w));
        }
        if (w.is("MaxTRESPerAccount", 11) || w.is("MaxTRESPerAcct", 11) || w.is("MaxTRESPA", 9)) {
            return Map.entry("maxTresPerAccount", clear ? "" : v);
        }
        if (w.is("MinTRESPerJob", 7) || w.is("MinTRES", 7)) {
            return Map.entry("minTresPerJob", clear ? "" : v);
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
        Map.Entry<String, Object> budget = SacctmgrAssociations.budgetSetting(w);
        if (budget != null) {
            return budget;
        }
        if (w.is("PreemptExemptTime", 8)) {
            // A time as for MaxWall (a bare number is minutes), as sacctmgr's time_str2secs reads it.
            return Map.entry("preemptExemptSeconds", clear ? -1L : TimeLimit.seconds(v));
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

    /** The QOS settings of {@code words}; null, after saying which, when one is not a QOS setting. */
    Map<String, Object> qosSettings(List<Word> words) {
        Map<String, Object> settings = new LinkedHashMap<>();
        for (Word w : words) {
            if (w.is("Flags", 2)) {
                settings.putAll(qosFlags(w));
                continue;
            }
            Map.Entry<String, Object> s = qosSetting(w);
            if (s == null) {
                session.unknownOption(w);
                return null;
            }
            settings.put(s.getKey(), s.getValue());
        }
        return settings;
    }

    /** The settings block of a QOS add, as sacctmgr_print_qos_limits orders it. */
    void printQosSettings(Map<String, Object> settings, String name) {
        env.out().println(" Settings");
        env.out().println("  Description    = " + settings.getOrDefault("description", name));
        printSetting(settings, "graceSeconds", "  GraceTime                = ");
        printSetting(settings, "grpTres", "  GrpTRES                  = ");
        printSetting(settings, "grpTresMins", "  GrpTRESMins              = ");
        printSetting(settings, "grpTresRunMins", "  GrpTRESRunMins           = ");
        printSetting(settings, "maxTresMinsPerJob", "  MaxTRESMinsPerJob        = ");
        if (settings.containsKey("grpWallSeconds")) {
            env.out().println("  GrpWall                  = " + SacctmgrAssociations.wall((Long) settings.get("grpWallSeconds")));
        }
        List<String> flags = FLAGS.entrySet().stream().filter(f -> Boolean.TRUE.equals(settings.get(f.getValue())))
                .map(Map.Entry::getKey).toList();
        if (!flags.isEmpty()) {
            env.out().println("  Flags                    = " + String.join(",", flags));
        }
        printSetting(settings, "preemptExemptSeconds", "  PreemptExemptTime        = ");
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
    void printSetting(Map<String, Object> settings, String key, String line) {
        if (settings.containsKey(key)) {
            env.out().println(line + settings.get(key));
        }
    }

    int addQos(Change c) {
        if (c.names().isEmpty()) {
            env.err().println(" Need name of qos to add.");
            return 1;
        }
        Map<String, Object> settings = qosSettings(c.set());
        if (settings == null) {
            return 1;
        }
        List<String> existing = session.qosNames();
        List<String> fresh = c.names().stream().filter(n -> !existing.contains(n)).toList();
        if (fresh.isEmpty()) {
            env.out().println(" Nothing new added.");
            return 1;
        }
        env.out().println(" Adding QOS(s)");
        fresh.forEach(n -> env.out().println("  " + n));
        printQosSettings(settings, fresh.get(0));
        if (!session.commit()) {
            return 0;
        }
        try {
            for (String n : fresh) {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("name", n);
                body.putAll(settings);
                session.api().post("/api/v1/qos", body);
            }
        } catch (ControllerApi.ApiException e) {
            return session.refused(e, "QOS");
        }
        return 0;
    }

    int modifyQos(Change c) {
        Map<String, Object> settings = qosSettings(c.set());
        if (settings == null) {
            return 1;
        }
        List<String> names = new ArrayList<>(c.names());
        for (Word w : c.where()) {
            if (w.is("QOS", 1) || w.is("Names", 1)) {
                names.addAll(commaList(w.value()));
            } else {
                return session.unknownCondition(w);
            }
        }
        List<String> existing = session.qosNames();
        List<String> found = names.stream().filter(existing::contains).toList();
        if (found.isEmpty()) {
            env.out().println(" Nothing modified");
            return 1;
        }
        env.out().println(" Modified qos...");
        found.forEach(n -> env.out().println("  " + n));
        if (!session.commit()) {
            return 0;
        }
        for (String n : found) {
            session.api().patch("/api/v1/qos/" + HttpControllerApi.encode(n), settings);
        }
        return 0;
    }

    int deleteQos(List<String> names) {
        List<String> existing = session.qosNames();
        return session.deleteNamed(names.stream().filter(existing::contains).toList(), "QOS(s)", "/api/v1/qos/");
    }
}
