package io.gantry.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One planning pass over a snapshot. Jobs are visited once, in priority order (partition tier
 * first). A job starts now when it fits without touching resources reserved for a job ahead of it;
 * once a job of a partition cannot start, the partition is blocked and later jobs there start
 * only by backfill (or not at all without backfill). The first {@code reservationDepth} blocked
 * jobs of each partition get a reservation: the earliest time enough nodes are free for their
 * whole time limit, held in the availability profile so that nothing started later can delay them.
 */
final class Cycle {

    /**
     * About 160 MB of {@link EarliestNodes} at most (a class costs 8 bytes per node it may use and 4 per
     * node of the cluster, counted as half an entry).
     */
    private static final long MAX_ORDERED_ENTRIES = 20_000_000;

    /** Distinct failed shapes remembered per partition; beyond it jobs are simply tried. */
    private static final int MAX_FAILED_SHAPES = 512;

    private final Snapshot snapshot;
    private final Cluster c;
    private final long now;
    private final Policy policy;
    private final Availability a;
    private final SharedGpus shared;
    private final Limits limits;
    private final Priorities priorities;
    private final int[] buf;
    private final BitSet pool;
    private final Availability.Intervals intervals = new Availability.Intervals();
    private final Map<Request, Layout> layouts = new HashMap<>();
    private final Map<Cluster.PartMatch, List<Failure>> failed = new java.util.IdentityHashMap<>();
    private final boolean[] blocked;
    private final int[] reservations;
    private int baseFit;
    private int usable;
    /** Nodes that fitted but were kept for an advance reservation, in the last {@link #tryNow}. */
    private int keptForReservation;
    private boolean keptForMaintenance;
    /** Why a node of the job's nodelist could not be used, in the last {@link #tryNow}; null when all could. */
    private PendingReason requiredWhy;
    /** Advance reservations, with their nodes as indices. */
    private final List<Held> held = new ArrayList<>();
    private final Map<String, Held> heldByName = new HashMap<>();
    private final BitSet deny;
    private final BitSet allow;
    private boolean onlyAllowed;
    /** The earliest start {@link #earliest} may return: now, except for {@link #placeEarliest}'s later ones. */
    private long notBefore;
    /** For {@link #placeEarliest} once {@link #indexFreeNodes} has run: which nodes have what free when. */
    private FreeIndex index;
    /** {@link #placeRough}'s sums, made at its first call. */
    private RoughStarts rough;
    /** In {@link #placeEarliest}: the advance reservation the job must run in, whose nodes are its own; else null. */
    private Held ownHeld;
    private final Map<Shape, IndexedShape> indexedShapes = new java.util.IdentityHashMap<>();
    /**
     * For {@link #placeEarliest} once {@link #orderNodesByEarliest} has run: per node filter and
     * {@link NodeClass}, the nodes by a lower bound on their earliest start; else null.
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

    private record Held(AdvanceReservation reservation, BitSet nodes) {
    }

    /** What each running job holds, per node, so that preemption can give it back: {node, cpus, mem, gpu mask, end}. */
    private final Map<JobId, List<long[]>> holds = new HashMap<>();
    private final java.util.Set<JobId> preempted = new java.util.HashSet<>();
    private final List<Preemption> preemptions = new ArrayList<>();
    /** Guarantees, borrowing and reclaim (issue 16); inactive when no account holds a guarantee. */
    private final QuotaBook quotas;

    /** A request laid out on every partition, with why it can never (or not while nodes are down) run there. */
    private record Layout(Shape[] shapes, PendingReason[] no) {
    }

    private record Failure(Shape shape, long duration, PendingReason reason) {
    }

    /** {@code selected}: its slowdown so far reached the policy's threshold, so it is reserved whatever the depth. */
    private record Entry(PendingJob job, Priority priority, int tier, boolean starving, boolean selected) {
    }

    Cycle(Snapshot snapshot, Cluster cluster) {
        this.snapshot = snapshot;
        this.c = cluster;
        this.now = snapshot.now();
        this.policy = snapshot.policy();
        this.notBefore = now;
        this.a = new Availability(cluster, now);
        this.shared = new SharedGpus(cluster, a);
        this.limits = new Limits(snapshot.qos(), snapshot.associations());
        this.quotas = new QuotaBook(snapshot.quotas(), snapshot.nodes(), snapshot.running(), snapshot.pending(), now);
        long oldest = now;
        for (PendingJob job : snapshot.pending()) {
            oldest = Math.min(oldest, job.eligibleFrom());
        }
        this.priorities = new Priorities(policy.weights(), now, limits, cluster, oldest);
        this.buf = new int[cluster.size];
        this.pool = new BitSet(cluster.size);
        this.blocked = new boolean[cluster.parts.length];
        this.reservations = new int[cluster.parts.length];
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
    }

