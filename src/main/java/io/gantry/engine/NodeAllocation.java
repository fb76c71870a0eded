package io.gantry.engine;

import java.util.List;
import java.util.Objects;

/**
 * What one job holds on one node: CPUs, memory and exactly which GPUs. A job on shared GPUs holds
 * no whole GPU: {@code migIndices} are the MIG instances it holds (indices into the node's
 * {@link Node#migProfiles()}), {@code shards} how many shards of GPU {@code shardGpu} (-1 for none).
 */
public record NodeAllocation(String node, int cpus, long memoryMb, List<Integer> gpuIndices, List<Integer> migIndices,
        int shardGpu, int shards) {

    public NodeAllocation {
        Objects.requireNonNull(node, "node");
        gpuIndices = List.copyOf(gpuIndices);
        migIndices = migIndices == null ? List.of() : List.copyOf(migIndices);
        if (cpus < 0 || memoryMb < 0) {
            throw new IllegalArgumentException("allocation on " + node + " must not be negative");
        }
        if (shards < 0 || (shards > 0) != (shardGpu >= 0)) {
            throw new IllegalArgumentException("allocation on " + node + ": shards need the GPU they are on");
        }
    }

    /** An allocation of whole GPUs only. */
    public NodeAllocation(String node, int cpus, long memoryMb, List<Integer> gpuIndices) {
        this(node, cpus, memoryMb, gpuIndices, List.of(), -1, 0);
    }

    public int gpus() {
        return gpuIndices.size();
    }

    /** Whether it holds MIG instances or shards. */
    public boolean sharesGpus() {
        return !migIndices.isEmpty() || shards > 0;
    }
}
