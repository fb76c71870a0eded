package io.gantry.engine;

import java.util.List;
import java.util.Objects;

/**
 * A job waiting to start. {@code partitions} in the user's order of preference; {@code eligibleTime}
 * is when it may start at the earliest (its begin time, else its submit time). {@code heldBy} is a
 * reason the caller already knows the job cannot start for (Dependency, JobHeldUser, ...), else null:
 * the engine passes it through and gives such a job nothing.
 */
public record PendingJob(JobId id, String user, String account, String qos, List<String> partitions,
        Request request, long timeLimitSeconds, long submitTime, long eligibleTime, int nice,
        PendingReason heldBy) {

    public PendingJob {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(request, "request");
        partitions = List.copyOf(partitions);
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("job " + id + " names no partition");
        }
        if (timeLimitSeconds <= 0) {
            throw new IllegalArgumentException("job " + id + " needs a positive time limit");
        }
    }

    /** The earliest time it may start. */
    public long eligibleFrom() {
        return Math.max(submitTime, eligibleTime);
    }
}
