package io.gantry.engine;

import java.util.List;
import java.util.Objects;

/**
 * A job holding resources. {@code expectedEnd} is its start plus its time limit: the engine
 * plans as if it frees its allocation then (a job past it is treated as ending any moment).
 * {@code predictedEnd} is the caller's guess of when it really ends (its start plus a predicted
 * run time; 0 = none), used instead of {@code expectedEnd} only by a policy that
 * {@link Policy#predictRunning() predicts} and only while it lies ahead: see {@link #plannedEnd}.
 * {@code topoExclusive} ({@code --exclusive=topo}) also keeps every other node of the blocks its
 * nodes are in free of other jobs until then.
 */
public record RunningJob(JobId id, String user, String account, String qos, String partition,
        List<NodeAllocation> allocation, long startTime, long expectedEnd, long predictedEnd,
        boolean topoExclusive) {

    public RunningJob {
        Objects.requireNonNull(id, "id");
        allocation = List.copyOf(allocation);
        if (predictedEnd < 0) {
            throw new IllegalArgumentException("job " + id + ": predicted end must not be negative");
        }
    }

    /** A job without a run-time prediction that shares its blocks. */
    public RunningJob(JobId id, String user, String account, String qos, String partition,
            List<NodeAllocation> allocation, long startTime, long expectedEnd) {
        this(id, user, account, qos, partition, allocation, startTime, expectedEnd, 0, false);
    }

    /** A job with a run-time prediction ({@code predictedEnd}, 0 = none) that shares its blocks. */
    public RunningJob(JobId id, String user, String account, String qos, String partition,
            List<NodeAllocation> allocation, long startTime, long expectedEnd, long predictedEnd) {
        this(id, user, account, qos, partition, allocation, startTime, expectedEnd, predictedEnd, false);
    }

    /** A job without a run-time prediction; {@code topoExclusive} keeps its blocks to itself. */
    public RunningJob(JobId id, String user, String account, String qos, String partition,
            List<NodeAllocation> allocation, long startTime, long expectedEnd, boolean topoExclusive) {
        this(id, user, account, qos, partition, allocation, startTime, expectedEnd, 0, topoExclusive);
    }

    public Tres tres() {
        return Tres.of(allocation);
    }

    /**
     * When the engine plans this job to free its resources at {@code now}: its predicted end when
     * {@code predict} is on and the prediction is still ahead and before the limit; else its
     * expected end (the limit). A job that outlived its prediction is thus planned to its limit:
     * the prediction is extended, so reservations made after that can no longer count on it.
     */
    public long plannedEnd(long now, boolean predict) {
        return predict && predictedEnd > now && predictedEnd < expectedEnd ? predictedEnd : expectedEnd;
    }
}
