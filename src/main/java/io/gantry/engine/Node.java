package io.gantry.engine;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A compute node. GPUs are indexed {@code 0..gpus-1}; {@code switchName} is its leaf switch,
 * {@code block} its NVLink-like block (null when it is in none).
 *
 * <p>Shared GPUs, as Slurm's gres.conf has them: {@code migProfiles} lists the node's MIG instances,
 * one entry (its profile, e.g. {@code 1g.10gb}) per instance, indexed {@code 0..size-1}; the GPUs
 * split into MIG instances are not among the {@code gpus} (a MIG-enabled GPU is never given whole).
 * {@code shardsPerGpu} (0 for none) is how many shards each of the whole GPUs offers: a job asking
 * for shards gets them from one GPU, and a GPU with shards in use is not given whole.
 */
public record Node(String name, int cpus, long memoryMb, int gpus, String gpuType, Set<String> features,
        NodeState state, String switchName, String block, List<String> migProfiles, int shardsPerGpu) {

    /** GPU indices are kept as a 64-bit mask internally. */
    public static final int MAX_GPUS = 64;
    /** MIG instances are kept as a 64-bit mask as well (an H100 node has at most 8 x 7 of them). */
    public static final int MAX_MIG_INSTANCES = 64;
    /** The most shards one GPU may be split into. */
    public static final int MAX_SHARDS_PER_GPU = 1024;

    public Node {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        if (cpus <= 0) {
            throw new IllegalArgumentException("node " + name + " needs at least one CPU");
        }
        if (memoryMb < 0 || gpus < 0 || gpus > MAX_GPUS) {
            throw new IllegalArgumentException("node " + name + ": memory and GPUs must be in range");
        }
        features = features == null ? Set.of() : Set.copyOf(features);
        migProfiles = migProfiles == null ? List.of() : List.copyOf(migProfiles);
        if (migProfiles.size() > MAX_MIG_INSTANCES) {
            throw new IllegalArgumentException("node " + name + " has more than " + MAX_MIG_INSTANCES
                    + " MIG instances");
        }
        if (shardsPerGpu < 0 || shardsPerGpu > MAX_SHARDS_PER_GPU || (shardsPerGpu > 0 && gpus == 0)) {
            throw new IllegalArgumentException("node " + name + ": shards per GPU must be 0.." + MAX_SHARDS_PER_GPU
                    + " and need whole GPUs to split");
        }
    }

    /** A node without shared GPUs. */
    public Node(String name, int cpus, long memoryMb, int gpus, String gpuType, Set<String> features,
            NodeState state, String switchName, String block) {
        this(name, cpus, memoryMb, gpus, gpuType, features, state, switchName, block, List.of(), 0);
    }

    /** Whether it has MIG instances or shards (the engine's shared-GPU path only looks at these nodes). */
    public boolean sharesGpus() {
        return !migProfiles.isEmpty() || shardsPerGpu > 0;
    }

    public static Node of(String name, int cpus, long memoryMb, int gpus) {
        return new Node(name, cpus, memoryMb, gpus, null, Set.of(), NodeState.UP, null, null);
    }

    public Node withState(NodeState newState) {
        return new Node(name, cpus, memoryMb, gpus, gpuType, features, newState, switchName, block, migProfiles,
                shardsPerGpu);
    }

    public Tres capacity() {
        return new Tres(cpus, memoryMb, gpus, 1);
    }
}
