package io.gantry.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.JsonNode;

/**
 * {@code sdiag}: the scheduler's counters ({@code GET /api/v1/diag}) in Slurm 22.05's layout, so an admin's
 * habit (and a monitoring script's grep for "Jobs submitted:" or "Total cycles:") works unchanged. Lines
 * whose figure Gantry does not count (RPC statistics, agent threads, cancelled and failed totals) are
 * left out rather than printed as zeros.
 */
final class Sdiag {

    private static final String STARS = "*******************************************************";
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("EEE MMM dd HH:mm:ss yyyy", Locale.ROOT);

    private final CliEnvironment env;

    Sdiag(CliEnvironment env) {
        this.env = env;
    }

    int run(List<String> args) {
        for (String arg : args) {
            if (arg.equals("-V") || arg.equals("--version")) {
                env.out().println("slurm 22.05.8");
                return 0;
            }
            if (!arg.equals("-a") && !arg.equals("--all")) {
                throw new CommandLine.UsageError(arg.startsWith("--") ? "unrecognized option '" + arg + "'"
                        : "invalid option -- '" + arg.replaceFirst("^-", "") + "'");
            }
        }
        ControllerApi api = env.api().get();
        JsonNode diag = api.get("/api/v1/diag");
        JsonNode config = api.get("/api/v1/config");
        Instant now = diag.hasNonNull("serverTime") ? Instant.parse(diag.get("serverTime").asString()) : env.clock().instant();
        Instant since = config != null && config.hasNonNull("bootTime") ? Instant.parse(config.get("bootTime").asString()) : null;
        var out = env.out();
        out.println(STARS);
        out.println("sdiag output at " + when(now));
        if (since != null) {
            out.println("Data since      " + when(since));
        }
        out.println(STARS);
        out.println();
        out.println("Jobs submitted: " + diag.path("jobsSubmitted").asLong());
        out.println("Jobs started:   " + diag.path("jobsStarted").asLong());
        out.println("Jobs completed: " + diag.path("jobsCompleted").asLong());
        out.println();
        out.println("Job states ts:  " + when(now));
        out.println("Jobs pending:   " + diag.path("pending").asLong());
        out.println("Jobs running:   " + diag.path("running").asLong());
        out.println();
        long cycles = diag.path("cycles").asLong();
        out.println("Main schedule statistics (microseconds):");
        out.println("\tLast cycle:   " + micros(diag, "lastCycleMs"));
        out.println("\tMax cycle:    " + micros(diag, "maxCycleMs"));
        out.println("\tTotal cycles: " + cycles);
        if (cycles > 0) {
            out.println("\tMean cycle:   " + micros(diag, "meanCycleMs"));
        }
        if (since != null && Duration.between(since, now).getSeconds() > 60) {
            out.println("\tCycles per minute: " + cycles * 60 / Duration.between(since, now).getSeconds());
        }
        out.println();
        out.println("Backfilling stats");
        out.println("\tTotal backfilled jobs (since last slurm start): " + diag.path("jobsBackfilled").asLong());
        out.println();
        out.println("Controller " + api.host() + (diag.path("leader").asBoolean() ? " is the leader (primary)"
                : " is a standby (backup)"));
        return 0;
    }

    private String when(Instant instant) {
        return WHEN.format(ZonedDateTime.ofInstant(instant, env.zone())) + " (" + instant.getEpochSecond() + ")";
    }

    private static long micros(JsonNode diag, String field) {
        return Math.round(diag.path(field).asDouble() * 1000);
    }
}
