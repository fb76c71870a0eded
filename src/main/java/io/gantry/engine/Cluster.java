package io.gantry.engine;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The nodes and partitions of a snapshot indexed by int: capacities in arrays, partitions as
 * node bitsets, leaf switches and blocks as small ints. Immutable apart from memo tables whose
 * contents depend only on the immutable part, so one instance may serve many cycles.
 */
final class Cluster {

    final List<Node> nodeList;
    final List<Partition> partitionList;
    final int size;
    final Node[] nodes;
    final String[] names;
    final int[] cpus;
    final long[] mem;
    final int[] gpus;
    final BitSet up = new BitSet();
    /** Leaf switch of each node; nodes without one get their own group number past the switches. */
    final int[] leaf;
    final int leafCount;
    /**
     * The switch tree above the leaves. Switch ids {@code 0..leafCount-1} are the leaf groups, the
     * inner switches follow up to {@code switchCount}. {@code parent} is -1 at a top; {@code level}
     * is 0 for a leaf and one more than the highest child for an inner switch; {@code children}
     * lists each inner switch's children (empty for leaves).
     */
    final int switchCount;
    final int[] parent;
    final int[] level;
    final int[][] children;
    final List<Switch> switchList;
    /** Block of each node, -1 when none. */
    final int[] block;
    final int blockCount;
    /** The nodes of each block, ascending; the name of each block. */
    final int[][] blockNodes;
    final String[] blockNames;
    final Map<String, Integer> nodeIndex;
    /**
     * {@link #nodeIndex} again as an open-addressed table (names and indices in two flat arrays), for
     * {@link #indexOf}: every pass looks up each running job's nodes, and a boxed hash map's entries are
     * scattered in memory.
     */
    private final String[] slotName;
    private final int[] slotIndex;
    final Part[] parts;
    final Map<String, Part> partsByName = new HashMap<>();
    final int maxTier;
    final long totalCpus;
    final long totalGpus;

    /**
     * Node equivalence classes: nodes with the same CPUs, memory and GPUs. Counting capable nodes
     * per class makes "how many nodes of this partition could ever hold this shape" O(classes).
     */
    final int[] nodeClass;
    final int classCount;
    final int[] classCpus;
    final long[] classMem;
    final int[] classGpus;

    private final Map<String, BitSet> matchMemo = new ConcurrentHashMap<>();
    private final Map<MatchKey, PartMatch> partMatchMemo = new ConcurrentHashMap<>();
    private final Map<String, Hosts> hostsMemo = new ConcurrentHashMap<>();

    /**
     * Distinct hostlists remembered; beyond it the memo starts afresh. Each is as big as the list
     * the user wrote (never as big as the cluster), and a cycle's jobs rarely name many lists.
     */
    private static final int MAX_HOSTLISTS = 4096;

    /**
     * A hostlist resolved against the nodes: the indices it names, sorted and distinct, and the
     * names no node has (in the order written).
     */
    record Hosts(int[] indices, List<String> unknown) {
        static final Hosts NONE = new Hosts(new int[0], List.of());
    }

    /**
     * The nodes of one partition with one GPU type and constraint, counted per node class (all
     * and up), and per block and class for one-block requests.
     */
    record PartMatch(MatchKey key, BitSet nodes, int[] all, int[] up, int maxCpus, int maxGpus, int[][] blockAll) {
    }

    /**
     * What a {@link PartMatch} is for: a partition, a GPU type (null: any) and a constraint, compared as
     * records (a constraint's terms in order, each term's features as a set), not through their text,
     * which sorted every term's features on each lookup.
     */
    record MatchKey(int part, String gpuType, Constraint constraint) {
    }

    record Part(int index, String name, BitSet nodes, int nodeCount, long maxTime, int tier, boolean up,
            MemoryDefault memoryDefault) {
    }

    Cluster(List<Node> nodeList, List<Partition> partitionList) {
        this(nodeList, partitionList, List.of());
    }

