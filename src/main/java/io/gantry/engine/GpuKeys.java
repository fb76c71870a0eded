package io.gantry.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The GPU keys guarantees are counted in ({@link Quota#ANY} and every GPU type some account is
 * guaranteed), the cluster's capacity in each, and how many GPUs of each key a job holds or asks
 * for: a GPU counts for the untyped key and for its own type's.
 */
final class GpuKeys {

    private final String[] keys;
    private final long[] capacity;
    private final Map<String, String> nodeTypes = new HashMap<>();

    /** The keys {@code quotas} guarantee, with the capacity of {@code nodes} in each. */
    GpuKeys(List<Quota> quotas, List<Node> nodes) {
        TreeSet<String> keySet = new TreeSet<>();
        for (Quota q : quotas) {
            q.guaranteed().forEach((k, v) -> {
                if (v > 0) {
                    keySet.add(k);
                }
            });
        }
        keySet.add(Quota.ANY);
        keys = keySet.toArray(String[]::new);
        capacity = new long[keys.length];
        for (Node n : nodes) {
            nodeTypes.put(n.name(), n.gpuType());
            for (int k = 0; k < keys.length; k++) {
                if (keys[k].isEmpty() || keys[k].equals(n.gpuType())) {
                    capacity[k] += n.gpus();
                }
            }
        }
    }

    /** The keys, sorted ({@link Quota#ANY} first). */
    String[] keys() {
        return keys;
    }

    /** The cluster's GPUs per key. */
    long capacity(int k) {
        return capacity[k];
    }

    /** The index of {@code key}, or -1. */
    int indexOf(String key) {
        return java.util.Arrays.asList(keys).indexOf(key);
    }

    /** GPUs per key an allocation holds. */
    long[] need(List<NodeAllocation> allocation) {
        long[] need = new long[keys.length];
        for (NodeAllocation a : allocation) {
            String type = nodeTypes.get(a.node());
            for (int k = 0; k < keys.length; k++) {
                if (keys[k].isEmpty() || keys[k].equals(type)) {
                    need[k] += a.gpus();
                }
            }
        }
        return need;
    }

    /** GPUs per key a request asks for before it is placed: typed keys only for the type it names. */
    long[] requested(Request r) {
        long gpus = r.gpusPerNode() > 0 ? (long) r.gpusPerNode() * Math.max(1, r.nodes()) : r.gpus();
        long[] need = new long[keys.length];
        for (int k = 0; k < keys.length; k++) {
            if (keys[k].isEmpty() || keys[k].equals(r.gpuType())) {
                need[k] = gpus;
            }
        }
        return need;
    }
}
