package io.gantry.engine;

import java.util.List;

/**
 * A job the plan starts now: exactly which nodes, CPUs, memory and GPUs. {@code backfilled} when
 * it started ahead of a higher-priority job of its partition that could not.
 */
public record Start(JobId job, String partition, long startTime, long expectedEnd, List<NodeAllocation> allocation,
        boolean backfilled, Priority priority) {

    public Start {
        allocation = List.copyOf(allocation);
    }

    public List<String> nodeNames() {
        return allocation.stream().map(NodeAllocation::node).toList();
    }

    public Tres tres() {
        return Tres.of(allocation);
    }
}