    Cluster(List<Node> nodeList, List<Partition> partitionList, List<Switch> switchList) {
        this.nodeList = nodeList;
        this.switchList = switchList;
        this.partitionList = partitionList;
        size = nodeList.size();
        nodes = nodeList.toArray(new Node[0]);
        names = new String[size];
        cpus = new int[size];
        mem = new long[size];
        gpus = new int[size];
        leaf = new int[size];
        block = new int[size];
        nodeIndex = new HashMap<>(size * 2);
        slotName = new String[Integer.highestOneBit(Math.max(1, size) * 2) * 2];
        slotIndex = new int[slotName.length];
        Map<String, Integer> leaves = new HashMap<>();
        Map<String, Integer> blocks = new HashMap<>();
        long cpuSum = 0;
        long gpuSum = 0;
        for (int i = 0; i < size; i++) {
            Node n = nodes[i];
            if (nodeIndex.put(n.name(), i) != null) {
                throw new IllegalArgumentException("node " + n.name() + " appears twice");
            }
            names[i] = n.name();
            int slot = slotOf(n.name());
            while (slotName[slot] != null) {
                slot = (slot + 1) & (slotName.length - 1);
            }
            slotName[slot] = n.name();
            slotIndex[slot] = i;
            cpus[i] = n.cpus();
            mem[i] = n.memoryMb();
            gpus[i] = n.gpus();
            if (n.state().acceptsJobs()) {
                up.set(i);
            }
            leaf[i] = n.switchName() == null ? -1 : leaves.computeIfAbsent(n.switchName(), k -> leaves.size());
            block[i] = n.block() == null ? -1 : blocks.computeIfAbsent(n.block(), k -> blocks.size());
            cpuSum = Math.addExact(cpuSum, n.cpus());
            gpuSum = Math.addExact(gpuSum, n.gpus());
        }
        Map<String, Integer> classes = new HashMap<>();
        nodeClass = new int[size];
        List<Integer> reps = new java.util.ArrayList<>();
        for (int i = 0; i < size; i++) {
            String key = cpus[i] + "/" + mem[i] + "/" + gpus[i];
            int ci = classes.computeIfAbsent(key, k -> classes.size());
            if (ci == reps.size()) {
                reps.add(i);
            }
            nodeClass[i] = ci;
        }
        classCount = reps.size();
        classCpus = new int[classCount];
        classMem = new long[classCount];
        classGpus = new int[classCount];
        for (int ci = 0; ci < classCount; ci++) {
            classCpus[ci] = cpus[reps.get(ci)];
            classMem[ci] = mem[reps.get(ci)];
            classGpus[ci] = gpus[reps.get(ci)];
        }
        int next = leaves.size();
        for (int i = 0; i < size; i++) {
            if (leaf[i] < 0) {
                leaf[i] = next++;
            }
        }
        leafCount = next;
        Tree tree = Tree.of(leaves, leafCount, switchList);
        switchCount = tree.parent.length;
        parent = tree.parent;
        level = tree.level;
        children = tree.children;
        blockCount = blocks.size();
        blockNames = new String[blockCount];
        blocks.forEach((name, b) -> blockNames[b] = name);
        int[] blockSize = new int[blockCount];
        for (int i = 0; i < size; i++) {
            if (block[i] >= 0) {
                blockSize[block[i]]++;
            }
        }
        blockNodes = new int[blockCount][];
        for (int b = 0; b < blockCount; b++) {
            blockNodes[b] = new int[blockSize[b]];
            blockSize[b] = 0;
        }
        for (int i = 0; i < size; i++) {
            if (block[i] >= 0) {
                blockNodes[block[i]][blockSize[block[i]]++] = i;
            }
        }
        totalCpus = cpuSum;
        totalGpus = gpuSum;
        parts = new Part[partitionList.size()];
        int tier = 0;
        for (int p = 0; p < parts.length; p++) {
            Partition partition = partitionList.get(p);
            BitSet bits = new BitSet(size);
            for (String name : partition.nodes()) {
                Integer i = nodeIndex.get(name);
                if (i == null) {
                    throw new IllegalArgumentException("partition " + partition.name() + " names unknown node " + name);
                }
                bits.set(i);
            }
            parts[p] = new Part(p, partition.name(), bits, bits.cardinality(), partition.maxTimeSeconds(),
                    partition.priorityTier(), partition.up(), partition.memoryDefault());
            if (partitionsByNameDuplicate(parts[p])) {
                throw new IllegalArgumentException("partition " + partition.name() + " appears twice");
            }
            tier = Math.max(tier, partition.priorityTier());
        }
        maxTier = tier;
    }

    private boolean partitionsByNameDuplicate(Part part) {
        return partsByName.put(part.name(), part) != null;
    }

    /** The nodes (any state) with the GPU type and features a request asks for. */
    BitSet matching(String gpuType, Constraint constraint) {
        String key = Objects.toString(gpuType, "") + '\u0000' + constraint;
        return matchMemo.computeIfAbsent(key, k -> {
            BitSet bits = new BitSet(size);
            for (int i = 0; i < size; i++) {
                Node n = nodes[i];
                if ((gpuType == null || gpuType.equals(n.gpuType())) && constraint.matches(n.features())) {
                    bits.set(i);
                }
            }
            return bits;
        });
    }

    PartMatch partMatch(Part part, String gpuType, Constraint constraint) {
        return partMatchMemo.computeIfAbsent(new MatchKey(part.index(), gpuType, constraint), k -> {
            BitSet bits = (BitSet) matching(gpuType, constraint).clone();
            bits.and(part.nodes());
            int[] all = new int[classCount];
            int[] upCount = new int[classCount];
            int[][] blockAll = new int[blockCount][classCount];
            int maxCpus = 0;
            int maxGpus = 0;
            for (int i = bits.nextSetBit(0); i >= 0; i = bits.nextSetBit(i + 1)) {
                all[nodeClass[i]]++;
                if (up.get(i)) {
                    upCount[nodeClass[i]]++;
                }
                if (block[i] >= 0) {
                    blockAll[block[i]][nodeClass[i]]++;
                }
                maxCpus = Math.max(maxCpus, cpus[i]);
                maxGpus = Math.max(maxGpus, gpus[i]);
            }
            return new PartMatch(k, bits, all, upCount, maxCpus, maxGpus, blockAll);
        });
    }

