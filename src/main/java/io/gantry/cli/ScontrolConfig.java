package io.gantry.cli;

import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * {@code scontrol show config}: the controller's settings ({@code GET /api/v1/config}) in Slurm 22.05's
 * layout ({@code Key = value}, keys padded to 23, in Slurm's order), under the Slurm names they answer
 * for. Tools read single keys from it (Snakemake's Slurm plugin reads {@code MinJobAge}), so only keys
 * with a real counterpart in Gantry are printed: a key Gantry has no equivalent for is left out rather
 * than printed with a value that would mislead (README lists them).
 */
final class ScontrolConfig {

    private final CliEnvironment env;

    ScontrolConfig(CliEnvironment env) {
        this.env = env;
    }

    int show() {
        ControllerApi api = env.api().get();
        JsonNode config = api.get("/api/v1/config");
        if (config == null) {
            env.err().println("slurm_load_ctl_conf error: the controller does not serve its configuration");
            return 1;
        }
        ZoneId zone = env.zone();
        Map<String, String> lines = new LinkedHashMap<>();
        // Gantry gathers no node energy and samples no node counters: Slurm's words for "none".
        lines.put("AcctGatherEnergyType", "acct_gather_energy/none");
        lines.put("AcctGatherNodeFreq", "0 sec");
        lines.put("BOOT_TIME", SlurmText.time(config.get("bootTime"), zone, "Unknown"));
        lines.put("ClusterName", Sacctmgr.cluster(env));
        lines.put("DisableRootJobs", config.path("allowRootJobs").asBoolean() ? "No" : "Yes");
        lines.put("HealthCheckInterval", seconds(config, "healthCheckIntervalSeconds"));
        lines.put("JobRequeue", "1");
        lines.put("KillWait", seconds(config, "killWaitSeconds"));
        lines.put("MaxArraySize", config.path("maxArraySize").asString());
        // Slurm: "A value of zero prevents any job record purging", which is what Gantry does.
        lines.put("MinJobAge", seconds(config, "minJobAgeSeconds"));
        lines.put("MpiDefault", config.path("mpiDefault").asString("none"));
        lines.put("PreemptType", config.path("preemptType").asString("preempt/qos"));
        lines.put("PrivateData", config.path("privateJobs").asBoolean() ? "jobs" : "none");
        lines.put("SchedulerParameters", "sched_interval=" + config.path("schedulerIntervalSeconds").asLong()
                + ",bf_interval=" + config.path("fullPassIntervalSeconds").asLong());
        lines.put("SchedulerType", "sched/backfill");
        lines.put("SelectType", "select/cons_tres");
        lines.put("SlurmctldHost[0]", api.host());
        lines.put("SlurmdTimeout", seconds(config, "nodeTimeoutSeconds"));
        lines.put("SLURM_VERSION", "22.05.8");
        env.out().println("Configuration data as of " + java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss")
                .format(java.time.LocalDateTime.ofInstant(env.clock().instant(), zone)));
        lines.forEach((key, value) -> env.out().println(String.format(Locale.ROOT, "%-23s = %s", key, value)));
        env.out().println();
        env.out().println("Slurmctld(primary) at " + api.host() + " is UP");
        return 0;
    }

    private static String seconds(JsonNode config, String field) {
        return config.path(field).asLong() + " sec";
    }
}
