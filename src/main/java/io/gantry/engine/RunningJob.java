package io.gantry.engine;

import java.util.List;
import java.util.Objects;

/**
 * A job holding resources. {@code expectedEnd} is its start plus its time limit: the engine
 * plans as if it frees its allocation then (a job past it is treated as ending any moment).
 */
public record RunningJob(JobId id, String user, String account, String qos, String partition,
        List<NodeAllocation> allocation, long startTime, long expectedEnd) {

    public RunningJob {
        Objects.requireNonNull(id, "id");
        allocation = List.copyOf(allocation);
    }

    public Tres tres() {
        return Tres.of(allocation);
    }
}
