package io.gantry.engine;

import java.util.List;
import java.util.Objects;

/**
 * A partition: a named set of nodes with a time limit and a priority tier. Jobs of a higher tier
 * are scheduled first (Slurm's PriorityTier). {@code maxTimeSeconds <= 0} means no limit.
 */
public record Partition(String name, List<String> nodes, long maxTimeSeconds, int priorityTier, boolean up) {

    public Partition {
        Objects.requireNonNull(name, "name");
        nodes = List.copyOf(nodes);
        if (priorityTier < 0) {
            throw new IllegalArgumentException("priority tier must not be negative");
        }
    }

    public static Partition of(String name, List<String> nodes) {
        return new Partition(name, nodes, 0, 0, true);
    }

    public boolean allows(long timeLimitSeconds) {
        return maxTimeSeconds <= 0 || timeLimitSeconds <= maxTimeSeconds;
    }
}
