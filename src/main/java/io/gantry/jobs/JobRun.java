package io.gantry.jobs;

import java.time.Instant;

import io.gantry.engine.Tres;

/**
 * A job's run as usage is counted from it: who it is charged to, what it held in all (from its
 * allocation) and when. {@code end} is null while it runs; {@code qos} is null where the question
 * does not read it (the utilization rollups), as is {@code partition} (the one it ran in, for its billing).
 */
public record JobRun(String account, String user, String qos, Tres allocated, Instant start, Instant end,
        double sharedGpus, String partition) {

    /** A run whose partition the question did not read. */
    public JobRun(String account, String user, String qos, Tres allocated, Instant start, Instant end,
            double sharedGpus) {
        this(account, user, qos, allocated, start, end, sharedGpus, null);
    }

    /** A run on whole GPUs only. */
    public JobRun(String account, String user, String qos, Tres allocated, Instant start, Instant end) {
        this(account, user, qos, allocated, start, end, 0);
    }
}
