package io.gantry.engine;

import java.util.List;
import java.util.Objects;

/**
 * A job holding resources. {@code expectedEnd} is its start plus its time limit: the engine
 * plans as if it frees its allocation then (a job past it is treated as ending any moment).
 * {@code topoExclusive} ({@code --exclusive=topo}) also keeps every other node of the blocks its
 * nodes are in free of other jobs until then.
 */
public record RunningJob(JobId id, String user, String account, String qos, String partition,
        List<NodeAllocation> allocation, long startTime, long expectedEnd, boolean topoExclusive) {

    public RunningJob {
        Objects.requireNonNull(id, "id");
        allocation = List.copyOf(allocation);
    }

    /** A job that shares its blocks. */
    public RunningJob(JobId id, String user, String account, String qos, String partition,
            List<NodeAllocation> allocation, long startTime, long expectedEnd) {
        this(id, user, account, qos, partition, allocation, startTime, expectedEnd, false);
    }

    public Tres tres() {
        return Tres.of(allocation);
    }
}
