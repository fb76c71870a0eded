package io.gantry.steps;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.gantry.noded.protocol.PmiProtocol;

/**
 * The leader's side of an {@code srun --mpi=pmi2} step's fences ({@link PmiProtocol}): each node's agent
 * sends what its tasks put since the last fence once all of them entered it; when every node of the
 * step has, the parts are merged and go back to every node. Nothing waits here but the parts of the
 * current fence, at most {@link PmiProtocol#MAX_KVS_BYTES} of them; no thread is held. Guarded by its
 * own monitor.
 */
final class PmiExchange {

    /** The step's key-value space outgrew {@link PmiProtocol#MAX_KVS_BYTES} in one fence. */
    static final class Overflow extends RuntimeException {
        Overflow(String message) {
            super(message);
        }
    }

    private final Set<String> nodes;
    private final Map<String, Map<String, String>> parts = new HashMap<>();
    private int round;
    private long bytes;

    PmiExchange(List<String> nodes) {
        this.nodes = Set.copyOf(nodes);
    }

    /**
     * Node {@code node}'s part of fence {@code fence}: the merged pairs of every node when it was the
     * last one, else null (also for a repeat of a part, or of a fence already done).
     *
     * @throws Overflow when the fence's parts together are over the bound
     */
    synchronized Map<String, String> contribute(String node, int fence, String data) {
        if (fence != round || !nodes.contains(node) || parts.containsKey(node)) {
            return null;
        }
        Map<String, String> part = PmiProtocol.decode(data);
        bytes += PmiProtocol.bytes(part);
        if (bytes > PmiProtocol.MAX_KVS_BYTES) {
            parts.clear();
            throw new Overflow("the tasks put over " + PmiProtocol.MAX_KVS_BYTES / (1024 * 1024) + " MB into PMI's "
                    + "key-value space in one fence, the most srun --mpi=pmi2 relays");
        }
        parts.put(node, part);
        if (parts.size() < nodes.size()) {
            return null;
        }
        Map<String, String> merged = new LinkedHashMap<>();
        nodes.stream().sorted().forEach(n -> merged.putAll(parts.get(n)));
        parts.clear();
        bytes = 0;
        round++;
        return merged;
    }

    /** The number of the fence the nodes are in now. */
    synchronized int round() {
        return round;
    }
}
