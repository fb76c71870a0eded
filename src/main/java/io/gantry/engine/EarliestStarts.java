package io.gantry.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The earliest-start searches of a {@link ResourceProfile}: when a shape can first run for a duration,
 * and on which nodes, given what the profile holds and the advance reservations keep clear. Node by
 * node over every node's start windows; or, for {@link StartEstimator}'s many searches, through a
 * {@link FreeIndex} or through nodes ordered by a lower bound on their earliest start
 * ({@link EarliestNodes}). Only the profile uses it.
 */
final class EarliestStarts {

    /**
     * About 160 MB of {@link EarliestNodes} at most (a class costs 8 bytes per node it may use and 4 per
     * node of the cluster, counted as half an entry).
     */
    private static final long MAX_ORDERED_ENTRIES = 20_000_000;

    private final Cluster c;
    private final long now;
    private final Availability a;
    /** Advance reservations, with their nodes as indices. */
    private final List<ResourceProfile.Held> held;
    private final int[] buf;
    private final BitSet pool;
    private final Availability.Intervals intervals = new Availability.Intervals();
    /** The earliest start {@link #earliest} may return: now, except for the estimator's later ones. */
    private long notBefore;
    /** The advance reservation the job must run in, whose nodes are its own; else null. */
    private ResourceProfile.Held ownHeld;
    /** Once {@link #indexFreeNodes} has run: which nodes have what free when. */
    private FreeIndex index;
    private final Map<Shape, IndexedShape> indexedShapes = new java.util.IdentityHashMap<>();
    /**
     * Once {@link #orderNodesByEarliest} has run: per node filter and {@link NodeClass}, the nodes by a
     * lower bound on their earliest start; else null.
     */
    private Map<Cluster.PartMatch, Map<NodeClass, EarliestNodes>> byEarliest;
    /** Entries held in {@link #byEarliest}: past {@link #MAX_ORDERED_ENTRIES} new classes are searched node by node. */
    private long orderedEntries;
    /** In {@link #earliestByOrder}: the nodes taken off the heap, and their entries to put back. */
    private BitSet drawn;
    /** In {@link #earliestByOrder}: no start from this time on is wanted, so node windows are read only up to it. */
    private long windowsUntil = Availability.FOREVER;
    private long[] drawnEntries = new long[64];
    /** For a topo-exclusive shape in {@link #earliest}: the start windows of each block as a whole. */
    private final Map<Integer, List<long[]>> blockWindows = new HashMap<>();

    /** {@code buf} and {@code pool} are the profile's scratch space (each use fills them before reading). */
    EarliestStarts(Cluster c, long now, Availability a, List<ResourceProfile.Held> held, int[] buf, BitSet pool) {
        this.c = c;
        this.now = now;
        this.a = a;
        this.held = held;
        this.buf = buf;
        this.pool = pool;
        this.notBefore = now;
    }

    /**
     * From now on the searches start no earlier than {@code notBefore} and, with {@code own}, only
     * on its nodes (and clear of no other advance reservation); {@link #reset} goes back.
     */
    void within(long notBefore, ResourceProfile.Held own) {
        this.notBefore = notBefore;
        this.ownHeld = own;
    }

    /** Searches from now on, on any node. */
    void reset() {
        this.notBefore = now;
        this.ownHeld = null;
    }

    /** Reads from now on only the nodes a {@link FreeIndex} says could fit (same results, less work). */
    void indexFreeNodes() {
        index = new FreeIndex(a);
    }

    /** Reads from now on nodes in order of a lower bound on their earliest start (same results). */
    void orderNodesByEarliest() {
        byEarliest = new java.util.IdentityHashMap<>();
        drawn = new BitSet(c.size);
    }

    /** Tells the index, if any, that {@code nodes} changed from {@code start} to {@code end}. */
    void changed(int[] nodes, long start, long end) {
        if (index != null) {
            for (int i : nodes) {
                index.changed(i, start, end);
            }
        }
    }

