package io.gantry.engine;

import java.util.Objects;
import java.util.Set;

/**
 * A compute node. GPUs are indexed {@code 0..gpus-1}; {@code switchName} is its leaf switch,
 * {@code block} its NVLink-like block (null when it is in none).
 */
public record Node(String name, int cpus, long memoryMb, int gpus, String gpuType, Set<String> features,
        NodeState state, String switchName, String block) {

    /** GPU indices are kept as a 64-bit mask internally. */
    public static final int MAX_GPUS = 64;

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
    }

    public static Node of(String name, int cpus, long memoryMb, int gpus) {
        return new Node(name, cpus, memoryMb, gpus, null, Set.of(), NodeState.UP, null, null);
    }

    public Node withState(NodeState newState) {
        return new Node(name, cpus, memoryMb, gpus, gpuType, features, newState, switchName, block);
    }

    public Tres capacity() {
        return new Tres(cpus, memoryMb, gpus, 1);
    }
}
