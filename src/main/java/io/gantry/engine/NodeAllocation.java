package io.gantry.engine;

import java.util.List;
import java.util.Objects;

/** What one job holds on one node: CPUs, memory and exactly which GPUs. */
public record NodeAllocation(String node, int cpus, long memoryMb, List<Integer> gpuIndices) {

    public NodeAllocation {
        Objects.requireNonNull(node, "node");
        gpuIndices = List.copyOf(gpuIndices);
        if (cpus < 0 || memoryMb < 0) {
            throw new IllegalArgumentException("allocation on " + node + " must not be negative");
        }
    }

    public int gpus() {
        return gpuIndices.size();
    }
}
