package io.gantry.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Phase 2 of a {@link QueuePass}: the pending jobs in the order they are decided (partition tier, then
 * starving jobs oldest first, then priority, then submit time, then job id), each with what the pass
 * derives from it once ({@link Entry}).
 *
 * <p>What the pass derives is derived here, in the order the snapshot lists the jobs, not in the order
 * they are decided: a job's request, partitions and strings lie near each other and near the next
 * job's, so a walk in listed order reads memory the processor has already fetched, where a walk in
 * priority order misses the cache on each. With 200,000 pending jobs the decisions spent about a fifth
 * of the cycle hashing requests they reached in priority order.
 */
final class QueueOrder {

    /**
     * A pending job, its priority, the tier it is ordered by, and whether it is {@code starving} or
     * {@code selected} (its slowdown so far reached the policy's threshold, so it is reserved whatever
     * the depth). {@code candidates}: its shapes where it could run, derived here for a job that may be
     * placed this pass (not held, eligible, in no advance reservation); null for the others, which are
     * refused before their shapes are needed. {@code chain}: the associations it counts at ({@link
     * Limits#chain}), found here rather than by its account's and user's names when it is decided. The
     * keys {@link #byPriority} compares are copied in ({@code eligible} to {@code task}): sorting reads
     * them millions of times, and through the job, its priority and its id each read was a miss.
     */
    record Entry(PendingJob job, Priority priority, int tier, boolean starving, boolean selected,
            Candidates candidates, AssocTree.Chain chain, long eligible, long value, long submit, long id, int task) {

        Entry(PendingJob job, Priority priority, int tier, boolean starving, boolean selected, Candidates candidates,
                AssocTree.Chain chain) {
            this(job, priority, tier, starving, selected, candidates, chain, job.eligibleFrom(), priority.value(),
                    job.submitTime(), job.id().id(), job.id().arrayTask());
        }
    }

    /**
     * A job's shapes in the partitions it could run in, highest tier first ({@code shapes}; empty when
     * none), and why it cannot run in the first of its partitions it cannot ({@code firstNo}; null when it
     * can in all).
     */
    record Candidates(List<Shape> shapes, PendingReason firstNo) {
    }

    private final Snapshot snapshot;
    private final Cluster c;
    private final Policy policy;
    private final long now;
    private final Priorities priorities;
    private final Limits limits;
    private final Layouts layouts;
    /** The candidates of the jobs that can run in their one partition, by their shape there. */
    private final Map<Shape, Candidates> alone = new IdentityHashMap<>();

    QueueOrder(Snapshot snapshot, Cluster c, Priorities priorities, Limits limits, Layouts layouts) {
        this.snapshot = snapshot;
        this.c = c;
        this.policy = snapshot.policy();
        this.now = snapshot.now();
        this.priorities = priorities;
        this.limits = limits;
        this.layouts = layouts;
    }