    /**
     * The first time from {@link #notBefore} on at which every one of {@code chosen} can start the
     * shape's share for {@code duration}; -1 if never.
     */
    long firstCommonStart(Shape shape, int[] chosen, long duration) {
        List<long[]> common = new ArrayList<>();
        common.add(new long[] {notBefore, Availability.FOREVER});
        try {
            for (int i : chosen) {
                intervals.clear();
                nodeWindows(i, duration, shape.needCpu(c, i), shape.needMem(c, i), shape.needGpu(c, i));
                List<long[]> windows = new ArrayList<>(intervals.size);
                for (int k = 0; k < intervals.size; k++) {
                    windows.add(new long[] {intervals.start[k], intervals.end[k]});
                }
                windows.sort(Comparator.comparingLong(w -> w[0]));
                common = intersect(common, windows);
                if (common.isEmpty()) {
                    return -1;
                }
            }
        } finally {
            intervals.clear();
        }
        return common.get(0)[0];
    }

    /**
     * Removes from node {@code i}'s start windows (those from index {@code first} on) every start
     * time at which a job of {@code duration} would overlap an advance reservation of the node.
     */
    private void clipToReservations(int i, long duration, int first) {
        List<long[]> pieces = new ArrayList<>();
        for (int k = first; k < intervals.size; k++) {
            pieces.add(new long[] {intervals.start[k], intervals.end[k]});
        }
        boolean clipped = false;
        for (ResourceProfile.Held h : held) {
            AdvanceReservation r = h.reservation();
            if (!h.nodes().get(i) || r.end() <= now || h == ownHeld) {
                continue;
            }
            clipped = true;
            long lastAllowedBefore = r.start() - duration; // a start at or before it ends in time
            List<long[]> next = new ArrayList<>();
            for (long[] w : pieces) {
                long beforeEnd = Math.min(w[1], lastAllowedBefore + 1);
                if (w[0] < beforeEnd) {
                    next.add(new long[] {w[0], beforeEnd});
                }
                long afterStart = Math.max(w[0], r.end());
                if (afterStart < w[1]) {
                    next.add(new long[] {afterStart, w[1]});
                }
            }
            pieces = next;
        }
        if (clipped) {
            intervals.size = first;
            for (long[] w : pieces) {
                intervals.add(i, w[0], w[1]);
            }
        }
    }

    /**
     * The earliest time the shape can run for {@code duration} (in {@code startOut[0]}), and on which
     * nodes; null if never.
     */
    int[] earliest(Shape s, long duration, long[] startOut) {
        intervals.clear();
        blockWindows.clear();
        pool.clear();
        pool.or(s.candidates());
        pool.and(c.up);
        for (int i : s.excluded()) {
            pool.clear(i);
        }
        if (ownHeld != null) {
            pool.and(ownHeld.nodes());
        }
        if (s.required().length > 0) {
            return earliestWithRequired(s, duration, startOut);
        }
        if (index != null && ownHeld == null) {
            return earliestIndexed(s, duration, startOut);
        }
        if (byEarliest != null && ownHeld == null && !s.topo() && s.excluded().length == 0) {
            EarliestNodes order = ordered(s, duration);
            if (order != null) {
                return earliestByOrder(s, duration, order, startOut);
            }
        }
        return earliestAmong(s, duration, pool, Availability.FOREVER, startOut);
    }

