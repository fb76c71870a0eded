package io.gantry.cluster;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A layout's nodes by name: an unmodifiable map that a join extends without copying every node. The
 * nodes of the last layout built in full stay in {@code base}; nodes that joined since (new, or one
 * reshaped) are in {@code joined}, which is copied on each join and folded into a new base once it
 * outgrows the square root of the base. So a join costs O(sqrt n), not O(n): copying all 18,500
 * nodes for each of 18,500 joins took a core for minutes (most of it in {@code Map.copyOf}'s
 * linear probing, which host names numbered in sequence cluster), while the agents' polls waited.
 */
final class NodeMap extends AbstractMap<String, ClusterLayout.NodeSpec> {

    private static final int SMALLEST_FOLD = 64;

    private final Map<String, ClusterLayout.NodeSpec> base;
    private final Map<String, ClusterLayout.NodeSpec> joined;
    private final int size;
    private Set<Entry<String, ClusterLayout.NodeSpec>> entries;

    private NodeMap(Map<String, ClusterLayout.NodeSpec> base, Map<String, ClusterLayout.NodeSpec> joined) {
        this.base = base;
        this.joined = joined;
        int shadowed = 0;
        for (String name : joined.keySet()) {
            if (base.containsKey(name)) {
                shadowed++;
            }
        }
        this.size = base.size() + joined.size() - shadowed;
    }

    /** An unmodifiable copy of {@code nodes}. */
    static NodeMap of(Map<String, ClusterLayout.NodeSpec> nodes) {
        if (nodes instanceof NodeMap map) {
            return map;
        }
        for (Map.Entry<String, ClusterLayout.NodeSpec> e : nodes.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new NullPointerException("a node without a name or a spec");
            }
        }
        return new NodeMap(Collections.unmodifiableMap(new HashMap<>(nodes)), Map.of());
    }

    /** These nodes with {@code node} added, or replacing the node of its name. */
    NodeMap with(ClusterLayout.NodeSpec node) {
        HashMap<String, ClusterLayout.NodeSpec> more = new HashMap<>(joined);
        more.put(node.name(), node);
        if (more.size() <= Math.max(SMALLEST_FOLD, (int) Math.sqrt(base.size()))) {
            return new NodeMap(base, Collections.unmodifiableMap(more));
        }
        HashMap<String, ClusterLayout.NodeSpec> all = new HashMap<>(base);
        all.putAll(more);
        return new NodeMap(Collections.unmodifiableMap(all), Map.of());
    }

    @Override
    public ClusterLayout.NodeSpec get(Object name) {
        ClusterLayout.NodeSpec node = joined.get(name);
        return node != null ? node : base.get(name);
    }

    @Override
    public boolean containsKey(Object name) {
        return joined.containsKey(name) || base.containsKey(name);
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Set<Entry<String, ClusterLayout.NodeSpec>> entrySet() {
        if (entries == null) {
            entries = new Entries();
        }
        return entries;
    }

    /** The joined nodes, then the base's that no joined node replaced. */
    private final class Entries extends AbstractSet<Entry<String, ClusterLayout.NodeSpec>> {

        @Override
        public int size() {
            return size;
        }

        @Override
        public Iterator<Entry<String, ClusterLayout.NodeSpec>> iterator() {
            Iterator<Entry<String, ClusterLayout.NodeSpec>> first = joined.entrySet().iterator();
            Iterator<Entry<String, ClusterLayout.NodeSpec>> second = base.entrySet().iterator();
            return new Iterator<>() {
                private Entry<String, ClusterLayout.NodeSpec> next = advance();

                private Entry<String, ClusterLayout.NodeSpec> advance() {
                    if (first.hasNext()) {
                        return first.next();
                    }
                    while (second.hasNext()) {
                        Entry<String, ClusterLayout.NodeSpec> e = second.next();
                        if (!joined.containsKey(e.getKey())) {
                            return e;
                        }
                    }
                    return null;
                }

                @Override
                public boolean hasNext() {
                    return next != null;
                }

                @Override
                public Entry<String, ClusterLayout.NodeSpec> next() {
                    if (next == null) {
                        throw new NoSuchElementException();
                    }
                    Entry<String, ClusterLayout.NodeSpec> e = next;
                    next = advance();
                    return e;
                }
            };
        }
    }
}