    /** The nodes a hostlist expression names; an expression that does not parse names no node. */
    Hosts hosts(String expression) {
        if (expression == null) {
            return Hosts.NONE;
        }
        Hosts known = hostsMemo.get(expression);
        if (known != null) {
            return known;
        }
        if (hostsMemo.size() >= MAX_HOSTLISTS) {
            hostsMemo.clear();
        }
        Hosts resolved = resolve(expression);
        hostsMemo.put(expression, resolved);
        return resolved;
    }

    private Hosts resolve(String expression) {
        List<String> names;
        try {
            names = Hostlist.parse(expression).hosts();
        } catch (HostlistException e) {
            return new Hosts(new int[0], List.of(expression));
        }
        int[] indices = new int[names.size()];
        int count = 0;
        List<String> unknown = new java.util.ArrayList<>();
        for (String name : names) {
            Integer i = nodeIndex.get(name);
            if (i == null) {
                unknown.add(name);
            } else {
                indices[count++] = i;
            }
        }
        int[] sorted = java.util.Arrays.stream(indices, 0, count).sorted().distinct().toArray();
        return new Hosts(sorted, List.copyOf(unknown));
    }

    boolean sameInput(List<Node> otherNodes, List<Partition> otherPartitions, List<Switch> otherSwitches) {
        return nodeList == otherNodes && partitionList == otherPartitions && switchList == otherSwitches;
    }

    /** Whether no two nodes share a leaf switch (as when no switches are configured): each is its own group. */
    boolean leafPerNode() {
        return leafCount == size;
    }

    /** Whether the tree has switches above the leaves. */
    boolean hasInnerSwitches() {
        return switchCount > leafCount;
    }

    /**
     * The switch tree as arrays. A switch that nodes name is a leaf; the others named as a parent
     * (directly or further up) are inner switches. A switch listed without nodes below is left out;
     * a parent the list does not name, or a loop of parents, ends the path (a top).
     */
    private record Tree(int[] parent, int[] level, int[][] children) {

        static Tree of(Map<String, Integer> leaves, int leafCount, List<Switch> switches) {
            Map<String, String> parentOf = new HashMap<>();
            for (Switch sw : switches) {
                if (sw.parent() != null && !sw.parent().equals(sw.name())) {
                    parentOf.put(sw.name(), sw.parent());
                }
            }
            Map<String, Integer> ids = new HashMap<>(leaves);
            List<Integer> parents = new java.util.ArrayList<>();
            for (int i = 0; i < leafCount; i++) {
                parents.add(-1);
            }
            for (Map.Entry<String, Integer> l : leaves.entrySet()) {
                // Walk up from each leaf, giving each new inner switch the next id.
                String name = l.getKey();
                int id = l.getValue();
                java.util.Set<String> seen = new java.util.HashSet<>();
                seen.add(name);
                while (parents.get(id) == -1 && parentOf.containsKey(name)) {
                    String up = parentOf.get(name);
                    if (!seen.add(up) || leaves.containsKey(up)) {
                        break;
                    }
                    Integer upId = ids.get(up);
                    boolean known = upId != null;
                    if (!known) {
                        upId = parents.size();
                        ids.put(up, upId);
                        parents.add(-1);
                    }
                    parents.set(id, upId);
                    if (known) {
                        break;
                    }
                    name = up;
                    id = upId;
                }
            }
            int count = parents.size();
            int[] parent = new int[count];
            int[] childCount = new int[count];
            for (int i = 0; i < count; i++) {
                parent[i] = parents.get(i);
                if (parent[i] >= 0) {
                    childCount[parent[i]]++;
                }
            }
            int[][] children = new int[count][];
            for (int i = 0; i < count; i++) {
                children[i] = new int[childCount[i]];
                childCount[i] = 0;
            }
            int[] level = new int[count];
            for (int i = 0; i < count; i++) {
                if (parent[i] >= 0) {
                    children[parent[i]][childCount[parent[i]]++] = i;
                }
            }
            for (int i = 0; i < leafCount; i++) {
                // Levels grow upward from every leaf: a switch sits one above its highest child.
                int below = 0;
                for (int s = parent[i]; s >= 0; s = parent[s]) {
                    below++;
                    if (level[s] >= below) {
                        break;
                    }
                    level[s] = below;
                }
            }
            return new Tree(parent, level, children);
        }
    }

    /** The index of the node of that name, or -1 when the cluster has none: {@code nodeIndex.get}, unboxed. */
    int indexOf(String name) {
        for (int slot = slotOf(name); slotName[slot] != null; slot = (slot + 1) & (slotName.length - 1)) {
            String held = slotName[slot];
            if (held == name || held.equals(name)) {
                return slotIndex[slot];
            }
        }
        return -1;
    }

    private int slotOf(String name) {
        int h = name.hashCode();
        return (h ^ (h >>> 16)) & (slotName.length - 1);
    }
}
