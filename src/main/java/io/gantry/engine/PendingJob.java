package io.gantry.engine;

import java.util.List;
import java.util.Objects;

/**
 * A job waiting to start. {@code partitions} in the user's order of preference; {@code eligibleTime}
 * is when it may start at the earliest (its begin time, else its submit time). {@code heldBy} is a
 * reason the caller already knows the job cannot start for (Dependency, JobHeldUser, ...), else null:
 * the engine passes it through and gives such a job nothing. {@code expectedRunSeconds} is the
 * caller's guess of the real run time (e.g. from the user's recent jobs; 0 = none): it only orders
 * jobs (the short-job factor), while reservations and backfill always trust the time limit (a
 * policy that {@link Policy#predictRunning() predicts} uses it for the job once it runs, through
 * {@link RunningJob#predictedEnd()}).
 * {@code reservation} names the advance reservation it must run in, or is null.
 */
public record PendingJob(JobId id, String user, String account, String qos, List<String> partitions,
        Request request, long timeLimitSeconds, long submitTime, long eligibleTime, int nice,
        PendingReason heldBy, long expectedRunSeconds, String reservation) {

    public PendingJob {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(request, "request");
        partitions = List.copyOf(partitions);
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("job " + id + " names no partition");
        }
        if (expectedRunSeconds < 0) {
            throw new IllegalArgumentException("job " + id + ": expected run time must not be negative");
        }
        if (timeLimitSeconds <= 0) {
            throw new IllegalArgumentException("job " + id + " needs a positive time limit");
        }
    }

    /** A job that names no advance reservation. */
    public PendingJob(JobId id, String user, String account, String qos, List<String> partitions, Request request,
            long timeLimitSeconds, long submitTime, long eligibleTime, int nice, PendingReason heldBy,
            long expectedRunSeconds) {
        this(id, user, account, qos, partitions, request, timeLimitSeconds, submitTime, eligibleTime, nice, heldBy,
                expectedRunSeconds, null);
    }

    /** A job without a run-time guess. */
    public PendingJob(JobId id, String user, String account, String qos, List<String> partitions, Request request,
            long timeLimitSeconds, long submitTime, long eligibleTime, int nice, PendingReason heldBy) {
        this(id, user, account, qos, partitions, request, timeLimitSeconds, submitTime, eligibleTime, nice, heldBy, 0,
                null);
    }

    /** The run time to order by: the guess when there is one and it is below the limit, else the limit. */
    public long runEstimate() {
        return expectedRunSeconds > 0 && expectedRunSeconds < timeLimitSeconds ? expectedRunSeconds : timeLimitSeconds;
    }

    /** The earliest time it may start. */
    public long eligibleFrom() {
        return Math.max(submitTime, eligibleTime);
    }
}