    /** The pending jobs in the order they are decided ({@link #byPriority}). */
    List<Entry> entries() {
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
            boolean placeable = (job.heldBy() == null || job.heldBy() == PendingReason.NONE)
                    && job.eligibleFrom() <= now && job.reservation() == null;
            order.add(new Entry(job, priorities.of(job, tier), tier, starving, selected,
                    placeable ? candidates(job) : null, limits.chain(job.account(), job.user())));
        }
        return sorted(order);
    }

    /**
     * {@code entries} sorted by {@link #byPriority}, as a stable sort would. A comparison sort of 200,000
     * entries makes about 3.5 million comparisons, each reading two entries scattered in memory: a fifth of
     * the cycle. So one primitive sort orders them first, by keys that pack the fields compared, in the
     * order they are compared, into the bits a long leaves beside the entry's listed index (the first field
     * that does not fit keeps its highest bits, later ones none); the comparison sort after finds runs in
     * order and mends only entries of equal keys. Entries equal by {@link #byPriority} have equal keys, so
     * they keep their listed order.
     */
    static List<Entry> sorted(List<Entry> entries) {
        int n = entries.size();
        if (n < 2) {
            return entries;
        }
        long[] min = new long[FIELDS];
        long[] max = new long[FIELDS];
        java.util.Arrays.fill(min, Long.MAX_VALUE);
        java.util.Arrays.fill(max, Long.MIN_VALUE);
        for (Entry e : entries) {
            for (int f = 0; f < FIELDS; f++) {
                long v = raw(e, f);
                min[f] = Math.min(min[f], v);
                max[f] = Math.max(max[f], v);
            }
        }
        int indexBits = 64 - Long.numberOfLeadingZeros(n - 1);
        int free = 63 - indexBits;
        int[] kept = new int[FIELDS];
        int[] dropped = new int[FIELDS];
        for (int f = 0; f < FIELDS; f++) {
            // Unsigned: the span of two longs can pass Long.MAX_VALUE.
            int bits = 64 - Long.numberOfLeadingZeros(max[f] - min[f]);
            kept[f] = Math.min(bits, free);
            dropped[f] = bits - kept[f];
            free -= kept[f];
        }
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            Entry e = entries.get(i);
            long key = 0;
            for (int f = 0; f < FIELDS; f++) {
                if (kept[f] > 0) {
                    key = key << kept[f] | (raw(e, f) - min[f]) >>> dropped[f];
                }
            }
            keys[i] = key << indexBits | i;
        }
        java.util.Arrays.sort(keys);
        long index = (1L << indexBits) - 1;
        List<Entry> sorted = new ArrayList<>(n);
        for (long key : keys) {
            sorted.add(entries.get((int) (key & index)));
        }
        sorted.sort(QueueOrder::byPriority);
        return sorted;
    }

    /** The fields {@link #byPriority} compares, as {@link #raw} gives them. */
    private static final int FIELDS = 7;

    /**
     * Field {@code f} of {@code e} as {@link #byPriority} compares it, each ascending: the tier negated, the
     * priority complemented (which cannot overflow), the eligible time only for starving entries.
     */
    private static long raw(Entry e, int f) {
        return switch (f) {
            case 0 -> -(long) e.tier;
            case 1 -> e.starving ? 0 : 1;
            case 2 -> e.starving ? e.eligible : 0;
            case 3 -> ~e.value;
            case 4 -> e.submit;
            case 5 -> e.id;
            default -> e.task;
        };
    }

    /**
     * {@code job}'s shapes in the partitions it could run in ({@link Candidates}). A job that can run in
     * its one partition shares its candidates with every job of the same shape: nothing of its own to
     * allocate, or to fetch from memory when it is decided.
     */
    Candidates candidates(PendingJob job) {
        List<Shape> shapes = new ArrayList<>(job.partitions().size());
        PendingReason firstNo = layouts.candidates(job, shapes);
        if (shapes.size() == 1 && firstNo == null) {
            return alone.computeIfAbsent(shapes.get(0), s -> new Candidates(List.of(s), null));
        }
        if (shapes.size() > 1) {
            shapes.sort(Comparator.comparingInt((Shape s) -> -c.parts[s.partition()].tier()));
        }
        return new Candidates(shapes, firstNo);
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

    /** Partition tier, then starving jobs oldest first, then priority, then submit time, then job id. */
    static int byPriority(Entry x, Entry y) {
        int c = Integer.compare(y.tier, x.tier);
        if (c == 0) {
            c = Boolean.compare(y.starving, x.starving);
        }
        if (c == 0 && x.starving) {
            c = Long.compare(x.eligible, y.eligible);
        }
        if (c == 0) {
            c = Long.compare(y.value, x.value);
        }
        if (c == 0) {
            c = Long.compare(x.submit, y.submit);
        }
        if (c == 0) {
            c = Long.compare(x.id, y.id);
        }
        return c != 0 ? c : Integer.compare(x.task, y.task);
    }
}
