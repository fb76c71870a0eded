package io.gantry.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What is free when, on every node: the running jobs' holds until their planned ends, shared GPUs
 * (MIG instances and shards), holds for the jobs a plan reserves, and the advance reservations
 * nodes are kept for. It answers the {@link QueuePass} through a narrow interface of records
 * &mdash; whether a shape fits now and on which nodes ({@link Fit}), its earliest start
 * ({@link Slot}), where an estimate put a job ({@link Placed}) &mdash; and takes holds and gives
 * them back (a start, a start undone, a victim released and held again). How it does so
 * ({@link Availability}, {@link SharedGpus}, {@link EarliestStarts} with its {@link FreeIndex} and
 * {@link EarliestNodes}, {@link RoughStarts}) is its own: ArchitectureTests keep the pass off it.
 *
 * <p>{@link StartEstimator} loads a profile as a plan left it ({@link #replay}) and places each
 * pending job in it ({@link #placeEarliest}, {@link #placeAgain}, {@link #placeRough}).
 */
final class ResourceProfile {

    /**
     * Whether a shape fits now: its nodes, or null with {@code why} it does not (a node of its
     * nodelist cannot be used; maintenance, or reservations for jobs ahead of it, keep nodes that
     * would do; its blocks or switches are not free; or resources); {@code usable}: how many nodes
     * could take its share now, leaving every reservation whole.
     */
    public record Fit(int[] nodes, int usable, PendingReason why) {

        public boolean fits() {
            return nodes != null;
        }
    }

    /** The earliest start of a shape for its duration, on {@code nodes}, not yet held. */
    public record Slot(Shape shape, long start, int[] nodes) {
    }

    /** Where an estimate put a job: from {@code start}, in {@code partition}, on {@code nodes}. */
    public record Placed(long start, String partition, List<String> nodes) {
    }

    /** An advance reservation, with its nodes as indices. */
    record Held(AdvanceReservation reservation, BitSet nodes) {
    }

    private final Snapshot snapshot;
    private final Cluster c;
    private final long now;
    private final Availability a;
    private final SharedGpus shared;
    private final int[] buf;
    private final BitSet pool;
    private final List<Held> held = new ArrayList<>();
    private final Map<String, Held> heldByName = new HashMap<>();
    /**
     * What each running job holds, per node, so that preemption can give it back: {node, cpus, mem, gpu mask, end}.
     * Worked out from the snapshot on first use ({@link #holdsByJob}): most passes preempt nothing.
     */
    private Map<JobId, List<long[]>> holds;
    /** What {@link #holdRunning} filled of topo-exclusive running jobs' blocks, per job. */
    private final Map<JobId, List<long[]>> filledBlocks = new HashMap<>();
    private boolean runningHeld;
    /** The nodes {@link #restrict} leaves out (or, with {@link #onlyAllowed}, the only ones it leaves in). */
    private final BitSet deny;
    private final BitSet allow;
    private boolean onlyAllowed;
    private boolean keptForMaintenance;
    private final EarliestStarts search;
    /** {@link #placeRough}'s sums, made at its first call. */
    private RoughStarts rough;
    /** For {@link StartEstimator}'s placements, made at first use. */
    private Layouts layouts;

    public ResourceProfile(Snapshot snapshot, Cluster cluster) {
        this.snapshot = snapshot;
        this.c = cluster;
        this.now = snapshot.now();
        this.a = new Availability(cluster, now);
        this.shared = new SharedGpus(cluster, a);
        this.buf = new int[cluster.size];
        this.pool = new BitSet(cluster.size);
        this.deny = new BitSet(cluster.size);
        this.allow = new BitSet(cluster.size);
        for (AdvanceReservation r : snapshot.reservations()) {
            BitSet nodes = new BitSet(cluster.size);
            for (String name : r.nodes()) {
                Integer i = cluster.nodeIndex.get(name);
                if (i != null) {
                    nodes.set(i);
                }
            }
            Held h = new Held(r, nodes);
            held.add(h);
            heldByName.put(r.name(), h);
        }
        this.search = new EarliestStarts(cluster, now, a, held, buf, pool);
    }

    /** The advance reservation of that name, or null when there is none. */
    public AdvanceReservation advanceReservation(String name) {
        Held h = heldByName.get(name);
        return h == null ? null : h.reservation();
    }

    private Held heldOf(AdvanceReservation own) {
        return own == null ? null : heldByName.get(own.name());
    }

    /** Takes into the profile what every running job holds. */
    public void holdRunning() {
        for (RunningJob r : snapshot.running()) {
            long end = r.plannedEnd(now, snapshot.policy().predictRunning());
            for (NodeAllocation alloc : r.allocation()) {
                int i = nodeOf(r, alloc);
                a.holdUnindexed(i, alloc.cpus(), alloc.memoryMb(), gpuMask(r, alloc, i), end);
                if (alloc.sharesGpus()) {
                    shared.holdRunning(r.id(), i, alloc, end);
                }
            }
        }
        a.reindexFree();
        // After every job's own allocation, so that what fills a topo job's blocks is only what is left.
        for (RunningJob r : snapshot.running()) {
            if (r.topoExclusive()) {
                filledBlocks.computeIfAbsent(r.id(), k -> new ArrayList<>())
                        .addAll(fillBlocks(nodesOf(r.allocation()), r.expectedEnd()));
            }
        }
        runningHeld = true;
    }

    private int nodeOf(RunningJob r, NodeAllocation alloc) {
        int i = c.indexOf(alloc.node());
        if (i < 0) {
            throw new IllegalArgumentException("running job " + r.id() + " is on unknown node " + alloc.node());
        }
        return i;
    }

    private long gpuMask(RunningJob r, NodeAllocation alloc, int i) {
        long mask = 0;
        for (int g : alloc.gpuIndices()) {
            if (g < 0 || g >= c.gpus[i] || (mask & (1L << g)) != 0) {
                throw new IllegalArgumentException("running job " + r.id() + " holds bad GPU " + g
                        + " on " + alloc.node());
            }
            mask |= 1L << g;
        }
        return mask;
    }

    /** {@link #holds}, worked out the first time a pass asks (empty before {@link #holdRunning}). */
    private Map<JobId, List<long[]>> holdsByJob() {
        if (!runningHeld) {
            return Map.of();
        }
        if (holds == null) {
            Map<JobId, List<long[]>> byJob = new HashMap<>();
            for (RunningJob r : snapshot.running()) {
                long end = r.plannedEnd(now, snapshot.policy().predictRunning());
                for (NodeAllocation alloc : r.allocation()) {
                    int i = nodeOf(r, alloc);
                    byJob.computeIfAbsent(r.id(), k -> new ArrayList<>())
                            .add(new long[] {i, alloc.cpus(), alloc.memoryMb(), gpuMask(r, alloc, i), end});
                }
            }
            filledBlocks.forEach((id, list) -> byJob.computeIfAbsent(id, k -> new ArrayList<>()).addAll(list));
            holds = byJob;
        }
        return holds;
    }

    private int[] nodesOf(List<NodeAllocation> allocation) {
        int[] nodes = new int[allocation.size()];
        for (int k = 0; k < nodes.length; k++) {
            nodes[k] = c.nodeIndex.get(allocation.get(k).node());
        }
        return nodes;
    }

    /**
     * Holds until {@code end} whatever is free on the other nodes of the blocks {@code nodes} are in,
     * for a topo-exclusive job: nothing else can start there while it runs. Returns the holds
     * ({node, cpus, mem, gpu mask, end}) so that preemption gives them back with the job's own.
     */
    private List<long[]> fillBlocks(int[] nodes, long end) {
        List<long[]> filled = new ArrayList<>();
        BitSet own = new BitSet(c.size);
        BitSet blocks = new BitSet(c.blockCount);
        for (int i : nodes) {
            own.set(i);
            if (c.block[i] >= 0) {
                blocks.set(c.block[i]);
            }
        }
        for (int b = blocks.nextSetBit(0); b >= 0; b = blocks.nextSetBit(b + 1)) {
            for (int j : c.blockNodes[b]) {
                if (own.get(j)) {
                    continue;
                }
                long all = c.gpus[j] >= Node.MAX_GPUS ? -1L : (1L << c.gpus[j]) - 1;
                long mask = all & ~a.gpuInUse[j];
                if (a.freeCpu[j] == 0 && a.freeMem[j] == 0 && mask == 0) {
                    continue;
                }
                long[] h = {j, a.freeCpu[j], a.freeMem[j], mask, end};
                a.hold(j, (int) h[1], h[2], mask, end);
                filled.add(h);
            }
        }
        return filled;
    }

    /**
     * Whether block {@code b} has nothing running or reserved on any node from now until {@code end},
     * and no advance reservation of other jobs on it: a topo-exclusive job can have it to itself.
     */
    private boolean blockFree(int b, long end) {
        for (int j : c.blockNodes[b]) {
            if (deny.get(j) || !a.fitsNow(j, c.cpus[j], c.mem[j], c.gpus[j])
                    || (a.reserved.get(j) && !a.fitsDuring(j, now, end, c.cpus[j], c.mem[j], c.gpus[j]))) {
                return false;
            }
        }
        return true;
    }

    /** Whether running job {@code id} holds anything here (one a plan already stops does not count twice). */
    public boolean holds(JobId id) {
        return holdsByJob().containsKey(id);
    }

    /** Gives back what running job {@code id} holds, to see whether a job fits without it. */
    public void release(JobId id) {
        for (long[] h : holdsByJob().get(id)) {
            a.release((int) h[0], (int) h[1], h[2], h[3], h[4]);
        }
    }

    /** Takes again what {@link #release} gave back. */
    public void rehold(JobId id) {
        for (long[] h : holdsByJob().get(id)) {
            a.hold((int) h[0], (int) h[1], h[2], h[3], h[4]);
        }
    }

    /**
     * For {@link StartEstimator}: loads the profile as {@code plan} left it (the running jobs less
     * those it preempts, its starts until their ends, its reservations) instead of planning.
     */
    public void replay(Plan plan) {
        holdRunning();
        for (Preemption p : plan.preemptions()) {
            if (holdsByJob().containsKey(p.victim())) {
                release(p.victim());
            }
        }
        java.util.Set<JobId> topo = new java.util.HashSet<>();
        for (PendingJob job : snapshot.pending()) {
            if (job.request().topoExclusive()) {
                topo.add(job.id());
            }
        }
        for (Start st : plan.starts()) {
            for (NodeAllocation alloc : st.allocation()) {
                int i = c.nodeIndex.get(alloc.node());
                long mask = 0;
                for (int g : alloc.gpuIndices()) {
                    mask |= 1L << g;
                }
                a.hold(i, alloc.cpus(), alloc.memoryMb(), mask, st.expectedEnd());
            }
        }
        for (Start st : plan.starts()) {
            if (topo.contains(st.job())) {
                fillBlocks(nodesOf(st.allocation()), st.expectedEnd());
            }
        }
    }

    /**
     * For {@link StartEstimator}: the earliest time at or after {@code notBefore} the job could start
     * in one of its partitions for its whole time limit, with resources held for it from then on so
     * that jobs estimated after it queue behind it; null when it never could. A job bound to an
     * advance reservation is placed on its nodes, from its start, and must start before its end.
     */
    public Placed placeEarliest(PendingJob job, long notBefore) {
        Held own = null;
        if (job.reservation() != null) {
            own = heldByName.get(job.reservation());
            if (own == null || own.reservation().end() <= now) {
                return null;
            }
            notBefore = Math.max(notBefore, own.reservation().start());
        }
        List<Shape> candidates = new ArrayList<>(job.partitions().size());
        layouts().candidates(job, candidates);
        long duration = job.timeLimitSeconds();
        long bestStart = Long.MAX_VALUE;
        Shape bestShape = null;
        int[] bestNodes = null;
        search.within(Math.max(now, notBefore), own);
        try {
            for (Shape s : candidates) {
                long[] startOut = new long[1];
                int[] chosen = search.earliest(s, duration, startOut);
                if (chosen != null && startOut[0] < bestStart) {
                    bestStart = startOut[0];
                    bestShape = s;
                    bestNodes = chosen;
                }
            }
        } finally {
            search.reset();
        }
        if (bestShape == null || (own != null && bestStart >= own.reservation().end())) {
            return null;
        }
        long end = Math.addExact(bestStart, duration);
        List<String> names = holdFor(bestShape, bestNodes, bestStart, end);
        search.changed(bestNodes, bestStart, end);
        return new Placed(bestStart, c.parts[bestShape.partition()].name(), names);
    }

    /**
     * For {@link StartEstimator}: places the job again where an earlier pass put it (in
     * {@code partition}, on {@code nodes}) at the first time, from {@code start} on (or from when it
     * may start, if later), that those nodes can all take it for its whole time limit in the profile
     * as it is now; null, with nothing held, when the job may no longer run there or they never can.
     */
    public Placed placeAgain(PendingJob job, long start, String partition, List<String> nodes) {
        Cluster.Part part = c.partsByName.get(partition);
        if (part == null || !job.partitions().contains(partition)) {
            return null;
        }
        List<Shape> candidates = new ArrayList<>(job.partitions().size());
        layouts().candidates(job, candidates);
        Shape shape = null;
        for (Shape s : candidates) {
            if (s.partition() == part.index()) {
                shape = s;
            }
        }
        if (shape == null || shape.topo() || nodes.size() != shape.nodes()) {
            return null;
        }
        Held own = null;
        long from = Math.max(Math.max(start, now), job.eligibleFrom());
        if (job.reservation() != null) {
            own = heldByName.get(job.reservation());
            if (own == null || own.reservation().end() <= now) {
                return null;
            }
            from = Math.max(from, own.reservation().start());
            if (from >= own.reservation().end()) {
                return null;
            }
        }
        long duration = job.timeLimitSeconds();
        int[] chosen = new int[nodes.size()];
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int k = 0; k < chosen.length; k++) {
            Integer i = c.nodeIndex.get(nodes.get(k));
            if (i == null || !seen.add(i) || !c.up.get(i) || !shape.candidates().get(i) || !shape.capable(c, i)
                    || shape.excludes(i) || (own != null && !own.nodes().get(i))) {
                return null;
            }
            chosen[k] = i;
        }
        for (int i : shape.required()) {
            if (!seen.contains(i)) {
                return null;
            }
        }
        search.within(now, own);
        try {
            boolean fits = true;
            long end = Math.addExact(from, duration);
            for (int k = 0; k < chosen.length && fits; k++) {
                int i = chosen[k];
                fits = a.fitsDuring(i, from, end, shape.needCpu(c, i), shape.needMem(c, i), shape.needGpu(c, i))
                        && search.clearOfReservations(i, from, duration);
            }
            if (fits) {
                return new Placed(from, partition, holdFor(shape, chosen, from, end));
            }
        } finally {
            search.reset();
        }
        // Else the first time from then on that all of its nodes can take it for its whole limit.
        long begin;
        search.within(from, own);
        try {
            begin = search.firstCommonStart(shape, chosen, duration);
        } finally {
            search.reset();
        }
        if (begin < 0 || (own != null && begin >= own.reservation().end())) {
            return null;
        }
        return new Placed(begin, partition, holdFor(shape, chosen, begin, Math.addExact(begin, duration)));
    }

    /**
     * For {@link StartEstimator}, for a job its budget leaves no search for: a rough start at or after
     * {@code notBefore} from the summed free resources of its nodes ({@link RoughStarts}), taken from
     * those sums so that jobs roughly placed after it queue behind it; no nodes are named. Null when
     * the sums never hold it (or, for a job of an advance reservation, not before the reservation ends).
     */
    public Placed placeRough(PendingJob job, long notBefore) {
        long from = Math.max(now, notBefore);
        Held own = null;
        if (job.reservation() != null) {
            own = heldByName.get(job.reservation());
            if (own == null || own.reservation().end() <= now) {
                return null;
            }
            from = Math.max(from, own.reservation().start());
        }
        if (rough == null) {
            rough = new RoughStarts(a, c, now);
            a.onReserve = rough;
        }
        List<Shape> candidates = new ArrayList<>(job.partitions().size());
        layouts().candidates(job, candidates);
        long duration = job.timeLimitSeconds();
        long bestStart = Long.MAX_VALUE;
        Shape best = null;
        for (Shape s : candidates) {
            long t = rough.earliest(s.match(), roughGpus(s), roughCpus(s), from, duration);
            if (t >= 0 && t < bestStart) {
                bestStart = t;
                best = s;
            }
        }
        if (best == null || (own != null && bestStart >= own.reservation().end())) {
            return null;
        }
        rough.take(best.match(), roughGpus(best), roughCpus(best), bestStart, Math.addExact(bestStart, duration));
        return new Placed(bestStart, c.parts[best.partition()].name(), List.of());
    }

    private static long roughGpus(Shape s) {
        return (long) s.nodes() * (s.exclusive() ? s.match().maxGpus() : s.gpusPerNode());
    }

    private static long roughCpus(Shape s) {
        return (long) s.nodes() * (s.exclusive() ? s.match().maxCpus() : s.cpusPerNode());
    }

    /** Holds the shape's share of {@code nodes} in the profile from {@code start} to {@code end}; their names. */
    private List<String> holdFor(Shape shape, int[] nodes, long start, long end) {
        List<String> names = new ArrayList<>(nodes.length);
        int[] sorted = nodes.clone();
        Arrays.sort(sorted);
        for (int i : sorted) {
            a.reserve(i, start, end, shape.needCpu(c, i), shape.needMem(c, i), shape.needGpu(c, i));
            names.add(c.names[i]);
        }
        if (shape.topo()) {
            // The rest of its blocks, whole: their windows were checked free for the whole run.
            BitSet blocks = new BitSet(c.blockCount);
            for (int i : sorted) {
                if (c.block[i] >= 0) {
                    blocks.set(c.block[i]);
                }
            }
            for (int b = blocks.nextSetBit(0); b >= 0; b = blocks.nextSetBit(b + 1)) {
                for (int j : c.blockNodes[b]) {
                    if (Arrays.binarySearch(sorted, j) < 0) {
                        a.reserve(j, start, end, c.cpus[j], c.mem[j], c.gpus[j]);
                    }
                }
            }
        }
        return names;
    }

    /**
     * For {@link StartEstimator}, after the profile is loaded: {@link #placeEarliest} from now on
     * reads only the nodes a {@link FreeIndex} says could fit (same results, less work on many nodes).
     */
    public void indexFreeNodes() {
        search.indexFreeNodes();
    }

    /**
     * For {@link StartEstimator}, after the profile is loaded: {@link #placeEarliest} from now on
     * reads nodes in order of a lower bound on their earliest start and stops as soon as no node
     * left could start sooner (same results as reading every node).
     */
    public void orderNodesByEarliest() {
        search.orderNodesByEarliest();
    }

    /**
     * For {@link StartEstimator}, when many jobs have been placed since the nodes were ordered: the
     * bounds of the nodes changed since computed again (see {@link EarliestStarts#reorderNodesByEarliest}).
     */
    public void reorderNodesByEarliest() {
        search.reorderNodesByEarliest();
    }

    /** For {@link StartEstimator}: holds a reservation the plan made, on the nodes it names. */
    public void replayReservation(PendingJob job, Waiting w) {
        Cluster.Part part = c.partsByName.get(w.partition());
        Shape shape = layouts().shape(job.request(), part.index());
        int[] nodes = new int[w.reservedNodes().size()];
        for (int k = 0; k < nodes.length; k++) {
            nodes[k] = c.nodeIndex.get(w.reservedNodes().get(k));
        }
        long start = w.expectedStart().getAsLong();
        holdFor(shape, nodes, start, Math.addExact(start, job.timeLimitSeconds()));
    }

    private Layouts layouts() {
        if (layouts == null) {
            layouts = new Layouts(c);
        }
        return layouts;
    }

    /**
     * Whether the shape fits now, leaving every reservation whole: on nodes no advance reservation
     * keeps during a run until {@code reservedUntil} (a job of reservation {@code own}: only on its
     * nodes), and with its share free until {@code holdUntil}.
     */
    public Fit fitNow(Shape s, AdvanceReservation own, long reservedUntil, long holdUntil) {
        restrict(heldOf(own), reservedUntil);
        return tryNow(s, holdUntil);
    }

    /**
     * The nodes advance reservations leave a job running until {@code end}: a job in reservation
     * {@code own} only its nodes; any other job none of the nodes reserved during its run.
     */
    private void restrict(Held own, long end) {
        deny.clear();
        allow.clear();
        keptForMaintenance = false;
        onlyAllowed = own != null;
        if (own != null) {
            allow.or(own.nodes());
            return;
        }
        for (Held h : held) {
            if (h.reservation().overlaps(now, end)) {
                deny.or(h.nodes());
                keptForMaintenance |= h.reservation().maintenance();
            }
        }
    }

    /** Nodes for the shape now, leaving every reservation whole; null when there are none. */
    private Fit tryNow(Shape s, long end) {
        pool.clear();
        pool.or(s.candidates());
        pool.and(c.up);
        if (onlyAllowed) {
            pool.and(allow);
        }
        int keptForReservation = 0;
        int baseFit = 0;
        for (int i : s.excluded()) {
            pool.clear(i);
        }
        for (int i : s.required()) {
            PendingReason why = unusable(s, i, end);
            if (why == null && s.topo() && c.block[i] >= 0 && !blockFree(c.block[i], end)) {
                why = PendingReason.TOPOLOGY_WAIT;
            }
            if (why != null) {
                return new Fit(null, 0, why);
            }
            pool.clear(i);
        }
        pool.and(a.hasFreeCpu);
        if (s.gpusPerNode() > 0) {
            pool.and(a.hasFreeGpu);
        }
        int count = 0;
        for (int i = pool.nextSetBit(0); i >= 0; i = pool.nextSetBit(i + 1)) {
            if (!s.capable(c, i)) {
                continue;
            }
            int cpu = s.needCpu(c, i);
            long mem = s.needMem(c, i);
            int gpu = s.needGpu(c, i);
            if (!a.fitsNow(i, cpu, mem, gpu)) {
                continue;
            }
            if (deny.get(i)) {
                keptForReservation++;
                continue;
            }
            baseFit++;
            if (a.reserved.get(i) && !a.fitsDuring(i, now, end, cpu, mem, gpu)) {
                continue;
            }
            buf[count++] = i;
        }
        int usable = count;
        if (s.topo() && c.blockCount > 0) {
            count = inFreeBlocks(count, end);
        }
        int[] nodes = withRequired(s, count);
        if (nodes != null) {
            return new Fit(nodes, usable, null);
        }
        // Maintenance when an advance reservation with MAINT keeps nodes that would do; priority when only
        // reservations for jobs ahead stand in the way; a topology wait when blocks or switches do; else resources.
        int need = s.others();
        PendingReason why = keptForMaintenance && baseFit + keptForReservation >= need
                ? PendingReason.RESERVED_FOR_MAINTENANCE
                : baseFit >= need && usable < need ? PendingReason.PRIORITY
                : usable >= need && c.blockCount > 0 && (s.inOneBlock() || s.segmented() || s.topo())
                ? PendingReason.TOPOLOGY_WAIT
                : PendingReason.RESOURCES;
        return new Fit(null, usable, why);
    }

    /**
     * Keeps of the first {@code count} entries of {@code buf} those a topo-exclusive job may take: in a
     * block free of other jobs until {@code end}, or in no block; returns how many.
     */
    private int inFreeBlocks(int count, long end) {
        int[] free = new int[c.blockCount];
        int kept = 0;
        for (int k = 0; k < count; k++) {
            int b = c.block[buf[k]];
            if (b >= 0 && free[b] == 0) {
                free[b] = blockFree(b, end) ? 1 : -1;
            }
            if (b < 0 || free[b] > 0) {
                buf[kept++] = buf[k];
            }
        }
        return kept;
    }

    /** Why node {@code i} of the job's nodelist cannot take its share until {@code end}; null when it can. */
    private PendingReason unusable(Shape s, int i, long end) {
        int cpu = s.needCpu(c, i);
        long mem = s.needMem(c, i);
        int gpu = s.needGpu(c, i);
        if (!c.up.get(i) || (onlyAllowed && !allow.get(i)) || !a.fitsNow(i, cpu, mem, gpu)) {
            return PendingReason.REQ_NODE_NOT_AVAIL;
        }
        if (deny.get(i)) {
            return keptForMaintenance ? PendingReason.RESERVED_FOR_MAINTENANCE : PendingReason.REQ_NODE_NOT_AVAIL;
        }
        if (a.reserved.get(i) && !a.fitsDuring(i, now, end, cpu, mem, gpu)) {
            return PendingReason.REQ_NODE_NOT_AVAIL;
        }
        return null;
    }

    /**
     * The shape's nodes: its nodelist's and as many more as it needs from the first {@code count}
     * entries of {@code buf} (from the nodelist's block when it must stay in one); null when too few.
     */
    private int[] withRequired(Shape s, int count) {
        int[] required = s.required();
        if (required.length == 0) {
            return Placement.choose(c, a, s, buf, count);
        }
        int need = s.others();
        if (need == 0) {
            return required.clone();
        }
        if (s.inOneBlock() && c.blockCount > 0) {
            int block = c.block[required[0]];
            int kept = 0;
            for (int k = 0; k < count; k++) {
                if (c.block[buf[k]] == block) {
                    buf[kept++] = buf[k];
                }
            }
            count = kept;
        }
        int[] others = Placement.choose(c, a, s, buf, count, need);
        if (others == null) {
            return null;
        }
        int[] all = Arrays.copyOf(required, required.length + others.length);
        System.arraycopy(others, 0, all, required.length, others.length);
        return all;
    }

    /**
     * Takes the shape's share of {@code chosen} until {@code holdUntil} (and, topo-exclusive, the rest of
     * their blocks until {@code end}, its limit); the allocation, by node.
     */
    public List<NodeAllocation> take(Shape s, int[] chosen, long end, long holdUntil) {
        List<NodeAllocation> allocation = new ArrayList<>(chosen.length);
        int[] sorted = chosen.clone();
        Arrays.sort(sorted);
        for (int k = 0; k < sorted.length; k++) {
            int i = sorted[k];
            int cpus = s.exclusive() ? c.cpus[i] : s.cpusOn(k);
            int gpus = s.exclusive() ? c.gpus[i] : s.gpusOn(k);
            long mem = s.needMem(c, i);
            long mask = a.pickGpus(i, gpus);
            a.hold(i, cpus, mem, mask, holdUntil);
            List<Integer> indices = new ArrayList<>(gpus);
            for (long m = mask; m != 0; m &= m - 1) {
                indices.add(Long.numberOfTrailingZeros(m));
            }
            allocation.add(new NodeAllocation(c.names[i], cpus, mem, indices));
        }
        if (s.topo()) {
            fillBlocks(sorted, end);
        }
        return allocation;
    }

    /** Gives back what {@link #take} held until {@code holdUntil} for a start that is not made after all. */
    public void giveBack(List<NodeAllocation> allocation, long holdUntil) {
        for (NodeAllocation alloc : allocation) {
            int i = c.nodeIndex.get(alloc.node());
            long mask = 0;
            for (int g : alloc.gpuIndices()) {
                mask |= 1L << g;
            }
            a.release(i, alloc.cpus(), alloc.memoryMb(), mask, holdUntil);
        }
    }

    /**
     * For a job on MIG instances or shards: takes them until {@code end} on the first node of the shape
     * (in node order) that has them free, outside the advance reservations as {@link #fitNow} keeps
     * them; null when no node has.
     */
    public NodeAllocation takeShared(Shape shape, Request r, AdvanceReservation own, long end) {
        restrict(heldOf(own), end);
        for (int i = shape.candidates().nextSetBit(0); i >= 0; i = shape.candidates().nextSetBit(i + 1)) {
            if (!c.up.get(i) || (onlyAllowed && !allow.get(i)) || deny.get(i) || shape.excludes(i)
                    || (shape.required().length > 0 && !shape.requires(i))) {
                continue;
            }
            int cpus = shape.needCpu(c, i);
            long mem = shape.needMem(c, i);
            SharedGpus.Pick pick = shared.pick(i, r, cpus, mem, end);
            if (pick != null) {
                return shared.take(i, r, pick, cpus, mem, end);
            }
        }
        return null;
    }

    /** The earliest start of the shape for {@code duration} from now, and on which nodes; null if never. */
    public Slot earliest(Shape s, long duration) {
        long[] startOut = new long[1];
        int[] nodes = search.earliest(s, duration, startOut);
        return nodes == null ? null : new Slot(s, startOut[0], nodes);
    }

    /** Holds {@code slot} for {@code duration} so that nothing started later delays it; its nodes' names. */
    public List<String> hold(Slot slot, long duration) {
        return holdFor(slot.shape(), slot.nodes(), slot.start(), Math.addExact(slot.start(), duration));
    }
}