    /**
     * {@link #earliest} over {@code nodes} only, for a start before {@code before}: the chosen nodes
     * with the start in {@code startOut[0]}; null with -1 there when no start comes before
     * {@code before}, null with the start there when the nodes free then cannot be chosen.
     */
    private int[] earliestAmong(Shape s, long duration, BitSet nodes, long before, long[] startOut) {
        intervals.clear();
        for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
            if (s.capable(c, i)) {
                windows(s, i, duration);
            }
        }
        long start = s.inOneBlock() && c.blockCount > 0 ? sweepPerBlock(s.nodes()) : sweep(s.nodes(), 0, intervals.size,
                intervals.start, intervals.end);
        if (start < 0 || start >= before) {
            startOut[0] = -1;
            return null;
        }
        int count = 0;
        for (int k = 0; k < intervals.size; k++) {
            if (intervals.start[k] <= start && start < intervals.end[k]) {
                buf[count++] = intervals.node[k];
            }
        }
        startOut[0] = start;
        return Placement.choose(c, a, s, buf, count);
    }

    /**
     * What a shape needs of each node, rounded down so that shapes alike share one {@link EarliestNodes}:
     * CPUs and memory to a power of two (or, exclusive or whole-memory, all of the node's), GPUs
     * and the time limit as asked. A node that cannot start the class at a time cannot start any
     * shape of it then.
     */
    private record NodeClass(boolean exclusive, boolean wholeMemory, int cpus, long mem, int gpus, long duration) {

        static NodeClass of(Shape s, long duration) {
            return new NodeClass(s.exclusive(), s.wholeMemory(), s.exclusive() ? 0 : Integer.highestOneBit(s.cpusPerNode()),
                    s.exclusive() || s.wholeMemory() ? 0 : Long.highestOneBit(s.memPerNode()),
                    s.exclusive() ? 0 : s.gpusPerNode(), duration);
        }

        int cpusOn(Cluster c, int i) {
            return exclusive ? c.cpus[i] : cpus;
        }

        long memOn(Cluster c, int i) {
            return exclusive || wholeMemory ? c.mem[i] : mem;
        }

        int gpusOn(Cluster c, int i) {
            return exclusive ? c.gpus[i] : gpus;
        }
    }

    /** The shape's class's nodes by earliest start, built at first use; null once too many classes are held. */
    private EarliestNodes ordered(Shape s, long duration) {
        NodeClass k = NodeClass.of(s, duration);
        Map<NodeClass, EarliestNodes> classes = byEarliest.computeIfAbsent(s.match(), m -> new HashMap<>());
        EarliestNodes order = classes.get(k);
        if (order != null) {
            return order;
        }
        if (orderedEntries >= MAX_ORDERED_ENTRIES) {
            return null;
        }
        long[] packed = new long[pool.cardinality()];
        int count = 0;
        for (int i = pool.nextSetBit(0); i >= 0; i = pool.nextSetBit(i + 1)) {
            long first = firstStart(k, i, now);
            if (first >= 0) {
                packed[count++] = EarliestNodes.pack(now, first, i);
            }
        }
        order = new EarliestNodes(now, packed, count, c.size);
        for (int e = 0; e < count; e++) {
            int i = EarliestNodes.nodeOf(packed[e]);
            order.computed(i, a.changes(i));
        }
        orderedEntries += packed.length + (c.size + 1) / 2;
        classes.put(k, order);
        return order;
    }

    /**
     * For {@link StartEstimator}, when many jobs have been placed since the classes' nodes were ordered
     * (a pass that kept earlier jobs' places before going on where the last one stopped): every
     * class's bounds of nodes changed since computed again from the profile as it is now. The same
     * bounds as drawing would compute one node at a time, but node by node for all classes at once, so
     * each node's changes are read while they are in the cache, and sorted instead of sifted one by one
     * through the heaps.
     */
    void reorderNodesByEarliest() {
        if (byEarliest == null) {
            return;
        }
        List<NodeClass> classes = new ArrayList<>();
        List<EarliestNodes> orders = new ArrayList<>();
        for (Map<NodeClass, EarliestNodes> m : byEarliest.values()) {
            for (Map.Entry<NodeClass, EarliestNodes> e : m.entrySet()) {
                if (!e.getValue().isEmpty()) {
                    classes.add(e.getKey());
                    orders.add(e.getValue());
                }
            }
        }
        int count = classes.size();
        long[][] packed = new long[count][];
        int[] size = new int[count];
        // Entries of nodes unchanged since they were computed are exact and kept; the others are computed
        // again below. For each node, the classes to compute it for (node i's at first[i] .. first[i + 1]).
        int[] first = new int[c.size + 1];
        for (int k = 0; k < count; k++) {
            EarliestNodes order = orders.get(k);
            packed[k] = new long[order.size()];
            for (int e = 0; e < order.size(); e++) {
                int i = order.nodeAt(e);
                if (order.isCurrent(i, a.changes(i))) {
                    packed[k][size[k]++] = order.entryAt(e);
                } else {
                    first[i + 1]++;
                }
            }
        }
        for (int i = 0; i < c.size; i++) {
            first[i + 1] += first[i];
        }
        int[] classOf = new int[first[c.size]];
        int[] fill = Arrays.copyOf(first, c.size);
        for (int k = 0; k < count; k++) {
            EarliestNodes order = orders.get(k);
            for (int e = 0; e < order.size(); e++) {
                int i = order.nodeAt(e);
                if (!order.isCurrent(i, a.changes(i))) {
                    classOf[fill[i]++] = k;
                }
            }
        }
        for (int i = 0; i < c.size; i++) {
            for (int r = first[i]; r < first[i + 1]; r++) {
                int k = classOf[r];
                long start = firstStart(classes.get(k), i, now);
                if (start >= 0) {
                    packed[k][size[k]++] = EarliestNodes.pack(now, start, i);
                    orders.get(k).computed(i, a.changes(i));
                }
            }
        }
        for (int k = 0; k < count; k++) {
            orders.get(k).reset(packed[k], size[k]);
        }
    }

    /**
     * The earliest time at or after {@code from} node {@code i} could start its class's needs; -1
     * for never. Advance reservations are left out: they only take starts away, so it stays a bound.
     */
    private long firstStart(NodeClass k, int i, long from) {
        int cpus = k.cpusOn(c, i);
        long mem = k.memOn(c, i);
        int gpus = k.gpusOn(c, i);
        if (c.cpus[i] < cpus || c.mem[i] < mem || c.gpus[i] < gpus) {
            return -1;
        }
        return a.firstStart(i, k.duration(), cpus, mem, gpus, from);
    }

    /**
     * {@link #earliest} through the shape's {@link EarliestNodes}: nodes are drawn smallest bound
     * first (each bound computed again as it is drawn, and put back if it moved), at least as many as
     * the shape needs and then twice as many each round, and the exact search runs over the drawn
     * nodes for a start before the smallest bound left. No node left could start by then, so the
     * start, and the nodes that could take it, are those of a search over every node; the drawn
     * nodes go back in with their new bounds.
     */
    private int[] earliestByOrder(Shape s, long duration, EarliestNodes order, long[] startOut) {
        NodeClass k = NodeClass.of(s, duration);
        int drawnCount = 0;
        int want = s.nodes();
        try {
            while (true) {
                long last = Long.MIN_VALUE;
                while (!order.isEmpty() && (drawnCount < want || order.peekStart() <= last)) {
                    long entry = order.peekEntry();
                    int i = EarliestNodes.nodeOf(entry);
                    int changes = a.changes(i);
                    if (!order.isCurrent(i, changes)) {
                        // The node changed since its entry was computed (an exact entry stays exact while it does not).
                        long first = firstStart(k, i, order.peekStart());
                        if (first < 0) {
                            order.pop(); // the profile only fills: never again either
                            continue;
                        }
                        order.computed(i, changes);
                        long fresh = EarliestNodes.pack(now, first, i);
                        if (fresh != entry) {
                            order.replaceTop(fresh);
                            continue;
                        }
                    }
                    last = order.peekStart();
                    order.pop();
                    if (drawnCount == drawnEntries.length) {
                        drawnEntries = Arrays.copyOf(drawnEntries, drawnCount * 2);
                    }
                    drawnEntries[drawnCount++] = entry;
                    drawn.set(i);
                }
                if (drawnCount < s.nodes()) {
                    startOut[0] = -1;
                    return null;
                }
                long before = order.isEmpty() ? Availability.FOREVER : order.peekStart();
                windowsUntil = before;
                int[] chosen = earliestAmong(s, duration, drawn, before, startOut);
                windowsUntil = Availability.FOREVER;
                if (startOut[0] >= 0) {
                    return chosen;
                }
                if (order.isEmpty()) {
                    return null;
                }
                want = drawnCount * 2;
            }
        } finally {
            for (int d = 0; d < drawnCount; d++) {
                order.push(drawnEntries[d]);
            }
            drawn.clear();
            windowsUntil = Availability.FOREVER;
        }
    }

    /** A shape's nodes (those it may use, up, capable) as words for {@link FreeIndex}, and its levels there. */
    private record IndexedShape(long[] pool, int gpuLevel, int cpuLevel) {
    }

    /**
     * {@link #earliest} through {@link #index}: bucket by bucket from {@link #notBefore}, the exact
     * search runs only over the nodes the index says could take part in a start in that bucket,
     * and the first bucket where it finds a start gives the same start (and nodes) as a search over
     * every node.
     */
    private int[] earliestIndexed(Shape s, long duration, long[] startOut) {
        IndexedShape is = indexedShapes.computeIfAbsent(s, this::indexed);
        if (is.gpuLevel() == -2 || is.cpuLevel() == -2) {
            return null;
        }
        long from = notBefore;
        int n = s.nodes();
        long[] words = new long[index.words()];
        try {
            for (int k = index.bucketOf(from); k < index.buckets; k++) {
                if (index.candidates(is.pool(), k, from, duration, is.gpuLevel(), is.cpuLevel(), n, words) < n) {
                    continue;
                }
                notBefore = Math.max(from, index.edge[k]);
                BitSet nodes = BitSet.valueOf(words);
                if (!(s.inOneBlock() && c.blockCount > 0)) {
                    int[] chosen = startingAt(s, duration, nodes, startOut);
                    if (startOut[0] >= 0) {
                        return chosen;
                    }
                }
                int[] chosen = earliestAmong(s, duration, nodes, index.edge[k + 1], startOut);
                if (startOut[0] >= 0) {
                    return chosen;
                }
            }
            return null;
        } finally {
            notBefore = from;
        }
    }

    /**
     * The earliest allowed start, {@link #notBefore}, when enough of {@code nodes} can start then:
     * as {@link #earliestAmong} but checking each node at that one time instead of reading its whole
     * profile (the nodes whose windows hold that time are those that fit from it, outside advance
     * reservations); -1 in {@code startOut[0]} when too few can.
     */
    private int[] startingAt(Shape s, long duration, BitSet nodes, long[] startOut) {
        long start = notBefore;
        long end = FreeIndex.saturatedAdd(start, duration);
        int count = 0;
        for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
            if (s.capable(c, i) && a.fitsDuring(i, start, end, s.needCpu(c, i), s.needMem(c, i), s.needGpu(c, i))
                    && clearOfReservations(i, start, duration)) {
                buf[count++] = i;
            }
        }
        if (count < s.nodes()) {
            startOut[0] = -1;
            return null;
        }
        startOut[0] = start;
        return Placement.choose(c, a, s, buf, count);
    }

    /** Whether a start at {@code start} on node {@code i} keeps clear of the advance reservations, as {@link #clipToReservations} allows. */
    boolean clearOfReservations(int i, long start, long duration) {
        for (ResourceProfile.Held h : held) {
            AdvanceReservation r = h.reservation();
            if (!h.nodes().get(i) || r.end() <= now || h == ownHeld) {
                continue;
            }
            if (start > r.start() - duration && start < r.end()) {
                return false;
            }
        }
        return true;
    }

    private IndexedShape indexed(Shape s) {
        long[] words = new long[index.words()];
        int minGpu = Integer.MAX_VALUE;
        int minCpu = Integer.MAX_VALUE;
        for (int i = pool.nextSetBit(0); i >= 0; i = pool.nextSetBit(i + 1)) {
            if (s.capable(c, i)) {
                words[i >>> 6] |= 1L << i;
                minGpu = Math.min(minGpu, s.needGpu(c, i));
                minCpu = Math.min(minCpu, s.needCpu(c, i));
            }
        }
        if (minGpu == Integer.MAX_VALUE) {
            return new IndexedShape(words, -1, -1);
        }
        return new IndexedShape(words, index.gpuLevel(minGpu), index.cpuLevel(minCpu));
    }

    /** Appends to {@link #intervals} the times node {@code i} could start the shape's share for {@code duration}. */
    private void windows(Shape s, int i, long duration) {
        if (s.topo() && c.block[i] >= 0) {
            // A topo-exclusive job starts on a node only when its whole block is free for the whole run.
            for (long[] w : blockWindows.computeIfAbsent(c.block[i], b -> wholeBlockWindows(b, duration))) {
                intervals.add(i, w[0], w[1]);
            }
            return;
        }
        nodeWindows(i, duration, s.needCpu(c, i), s.needMem(c, i), s.needGpu(c, i));
    }

    /** The start times at which every node of block {@code b} is wholly free for {@code duration}. */
    private List<long[]> wholeBlockWindows(int b, long duration) {
        List<long[]> common = new ArrayList<>();
        common.add(new long[] {notBefore, Availability.FOREVER});
        for (int j : c.blockNodes[b]) {
            int first = intervals.size;
            nodeWindows(j, duration, c.cpus[j], c.mem[j], c.gpus[j]);
            List<long[]> own = new ArrayList<>();
            for (int k = first; k < intervals.size; k++) {
                own.add(new long[] {intervals.start[k], intervals.end[k]});
            }
            intervals.size = first;
            own.sort(Comparator.comparingLong(w -> w[0]));
            common = intersect(common, own);
            if (common.isEmpty()) {
                break;
            }
        }
        return common;
    }

    private void nodeWindows(int i, long duration, int cpu, long mem, int gpu) {
        int first = intervals.size;
        a.startWindows(i, duration, cpu, mem, gpu, notBefore, windowsUntil, intervals);
        if (!held.isEmpty()) {
            clipToReservations(i, duration, first);
        }
    }

    /**
     * {@link #earliest} for a job with a nodelist: the earliest time at which every listed node can
     * start it and enough others (of the listed nodes' block, when it must stay in one) can too.
     */
    private int[] earliestWithRequired(Shape s, long duration, long[] startOut) {
        int[] required = s.required();
        List<long[]> common = new ArrayList<>();
        common.add(new long[] {notBefore, Availability.FOREVER});
        for (int i : required) {
            if (!pool.get(i)) {
                return null;
            }
            int first = intervals.size;
            windows(s, i, duration);
            List<long[]> own = new ArrayList<>();
            for (int k = first; k < intervals.size; k++) {
                own.add(new long[] {intervals.start[k], intervals.end[k]});
            }
            own.sort(Comparator.comparingLong(w -> w[0]));
            common = intersect(common, own);
            intervals.size = first;
            pool.clear(i);
            if (common.isEmpty()) {
                return null;
            }
        }
        int block = s.inOneBlock() && c.blockCount > 0 ? c.block[required[0]] : -1;
        for (int i = pool.nextSetBit(0); i >= 0; i = pool.nextSetBit(i + 1)) {
            if (s.capable(c, i) && (block < 0 || c.block[i] == block)) {
                windows(s, i, duration);
            }
        }
        int need = s.others();
        long start = sweepWithin(need, common);
        if (start < 0) {
            return null;
        }
        int count = 0;
        for (int k = 0; k < intervals.size; k++) {
            if (intervals.start[k] <= start && start < intervals.end[k]) {
                buf[count++] = intervals.node[k];
            }
        }
        int[] others = need == 0 ? new int[0] : Placement.choose(c, a, s, buf, count, need);
        if (others == null) {
            return null;
        }
        int[] all = Arrays.copyOf(required, required.length + others.length);
        System.arraycopy(others, 0, all, required.length, others.length);
        startOut[0] = start;
        return all;
    }

    /** The intersection of two sorted lists of disjoint half-open intervals. */
    private static List<long[]> intersect(List<long[]> x, List<long[]> y) {
        List<long[]> out = new ArrayList<>();
        int p = 0;
        int q = 0;
        while (p < x.size() && q < y.size()) {
            long lo = Math.max(x.get(p)[0], y.get(q)[0]);
            long hi = Math.min(x.get(p)[1], y.get(q)[1]);
            if (lo < hi) {
                out.add(new long[] {lo, hi});
            }
            if (x.get(p)[1] < y.get(q)[1]) {
                p++;
            } else {
                q++;
            }
        }
        return out;
    }

    /**
     * The earliest time within {@code allowed} (sorted, disjoint) at which at least {@code n} of
     * {@link #intervals} overlap; -1 if never. Only a start of an allowed interval or of a node's
     * window can be that time: coverage grows nowhere else.
     */
    private long sweepWithin(int n, List<long[]> allowed) {
        int m = intervals.size;
        long[] starts = Arrays.copyOf(intervals.start, m);
        long[] ends = Arrays.copyOf(intervals.end, m);
        Arrays.sort(starts);
        Arrays.sort(ends);
        long[] times = Arrays.copyOf(starts, m + allowed.size());
        for (int k = 0; k < allowed.size(); k++) {
            times[m + k] = allowed.get(k)[0];
        }
        Arrays.sort(times);
        int si = 0;
        int ei = 0;
        int wi = 0;
        for (long t : times) {
            while (wi < allowed.size() && allowed.get(wi)[1] <= t) {
                wi++;
            }
            if (wi == allowed.size()) {
                return -1;
            }
            if (allowed.get(wi)[0] > t) {
                continue;
            }
            while (si < m && starts[si] <= t) {
                si++;
            }
            while (ei < m && ends[ei] <= t) {
                ei++;
            }
            if (si - ei >= n) {
                return t;
            }
        }
        return -1;
    }

    /** Earliest time at least {@code n} of the intervals [from, to) of the arrays overlap; -1 if never. */
    private static long sweep(int n, int from, int to, long[] startsIn, long[] endsIn) {
        int m = to - from;
        if (m < n) {
            return -1;
        }
        long[] starts = Arrays.copyOfRange(startsIn, from, to);
        long[] ends = Arrays.copyOfRange(endsIn, from, to);
        Arrays.sort(starts);
        Arrays.sort(ends);
        int active = 0;
        int e = 0;
        for (int k = 0; k < m; k++) {
            long t = starts[k];
            active++;
            while (k + 1 < m && starts[k + 1] == t) {
                active++;
                k++;
            }
            while (e < m && ends[e] <= t) {
                active--;
                e++;
            }
            if (active >= n) {
                return t;
            }
        }
        return -1;
    }

    /** Like {@link #sweep} but all {@code n} nodes from one block: the earliest over the blocks. */
    private long sweepPerBlock(int n) {
        int size = intervals.size;
        int[] perBlock = new int[c.blockCount + 1];
        for (int k = 0; k < size; k++) {
            perBlock[c.block[intervals.node[k]] + 1]++;
        }
        int[] offset = new int[c.blockCount + 2];
        for (int b = 0; b <= c.blockCount; b++) {
            offset[b + 1] = offset[b] + perBlock[b];
        }
        int[] fill = Arrays.copyOf(offset, c.blockCount + 1);
        long[] starts = new long[size];
        long[] ends = new long[size];
        for (int k = 0; k < size; k++) {
            int slot = fill[c.block[intervals.node[k]] + 1]++;
            starts[slot] = intervals.start[k];
            ends[slot] = intervals.end[k];
        }
        long best = -1;
        for (int b = 1; b <= c.blockCount; b++) {
            if (perBlock[b] >= n) {
                long t = sweep(n, offset[b], offset[b + 1], starts, ends);
                if (t >= 0 && (best < 0 || t < best)) {
                    best = t;
                }
            }
        }
        return best;
    }
}