    /** Takes into the profile (and charges to the limits) what every running job holds. */
    private void holdRunning() {
        for (RunningJob r : snapshot.running()) {
            long end = r.plannedEnd(now, policy.predictRunning());
            for (NodeAllocation alloc : r.allocation()) {
                Integer i = c.nodeIndex.get(alloc.node());
                if (i == null) {
                    throw new IllegalArgumentException("running job " + r.id() + " is on unknown node " + alloc.node());
                }
                long mask = 0;
                for (int g : alloc.gpuIndices()) {
                    if (g < 0 || g >= c.gpus[i] || (mask & (1L << g)) != 0) {
                        throw new IllegalArgumentException("running job " + r.id() + " holds bad GPU " + g
                                + " on " + alloc.node());
                    }
                    mask |= 1L << g;
                }
                a.hold(i, alloc.cpus(), alloc.memoryMb(), mask, end);
                if (alloc.sharesGpus()) {
                    shared.holdRunning(r.id(), i, alloc, end);
                }
                holds.computeIfAbsent(r.id(), k -> new ArrayList<>())
                        .add(new long[] {i, alloc.cpus(), alloc.memoryMb(), mask, end});
            }
            limits.charge(r.user(), r.account(), r.qos(), r.tres());
        }
        // After every job's own allocation, so that what fills a topo job's blocks is only what is left.
        for (RunningJob r : snapshot.running()) {
            if (r.topoExclusive()) {
                List<long[]> filled = fillBlocks(nodesOf(r.allocation()), r.expectedEnd());
                holds.computeIfAbsent(r.id(), k -> new ArrayList<>()).addAll(filled);
            }
        }
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

    Plan run() {
        holdRunning();

        List<Entry> order = new ArrayList<>(snapshot.pending().size());
        double threshold = reservationThreshold();
        for (PendingJob job : snapshot.pending()) {
            int tier = 0;
            for (String name : job.partitions()) {
                Cluster.Part part = c.partsByName.get(name);
                if (part != null) {
                    tier = Math.max(tier, part.tier());
                }
            }
            boolean starving = policy.starvationSeconds() > 0
                    && now - job.eligibleFrom() >= policy.starvationSeconds();
            boolean selected = policy.selectiveReservations() && slowdownSoFar(job) >= threshold;
            order.add(new Entry(job, priorities.of(job, tier), tier, starving, selected));
        }
        order.sort(Cycle::byPriority);
        if (quotas.active()) {
            // Jobs that run within their account's guarantee come before those that would go beyond it
            // (as Kueue orders borrowing workloads last): what a reclaim frees goes to its owner.
            List<Entry> beyond = new ArrayList<>();
            List<Entry> within = new ArrayList<>(order.size());
            for (Entry e : order) {
                long[] asked = quotas.requested(e.job.request());
                boolean gpuless = java.util.Arrays.stream(asked).allMatch(n -> n == 0);
                (gpuless || quotas.underGuarantee(e.job.account(), asked) ? within : beyond).add(e);
            }
            within.addAll(beyond);
            order = within;
        }

        List<Start> starts = new ArrayList<>();
        List<Waiting> waiting = new ArrayList<>();
        for (Entry e : order) {
            decide(e, starts, waiting);
        }
        return new Plan(now, starts, waiting, preemptions,
                quotas.active() ? quotas.borrowingJobs() : java.util.Set.of(),
                quotas.active() ? quotas.borrowedAt() : java.util.Map.of());
    }

    /** A job's bounded slowdown if it started now and ran its run estimate. */
    private double slowdownSoFar(PendingJob job) {
        long run = job.runEstimate();
        long waited = Math.max(0, now - job.eligibleFrom());
        return (double) (waited + run) / Math.max(run, Policy.SLOWDOWN_TAU_SECONDS);
    }

    /**
     * The slowdown from which a blocked job is reserved whatever the depth: the policy's threshold,
     * raised with adaptive reservations to the mean slowdown so far of the jobs that could start now
     * (not held, eligible); infinite when reservations are not selective.
     */
    private double reservationThreshold() {
        if (!policy.selectiveReservations()) {
            return Double.POSITIVE_INFINITY;
        }
        double threshold = policy.reserveSlowdown();
        if (policy.adaptiveReservations()) {
            double sum = 0;
            int n = 0;
            for (PendingJob job : snapshot.pending()) {
                if ((job.heldBy() == null || job.heldBy() == PendingReason.NONE) && job.eligibleFrom() <= now) {
                    sum += slowdownSoFar(job);
                    n++;
                }
            }
            if (n > 0) {
                threshold = Math.max(threshold, sum / n);
            }
        }
        return threshold;
    }

    /**
     * For {@link StartEstimator}: loads the profile as {@code plan} left it (the running jobs less
     * those it preempts, its starts until their ends, its reservations) instead of planning.
     */
    void replay(Plan plan) {
        holdRunning();
        for (Preemption p : plan.preemptions()) {
            if (holds.containsKey(p.victim())) {
                release(snapshot.running().stream().filter(r -> r.id().equals(p.victim())).findFirst().orElseThrow());
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

    /** Where {@link #placeEarliest} put a job: from {@code start}, in {@code partition}, on {@code nodes}. */
    record Placed(long start, String partition, List<String> nodes) {
    }

    /**
     * For {@link StartEstimator}: the earliest time at or after {@code notBefore} the job could start
     * in one of its partitions for its whole time limit, with resources held for it from then on so
     * that jobs estimated after it queue behind it; null when it never could. A job bound to an
     * advance reservation is placed on its nodes, from its start, and must start before its end.
     */
    Placed placeEarliest(PendingJob job, long notBefore) {
        Held own = null;
        if (job.reservation() != null) {
            own = heldByName.get(job.reservation());
            if (own == null || own.reservation().end() <= now) {
                return null;
            }
            notBefore = Math.max(notBefore, own.reservation().start());
        }
        List<Shape> candidates = new ArrayList<>(job.partitions().size());
        candidates(job, candidates);
        long duration = job.timeLimitSeconds();
        long bestStart = Long.MAX_VALUE;
        Shape bestShape = null;
        int[] bestNodes = null;
        this.notBefore = Math.max(now, notBefore);
        this.ownHeld = own;
        try {
            for (Shape s : candidates) {
                long[] startOut = new long[1];
                int[] chosen = earliest(s, duration, startOut);
                if (chosen != null && startOut[0] < bestStart) {
                    bestStart = startOut[0];
                    bestShape = s;
                    bestNodes = chosen;
                }
            }
        } finally {
            this.notBefore = now;
            this.ownHeld = null;
        }
        if (bestShape == null || (own != null && bestStart >= own.reservation().end())) {
            return null;
        }
        long end = Math.addExact(bestStart, duration);
        List<String> names = holdFor(bestShape, bestNodes, bestStart, end);
        if (index != null) {
            for (int i : bestNodes) {
                index.changed(i, bestStart, end);
            }
        }
        return new Placed(bestStart, c.parts[bestShape.partition()].name(), names);
    }

    /**
     * For {@link StartEstimator}: places the job again where an earlier pass put it (in
     * {@code partition}, on {@code nodes}) at the first time, from {@code start} on (or from when it
     * may start, if later), that those nodes can all take it for its whole time limit in the profile
     * as it is now; null, with nothing held, when the job may no longer run there or they never can.
     */
    Placed placeAgain(PendingJob job, long start, String partition, List<String> nodes) {
        Cluster.Part part = c.partsByName.get(partition);
        if (part == null || !job.partitions().contains(partition)) {
            return null;
        }
        List<Shape> candidates = new ArrayList<>(job.partitions().size());
        candidates(job, candidates);
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
        this.ownHeld = own;
        try {
            boolean fits = true;
            long end = Math.addExact(from, duration);
            for (int k = 0; k < chosen.length && fits; k++) {
                int i = chosen[k];
                fits = a.fitsDuring(i, from, end, shape.needCpu(c, i), shape.needMem(c, i), shape.needGpu(c, i))
                        && clearOfReservations(i, from, duration);
            }
            if (fits) {
                return new Placed(from, partition, holdFor(shape, chosen, from, end));
            }
        } finally {
            this.ownHeld = null;
        }
        // Else the first time from then on that all of its nodes can take it for its whole limit.
        List<long[]> common = new ArrayList<>();
        common.add(new long[] {from, Availability.FOREVER});
        this.notBefore = from;
        this.ownHeld = own;
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
                    return null;
                }
            }
        } finally {
            intervals.clear();
            this.notBefore = now;
            this.ownHeld = null;
        }
        long begin = common.get(0)[0];
        if (own != null && begin >= own.reservation().end()) {
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
    Placed placeRough(PendingJob job, long notBefore) {
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
        candidates(job, candidates);
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
    void indexFreeNodes() {
        index = new FreeIndex(a);
    }

    /**
     * For {@link StartEstimator}, after the profile is loaded: {@link #placeEarliest} from now on
     * reads nodes in order of a lower bound on their earliest start and stops as soon as no node
     * left could start sooner (same results as reading every node, see {@link #earliestByOrder}).
     */
    void orderNodesByEarliest() {
        byEarliest = new java.util.IdentityHashMap<>();
        drawn = new BitSet(c.size);
    }

    /** For {@link StartEstimator}: holds a reservation the plan made, on the nodes it names. */
    void replayReservation(PendingJob job, Waiting w) {
        Cluster.Part part = c.partsByName.get(w.partition());
        Shape shape = layoutOf(job.request()).shapes[part.index()];
        int[] nodes = new int[w.reservedNodes().size()];
        for (int k = 0; k < nodes.length; k++) {
            nodes[k] = c.nodeIndex.get(w.reservedNodes().get(k));
        }
        long start = w.expectedStart().getAsLong();
        holdFor(shape, nodes, start, Math.addExact(start, job.timeLimitSeconds()));
    }

    /** Partition tier, then starving jobs oldest first, then priority, then submit time, then job id. */
    private static int byPriority(Entry x, Entry y) {
        int c = Integer.compare(y.tier, x.tier);
        if (c == 0) {
            c = Boolean.compare(y.starving, x.starving);
        }
        if (c == 0 && x.starving) {
            c = Long.compare(x.job.eligibleFrom(), y.job.eligibleFrom());
        }
        if (c == 0) {
            c = Long.compare(y.priority.value(), x.priority.value());
        }
        if (c == 0) {
            c = Long.compare(x.job.submitTime(), y.job.submitTime());
        }
        return c != 0 ? c : x.job.id().compareTo(y.job.id());
    }

    private void decide(Entry e, List<Start> starts, List<Waiting> waiting) {
        PendingJob job = e.job;
        if (job.heldBy() != null && job.heldBy() != PendingReason.NONE) {
            waiting.add(waiting(job, job.heldBy(), e.priority));
            return;
        }
        if (job.eligibleFrom() > now) {
            waiting.add(waiting(job, PendingReason.BEGIN_TIME, e.priority));
            return;
        }
        Held own = null;
        if (job.reservation() != null) {
            own = heldByName.get(job.reservation());
            if (own == null || own.reservation().start() > now || own.reservation().end() <= now) {
                waiting.add(waiting(job, PendingReason.RESERVATION, e.priority));
                return;
            }
        }
        List<Shape> candidates = new ArrayList<>(job.partitions().size());
        PendingReason firstNo = candidates(job, candidates);
        if (candidates.isEmpty()) {
            waiting.add(waiting(job, firstNo, e.priority));
            return;
        }
        candidates.sort(Comparator.comparingInt((Shape s) -> -c.parts[s.partition()].tier()));
        Tres tres = tresOf(candidates.get(0));
        PendingReason limit = Limits.perJob(limits.qos(job.qos()), job.timeLimitSeconds(), tres);
        if (limit == null) {
            limit = limits.check(job, tres);
        }
        if (limit == null && quotas.active()) {
            // Before placing it: a job its quota refuses neither starts nor reserves what others may use.
            long[] asked = quotas.requested(job.request());
            limit = quotas.refusal(job.account(), asked, quotas.classify(job.account(), asked));
        }
        if (limit != null) {
            waiting.add(waiting(job, limit, e.priority));
            return;
        }

        if (job.request().sharesGpus()) {
            decideShared(job, candidates, own, e.priority, starts, waiting);
            return;
        }
        long duration = job.timeLimitSeconds();
        long end = Math.addExact(now, duration);
        // What it must fit before: its limit, or with backfill on predictions its predicted end.
        long fit = policy.predictBackfill() ? Math.addExact(now, job.runEstimate()) : end;
        PendingReason reason = null;
        boolean switchWait = false;
        for (Shape shape : candidates) {
            int p = shape.partition();
            if (blocked[p] && !policy.backfill()) {
                reason = reason == null ? PendingReason.PRIORITY : reason;
                continue;
            }
            // A job that names nodes fails for its own reasons: failures of other jobs say nothing of it.
            // A job with --time-min fails for sure only where even its shortest limit failed.
            long shortest = shortestLimit(job, duration);
            PendingReason known = own == null && !shape.restricted()
                    ? knownFailure(shape, Math.min(shortest, fit - now)) : null;
            if (known != null) {
                reason = worse(reason, known);
                blocked[p] = true;
                continue;
            }
            restrict(own, end);
            int[] chosen = tryNow(shape, fit);
            long until = end;
            long holdUntil = fit;
            PendingReason why = null;
            if (chosen == null) {
                // Priority when only reservations for jobs ahead stand in the way; Resources otherwise;
                // maintenance when an advance reservation with MAINT keeps nodes that would do.
                int need = shape.others();
                why = requiredWhy != null ? requiredWhy
                        : keptForMaintenance && baseFit + keptForReservation >= need
                        ? PendingReason.RESERVED_FOR_MAINTENANCE
                        : baseFit >= need && usable < need ? PendingReason.PRIORITY
                        : usable >= need && c.blockCount > 0 && (shape.inOneBlock() || shape.segmented()
                                || shape.topo())
                        ? PendingReason.TOPOLOGY_WAIT
                        : PendingReason.RESOURCES;
                if (shortest < duration) {
                    long limitFits = longestFitting(own, shape, shortest, duration);
                    if (limitFits > 0) {
                        until = Math.addExact(now, limitFits);
                        holdUntil = Math.min(fit, until);
                        restrict(own, until);
                        chosen = tryNow(shape, holdUntil);
                    }
                }
            }
            if (chosen != null) {
                Shape placed = shape;
                Tres charged = tres;
                Shape more = grown(job, shape, until, own);
                if (more != null) {
                    int[] wider = tryNow(more, holdUntil);
                    if (wider != null) {
                        placed = more;
                        chosen = wider;
                        charged = tresOf(more);
                    }
                }
                if (waitsForSwitches(job, placed, chosen)) {
                    // It could start now, on more leaf switches than it asked for: it waits, holding nothing.
                    switchWait = true;
                    continue;
                }
                Start started = start(job, placed, chosen, until, holdUntil, blocked[p], e.priority);
                if (quotas.active()) {
                    // Placed: now the GPU types are known, so typed guarantees count exactly.
                    long[] need = quotas.need(started.allocation());
                    int kind = quotas.classify(job.account(), need);
                    PendingReason refused = quotas.refusal(job.account(), need, kind);
                    if (refused != null) {
                        unhold(started, holdUntil);
                        waiting.add(waiting(job, refused, e.priority));
                        return;
                    }
                    quotas.charge(job.id(), job.account(), need, kind);
                }
                starts.add(started);
                limits.charge(job.user(), job.account(), job.qos(), charged);
                return;
            }
            if (own == null && !shape.restricted()) {
                remember(shape, fit - now, why);
            }
            reason = worse(reason, why);
            blocked[p] = true;
        }
        if (switchWait) {
            waiting.add(waiting(job, PendingReason.TOPOLOGY_WAIT, e.priority));
            return;
        }
        if (quotas.active() && own == null) {
            // Reclaim acts across accounts and comes before QOS preemption.
            Waiting reclaiming = reclaim(job, candidates, end, e.priority);
            if (reclaiming != null) {
                waiting.add(reclaiming);
                return;
            }
        }
        Qos qos = limits.qos(job.qos());
        if (qos != null && !qos.preempts().isEmpty() && own == null) {
            Start preempting = preempt(job, qos, candidates, end, blocked, e.priority);
            if (preempting != null) {
                starts.add(preempting);
                limits.charge(job.user(), job.account(), job.qos(), tres);
                return;
            }
        }
        // A job in an advance reservation waits for its nodes without holding others in the profile.
        Waiting reserved = own == null ? reserve(job, candidates, duration, reason, e.priority, e.starving || e.selected) : null;
        waiting.add(reserved != null ? reserved : waiting(job, reason, e.priority));
    }

    /**
     * A job on MIG instances or shards: it starts now on the first node of its partitions (highest
     * tier first) that has them free, or waits for resources, reserving nothing (see {@link SharedGpus}).
     */
    private void decideShared(PendingJob job, List<Shape> candidates, Held own, Priority priority, List<Start> starts,
            List<Waiting> waiting) {
        long end = Math.addExact(now, job.timeLimitSeconds());
        Request r = job.request();
        PendingReason reason = null;
        for (Shape shape : candidates) {
            int p = shape.partition();
            if (blocked[p] && !policy.backfill()) {
                reason = worse(reason, PendingReason.PRIORITY);
                continue;
            }
            restrict(own, end);
            for (int i = shape.candidates().nextSetBit(0); i >= 0; i = shape.candidates().nextSetBit(i + 1)) {
                if (!c.up.get(i) || (onlyAllowed && !allow.get(i)) || deny.get(i) || shape.excludes(i)
                        || (shape.required().length > 0 && !shape.requires(i))) {
                    continue;
                }
                int cpus = shape.needCpu(c, i);
                long mem = shape.needMem(c, i);
                SharedGpus.Pick pick = shared.pick(i, r, cpus, mem, end);
                if (pick != null) {
                    NodeAllocation alloc = shared.take(i, r, pick, cpus, mem, end);
                    starts.add(new Start(job.id(), c.parts[p].name(), now, end, List.of(alloc), blocked[p], priority));
                    limits.charge(job.user(), job.account(), job.qos(), Tres.of(List.of(alloc)));
                    return;
                }
            }
            reason = worse(reason, shape.required().length > 0 ? PendingReason.REQ_NODE_NOT_AVAIL
                    : PendingReason.RESOURCES);
            blocked[p] = true;
        }
        waiting.add(waiting(job, reason == null ? PendingReason.RESOURCES : reason, priority));
    }

    /**
     * Adds to {@code out} the job's shape in each of its partitions it could run in; returns why it
     * cannot run in the first one it cannot (null when it can in all).
     */
    private PendingReason candidates(PendingJob job, List<Shape> out) {
        Layout layout = layoutOf(job.request());
        PendingReason firstNo = null;
        for (String name : job.partitions()) {
            Cluster.Part part = c.partsByName.get(name);
            PendingReason no;
            if (part == null) {
                no = PendingReason.PARTITION_CONFIG;
            } else if (!part.up()) {
                no = PendingReason.PARTITION_DOWN;
            } else if (part.maxTime() > 0 && job.timeLimitSeconds() > part.maxTime()) {
                no = PendingReason.PARTITION_TIME_LIMIT;
            } else {
                no = layout.no[part.index()];
                if (no == null) {
                    out.add(layout.shapes[part.index()]);
                }
            }
            if (no != null && firstNo == null) {
                firstNo = no;
            }
        }
        return firstNo;
    }

    /**
     * Starts {@code job} now by stopping running jobs of the QOS its own may preempt: the youngest
     * first until it fits, then as few as possible (each victim that is not needed after all is
     * kept running). Null, with nothing changed, when even all of them would not make room.
     */
    private Start preempt(PendingJob job, Qos qos, List<Shape> candidates, long end, boolean[] blockedParts,
            Priority priority) {
        List<RunningJob> pool = new ArrayList<>();
        for (RunningJob r : snapshot.running()) {
            if (!preempted.contains(r.id()) && qos.preempts().contains(r.qos()) && holds.containsKey(r.id())
                    && (!quotas.active() || quotas.member(r.account()).equals(quotas.member(job.account())))) {
                // With guarantees, QOS preemption acts within what the job's own account may use.
                pool.add(r);
            }
        }
        if (pool.isEmpty()) {
            return null;
        }
        pool.sort(Comparator.comparingLong(RunningJob::startTime).reversed().thenComparing(RunningJob::id,
                Comparator.reverseOrder()));
        List<RunningJob> taken = new ArrayList<>();
        Shape fit = null;
        for (RunningJob victim : pool) {
            release(victim);
            taken.add(victim);
            fit = fittingShape(candidates, end);
            if (fit != null) {
                break;
            }
        }
        if (fit == null) {
            taken.forEach(this::rehold);
            return null;
        }
        // As few as possible: keep running every victim the job fits without, in the order they were taken.
        for (int k = 0; k < taken.size() && taken.size() > 1; k++) {
            RunningJob victim = taken.get(k);
            rehold(victim);
            if (fittingShape(List.of(fit), end) != null) {
                taken.remove(k);
                k--;
            } else {
                release(victim);
            }
        }
        restrict(null, end);
        int[] nodes = tryNow(fit, end);
        if (nodes == null) {
            taken.forEach(this::rehold);
            return null;
        }
        for (RunningJob victim : taken) {
            preempted.add(victim.id());
            preemptions.add(new Preemption(victim.id(), job.id(), qos.preemptMode()));
        }
        return start(job, fit, nodes, end, end, blockedParts[fit.partition()], priority);
    }

    /**
     * A job of an account under its guarantee that cannot start because others borrow the guarantee
     * (issue 16): counts the jobs already told to stop as gone; if that is not enough, chooses more
     * of the jobs borrowing across the boundary of the account whose guarantee it runs within (at
     * one of its ancestors, from outside its sub-tree) that ran the minimum run time (youngest
     * first, the least run time lost, then as few as possible) and plans to stop them. The job
     * itself waits (reason {@link PendingReason#QUOTA_RECLAIM}) until they end: after their grace
     * time, in a later cycle.
     * Null when the job is not under its guarantee, or stopping every borrower would not make room.
     */
    private Waiting reclaim(PendingJob job, List<Shape> candidates, long end, Priority priority) {
        long[] asked = quotas.requested(job.request());
        if (!quotas.underGuarantee(job.account(), asked)) {
            return null;
        }
        List<RunningJob> going = new ArrayList<>();
        List<RunningJob> pool = new ArrayList<>();
        boolean tooYoung = false;
        for (RunningJob r : snapshot.running()) {
            if (preempted.contains(r.id()) || !holds.containsKey(r.id())) {
                continue;
            }
            if (quotas.stopping(r.id())) {
                going.add(r);
            } else if (quotas.borrowsFrom(r, job.account(), asked)) {
                if (quotas.ranMinimum(r, now)) {
                    pool.add(r);
                } else {
                    tooYoung = true;
                }
            }
        }
        if (going.isEmpty() && pool.isEmpty()) {
            return tooYoung ? waiting(job, PendingReason.QUOTA_RECLAIM, priority) : null;
        }
        going.forEach(this::release);
        Shape fit = fittingShape(candidates, end);
        List<RunningJob> taken = new ArrayList<>();
        if (fit == null) {
            // The nearest borrowers first (on the guarantee the job runs within, then higher up), then the youngest.
            Map<JobId, Integer> distance = new HashMap<>();
            pool.forEach(r -> distance.put(r.id(), quotas.borrowDistance(r, job.account(), asked)));
            pool.sort(Comparator.comparingInt((RunningJob r) -> distance.get(r.id()))
                    .thenComparing(Comparator.comparingLong(RunningJob::startTime).reversed())
                    .thenComparing(RunningJob::id, Comparator.reverseOrder()));
            for (RunningJob victim : pool) {
                release(victim);
                taken.add(victim);
                fit = fittingShape(candidates, end);
                if (fit != null) {
                    break;
                }
            }
            if (fit != null) {
                for (int k = 0; k < taken.size() && taken.size() > 1; k++) {
                    RunningJob victim = taken.get(k);
                    rehold(victim);
                    if (fittingShape(List.of(fit), end) != null) {
                        taken.remove(k);
                        k--;
                    } else {
                        release(victim);
                    }
                }
            }
        }
        // The victims hold their resources until they really end: nothing else gets them this cycle.
        going.forEach(this::rehold);
        taken.forEach(this::rehold);
        if (fit == null) {
            return tooYoung || !going.isEmpty() ? waiting(job, PendingReason.QUOTA_RECLAIM, priority) : null;
        }
        for (RunningJob victim : taken) {
            preempted.add(victim.id());
            preemptions.add(new Preemption(victim.id(), job.id(), Preemption.Mode.REQUEUE, true));
        }
        return waiting(job, PendingReason.QUOTA_RECLAIM, priority);
    }

    /** Gives back what {@link #start} held for a start that is not made after all. */
    private void unhold(Start started, long holdUntil) {
        for (NodeAllocation alloc : started.allocation()) {
            int i = c.nodeIndex.get(alloc.node());
            long mask = 0;
            for (int g : alloc.gpuIndices()) {
                mask |= 1L << g;
            }
            a.release(i, alloc.cpus(), alloc.memoryMb(), mask, holdUntil);
        }
    }

    private Shape fittingShape(List<Shape> candidates, long end) {
        for (Shape shape : candidates) {
            restrict(null, end);
            if (tryNow(shape, end) != null) {
                return shape;
            }
        }
        return null;
    }

    private void release(RunningJob victim) {
        for (long[] h : holds.get(victim.id())) {
            a.release((int) h[0], (int) h[1], h[2], h[3], h[4]);
        }
    }

    private void rehold(RunningJob victim) {
        for (long[] h : holds.get(victim.id())) {
            a.hold((int) h[0], (int) h[1], h[2], h[3], h[4]);
        }
    }

    /** The shortest time limit the job accepts: its --time-min when that is below its limit. */
    private static long shortestLimit(PendingJob job, long duration) {
        long min = job.request().timeMinSeconds();
        return min > 0 && min < duration ? min : duration;
    }

    /**
     * The longest limit from {@code shortest} up to (not including) {@code duration} with which the
     * shape fits now, or 0 when even the shortest does not (Slurm's --time-min). Fitting is monotone
     * in the limit (a shorter run overlaps fewer reservations), so a binary search finds it.
     */
    private long longestFitting(Held own, Shape shape, long shortest, long duration) {
        restrict(own, Math.addExact(now, shortest));
        if (tryNow(shape, Math.addExact(now, shortest)) == null) {
            return 0;
        }
        long lo = shortest;
        long hi = duration - 1;
        while (lo < hi) {
            long mid = lo + (hi - lo + 1) / 2;
            restrict(own, Math.addExact(now, mid));
            if (tryNow(shape, Math.addExact(now, mid)) != null) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * For a job of {@code -N min-max} that just fit on its minimum: the shape on as many nodes as are
     * usable now, up to its maximum (and no more nodes than tasks when it asked for more tasks than its
     * minimum; with one task per node it gets one task on each node it gets), within its
     * limits; null when it cannot grow. Each node's share only shrinks as the count grows, so the
     * nodes usable for the minimum are usable for this.
     */
    private Shape grown(PendingJob job, Shape shape, long until, Held own) {
        Request r = job.request();
        if (r.maxNodes() <= shape.nodes() || shape.restricted()) {
            return null;
        }
        int most = Math.min(r.maxNodes(), usable + shape.required().length);
        if (r.tasks() > shape.nodes()) {
            // More tasks than nodes were asked for: every node needs one.
            most = Math.min(most, r.tasks());
        }
        if (most <= shape.nodes()) {
            return null;
        }
        Shape more = Shape.of(r.toBuilder().nodes(most).build(), c.parts[shape.partition()], c);
        Tres tres = tresOf(more);
        if (Limits.perJob(limits.qos(job.qos()), Math.subtractExact(until, now), tres) != null
                || limits.check(job, tres) != null) {
            return null;
        }
        restrict(own, until);
        return more;
    }

    /**
     * Whether a job that asked for at most N leaf switches should keep waiting rather than start on
     * {@code chosen}: they span more, and it has waited less than its switch wait since it became
     * eligible (Slurm's --switches=N@max-time).
     */
    private boolean waitsForSwitches(PendingJob job, Shape shape, int[] chosen) {
        if (shape.switches() == 0 || Placement.leavesSpanned(c, chosen) <= shape.switches()) {
            return false;
        }
        long waited = now - job.eligibleFrom();
        return waited < job.request().switchWaitSeconds();
    }

    /**
     * RESOURCES says more than PRIORITY: the job would not fit even if nothing were reserved; a node
     * the job named being unavailable says more than both.
     */
    private static PendingReason worse(PendingReason a, PendingReason b) {
        if (a == null) {
            return b;
        }
        if (a == PendingReason.RESERVED_FOR_MAINTENANCE || b == PendingReason.RESERVED_FOR_MAINTENANCE) {
            return PendingReason.RESERVED_FOR_MAINTENANCE;
        }
        if (a == PendingReason.REQ_NODE_NOT_AVAIL || b == PendingReason.REQ_NODE_NOT_AVAIL) {
            return PendingReason.REQ_NODE_NOT_AVAIL;
        }
        return a == PendingReason.RESOURCES || b == PendingReason.RESOURCES ? PendingReason.RESOURCES : a;
    }

    private Layout layoutOf(Request r) {
        return layouts.computeIfAbsent(r, req -> {
            Shape[] s = new Shape[c.parts.length];
            PendingReason[] no = new PendingReason[c.parts.length];
            for (int p = 0; p < s.length; p++) {
                s[p] = Shape.of(req, c.parts[p], c);
                Feasibility f = Feasibilities.check(c, s[p]);
                if (f.fits() && req.sharesGpus()) {
                    f = SharedGpus.check(c, s[p], req);
                }
                no[p] = !f.fits() ? f.reason() : upNodesSuffice(s[p]) ? null : PendingReason.REQ_NODE_NOT_AVAIL;
            }
            return new Layout(s, no);
        });
    }

    private boolean upNodesSuffice(Shape s) {
        int n = 0;
        for (int ci = 0; ci < c.classCount; ci++) {
            if (s.capableClass(c, ci)) {
                n += s.match().up()[ci];
            }
        }
        for (int i : s.excluded()) {
            if (c.up.get(i) && s.candidates().get(i) && s.capable(c, i)) {
                n--;
            }
        }
        for (int i : s.required()) {
            if (!c.up.get(i)) {
                return false;
            }
        }
        return n >= s.nodes();
    }

    private Tres tresOf(Shape s) {
        long cpus = Math.multiplyExact((long) s.tasks(), s.cpusPerTask());
        return new Tres(cpus, Math.multiplyExact(s.memPerNode(), s.nodes()), s.totalGpus(), s.nodes());
    }

    /**
     * Resources only shrink during a cycle, so a shape that did not fit now still does not, and
     * neither does any shape that needs at least as much of everything for at least as long.
     */
    private PendingReason knownFailure(Shape shape, long duration) {
        List<Failure> list = failed.get(shape.match());
        if (list != null) {
            for (Failure f : list) {
                if (duration >= f.duration && shape.dominates(f.shape)) {
                    return f.reason;
                }
            }
        }
        return null;
    }

    private void remember(Shape shape, long duration, PendingReason why) {
        List<Failure> list = failed.computeIfAbsent(shape.match(), k -> new ArrayList<>());
        // Entries the new one is smaller than are now redundant: keep the list minimal.
        list.removeIf(f -> f.duration >= duration && f.shape.dominates(shape));
        if (list.size() < MAX_FAILED_SHAPES) {
            list.add(new Failure(shape, duration, why));
        }
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
    private int[] tryNow(Shape s, long end) {
        pool.clear();
        pool.or(s.candidates());
        pool.and(c.up);
        if (onlyAllowed) {
            pool.and(allow);
        }
        keptForReservation = 0;
        requiredWhy = null;
        baseFit = 0;
        usable = 0;
        for (int i : s.excluded()) {
            pool.clear(i);
        }
        for (int i : s.required()) {
            PendingReason why = unusable(s, i, end);
            if (why == null && s.topo() && c.block[i] >= 0 && !blockFree(c.block[i], end)) {
                why = PendingReason.TOPOLOGY_WAIT;
            }
            if (why != null) {
                requiredWhy = why;
                return null;
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
        usable = count;
        if (s.topo() && c.blockCount > 0) {
            count = inFreeBlocks(count, end);
        }
        return withRequired(s, count);
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

    /** Starts the job on {@code chosen} with a limit up to {@code end}, held in the profile until {@code holdUntil}. */
    private Start start(PendingJob job, Shape s, int[] chosen, long end, long holdUntil, boolean backfilled,
            Priority priority) {
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
        return new Start(job.id(), c.parts[s.partition()].name(), now, end, allocation, backfilled, priority);
    }

    /**
     * Reserves the earliest start among the job's partitions that still take reservations (starving
     * jobs, and those selected by their slowdown, always do).
     */
    private Waiting reserve(PendingJob job, List<Shape> candidates, long duration, PendingReason reason,
            Priority priority, boolean starving) {
        long bestStart = Long.MAX_VALUE;
        Shape bestShape = null;
        int[] bestNodes = null;
        for (Shape s : candidates) {
            if (reservations[s.partition()] >= policy.reservationDepth() && !starving) {
                continue;
            }
            long[] startOut = new long[1];
            int[] nodes = earliest(s, duration, startOut);
            if (nodes != null && startOut[0] < bestStart) {
                bestStart = startOut[0];
                bestShape = s;
                bestNodes = nodes;
            }
        }
        if (bestShape == null) {
            return null;
        }
        reservations[bestShape.partition()]++;
        List<String> names = holdFor(bestShape, bestNodes, bestStart, Math.addExact(bestStart, duration));
        return new Waiting(job.id(), reason == null ? PendingReason.RESOURCES : reason, OptionalLong.of(bestStart),
                c.parts[bestShape.partition()].name(), names, priority);
    }

    /** The earliest time the shape can run for {@code duration}, and on which nodes; null if never. */
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
        for (Held h : held) {
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

    private int[] earliest(Shape s, long duration, long[] startOut) {
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
    private boolean clearOfReservations(int i, long start, long duration) {
        for (Held h : held) {
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

    private static Waiting waiting(PendingJob job, PendingReason reason, Priority priority) {
        return new Waiting(job.id(), reason, OptionalLong.empty(), null, List.of(), priority);
    }
}
