package io.gantry.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rough expected starts for the jobs {@link StartEstimator}'s budget left no search for: the free GPUs
 * and CPUs of a job's nodes (its partition, GPU type and features) summed over those nodes, in time
 * buckets of a minute or more, and a job starts in the first bucket from which the sums hold its whole
 * request for its whole time limit. What a job takes is taken from the sums, so that jobs behind it
 * queue after it. The profile is the estimator's as it stands when the first rough start is asked for;
 * every later reservation in it is taken from the sums too (the hook of {@link Availability}).
 *
 * <p>It is rough in both directions: a sum does not see that the free GPUs are spread over too many
 * nodes (fragmentation), topology requests, nodelists or advance reservations, so a start may be too
 * early; a bucket counts its lowest moment, so a start may be up to a bucket too late. A job's
 * takings are counted in full on its own nodes' sums and in proportion to the overlap on others'
 * (partitions that share nodes).
 */
final class RoughStarts implements Availability.Reserved {

    /** Buckets per sum; the width doubles (and the sums coarsen) when a job would end past the last. */
    static final int BUCKETS = 1 << 14;
    static final long MIN_WIDTH_SECONDS = 60;

    private final Availability a;
    private final Cluster c;
    private final long now;

    private final Map<Cluster.MatchKey, Pool> pools = new HashMap<>();
    /** Every rough start taken, to be taken again from sums made later. */
    private final List<Taken> taken = new ArrayList<>();

    private record Taken(Pool pool, long gpus, long cpus, long start, long end) {
    }

    /** The summed free resources of one set of nodes. */
    private final class Pool {
        final BitSet nodes;
        final int count;
        final long capGpu;
        final long capCpu;
        final Map<Pool, Integer> overlap = new HashMap<>();
        /**
         * Bucket k is [origin + k width, origin + (k + 1) width), on whole multiples of the width, so that a
         * rough time does not move from one pass to the next while nothing else changes.
         */
        long origin;
        long width;
        BucketMins gpu;
        BucketMins cpu;

        Pool(BitSet match) {
            nodes = (BitSet) match.clone();
            nodes.and(c.up);
            count = nodes.cardinality();
            long gCap = 0;
            long cCap = 0;
            long gNow = 0;
            long cNow = 0;
            int events = 0;
            long last = now;
            for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
                gCap += c.gpus[i];
                cCap += c.cpus[i];
                gNow += a.freeGpu[i];
                cNow += a.freeCpu[i];
                int n = a.changes(i);
                events += n;
                if (n > 0) {
                    last = Math.max(last, a.changeTime(i, n - 1));
                }
            }
            capGpu = gCap;
            capCpu = cCap;
            width = MIN_WIDTH_SECONDS;
            // The profile as it stands takes at most half of the buckets.
            while ((last - now) / width >= BUCKETS / 2) {
                width *= 2;
            }
            origin = Math.floorDiv(now, width) * width;
            long[] time = new long[events];
            int[] dGpu = new int[events];
            int[] dCpu = new int[events];
            int e = 0;
            for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
                for (int k = 0, n = a.changes(i); k < n; k++, e++) {
                    time[e] = Math.max(now, a.changeTime(i, k));
                    dGpu[e] = a.changeGpu(i, k);
                    dCpu[e] = a.changeCpu(i, k);
                }
            }
            int[] order = byTime(time);
            long[] g = new long[BUCKETS];
            long[] cp = new long[BUCKETS];
            long sg = gNow;
            long sc = cNow;
            int next = 0;
            for (int b = 0; b < BUCKETS; b++) {
                long begin = Math.max(now, origin + b * width);
                long end = origin + (b + 1) * width;
                // Changes at the bucket's first moment are what it starts with.
                while (next < order.length && time[order[next]] <= begin) {
                    sg += dGpu[order[next]];
                    sc += dCpu[order[next]];
                    next++;
                }
                long lowG = sg;
                long lowC = sc;
                while (next < order.length && time[order[next]] < end) {
                    long t = time[order[next]];
                    // Changes at one moment count together: a job that ends as another starts leaves no dip.
                    while (next < order.length && time[order[next]] == t) {
                        sg += dGpu[order[next]];
                        sc += dCpu[order[next]];
                        next++;
                    }
                    lowG = Math.min(lowG, sg);
                    lowC = Math.min(lowC, sc);
                }
                g[b] = lowG;
                cp[b] = lowC;
            }
            gpu = new BucketMins(g);
            cpu = new BucketMins(cp);
        }

        int bucket(long t) {
            long b = (Math.max(t, now) - origin) / width;
            return b >= BUCKETS ? BUCKETS : (int) b;
        }

        /** When bucket {@code k} begins (now, for the bucket now is in). */
        long begins(int k) {
            return Math.max(now, origin + k * width);
        }

        /** Halves the resolution: each bucket becomes the lower of two, past the old last one all is free. */
        void coarsen() {
            long wider = 2 * width;
            long newOrigin = Math.floorDiv(origin, wider) * wider;
            int offset = (int) ((origin - newOrigin) / width);
            gpu = new BucketMins(halve(gpu.leaves(), offset, capGpu));
            cpu = new BucketMins(halve(cpu.leaves(), offset, capCpu));
            width = wider;
            origin = newOrigin;
        }

        /** Takes the amounts during [start, end), coarsening first if the sums do not reach that far. */
        void take(long gpus, long cpus, long start, long end) {
            while (bucket(end - 1) >= BUCKETS) {
                coarsen();
            }
            int from = bucket(start);
            int to = bucket(end - 1);
            if (gpus != 0) {
                gpu.add(from, to, -gpus);
            }
            if (cpus != 0) {
                cpu.add(from, to, -cpus);
            }
        }

        /** How many of this pool's nodes {@code other} has. */
        int overlapWith(Pool other) {
            return overlap.computeIfAbsent(other, o -> {
                BitSet both = (BitSet) nodes.clone();
                both.and(o.nodes);
                return both.cardinality();
            });
        }
    }

    RoughStarts(Availability a, Cluster c, long now) {
        this.a = a;
        this.c = c;
        this.now = now;
    }

    /**
     * The first time from {@code from} (bucket-rounded up) at which the nodes of {@code match} have
     * {@code gpus} GPUs and {@code cpus} CPUs free in sum for {@code duration} seconds; -1 when they
     * never have that much (amounts above what the nodes have in all are taken as all of it).
     */
    long earliest(Cluster.PartMatch match, long gpus, long cpus, long from, long duration) {
        Pool p = pool(match);
        if (p.count == 0) {
            return -1;
        }
        long g = Math.min(gpus, p.capGpu);
        long cp = Math.min(cpus, p.capCpu);
        long t = Math.max(from, now);
        long span = Math.max(1, duration);
        while (true) {
            int i = p.bucket(t);
            int last = p.bucket(t + span - 1);
            if (last >= BUCKETS) {
                p.coarsen();
                continue;
            }
            // The first bucket from i on that holds both amounts.
            int j = i;
            while (true) {
                int jg = g > 0 ? p.gpu.firstAtLeast(j, g) : j;
                int jc = jg >= 0 && cp > 0 ? p.cpu.firstAtLeast(jg, cp) : jg;
                if (jc < 0 || jc == j) {
                    j = jc;
                    break;
                }
                j = jc;
            }
            if (j < 0) {
                // Not within the buckets: later, where the sums are whole again.
                t = p.origin + BUCKETS * p.width;
                p.coarsen();
                continue;
            }
            if (j > i) {
                t = p.begins(j);
                continue;
            }
            int below = Math.max(g > 0 ? p.gpu.lastBelow(i, last, g) : -1, cp > 0 ? p.cpu.lastBelow(i, last, cp) : -1);
            if (below < 0) {
                return t;
            }
            t = p.begins(below + 1);
        }
    }

    /** Takes the amounts from the nodes of {@code match} during [start, end), and in proportion from sums that share them. */
    void take(Cluster.PartMatch match, long gpus, long cpus, long start, long end) {
        Pool p = pool(match);
        Taken t = new Taken(p, Math.min(gpus, p.capGpu), Math.min(cpus, p.capCpu), start, end);
        taken.add(t);
        for (Pool q : pools.values()) {
            takeShare(q, t);
        }
    }

    @Override
    public void reserved(int i, long start, long end, int cpus, int gpus) {
        for (Pool q : pools.values()) {
            if (q.nodes.get(i)) {
                q.take(gpus, cpus, start, end);
            }
        }
    }

    private Pool pool(Cluster.PartMatch match) {
        Pool p = pools.get(match.key());
        if (p == null) {
            p = new Pool(match.nodes());
            pools.put(match.key(), p);
            for (Taken t : taken) {
                takeShare(p, t);
            }
        }
        return p;
    }

    private static void takeShare(Pool q, Taken t) {
        if (q == t.pool()) {
            q.take(t.gpus(), t.cpus(), t.start(), t.end());
            return;
        }
        int shared = t.pool().overlapWith(q);
        if (shared > 0) {
            int all = t.pool().count;
            q.take(ceilShare(t.gpus(), shared, all), ceilShare(t.cpus(), shared, all), t.start(), t.end());
        }
    }

    private static long ceilShare(long amount, int part, int whole) {
        long product = Math.multiplyExact(amount, part);
        return product / whole + (product % whole == 0 ? 0 : 1);
    }

    /**
     * Buckets twice as wide: new bucket j is the lower of old buckets 2j - offset and 2j + 1 - offset
     * (offset 1 when the old origin is not a multiple of the new width); past the old last bucket, all.
     */
    private static long[] halve(long[] leaves, int offset, long whole) {
        long[] out = new long[leaves.length];
        Arrays.fill(out, whole);
        for (int j = 0; j < leaves.length; j++) {
            int a = 2 * j - offset;
            if (a >= leaves.length) {
                break;
            }
            long low = Long.MAX_VALUE;
            if (a >= 0) {
                low = leaves[a];
            }
            if (a + 1 < leaves.length) {
                low = Math.min(low, leaves[a + 1]);
            }
            out[j] = a + 1 < leaves.length ? low : Math.min(low, whole);
        }
        return out;
    }

    /** Indices of {@code time} in time order. */
    private static int[] byTime(long[] time) {
        int n = time.length;
        long first = Long.MAX_VALUE;
        long lastTime = Long.MIN_VALUE;
        for (long t : time) {
            first = Math.min(first, t);
            lastTime = Math.max(lastTime, t);
        }
        int[] order = new int[n];
        if (n == 0) {
            return order;
        }
        if (n < (1 << 24) && lastTime - first < (1L << 39)) {
            long[] packed = new long[n];
            for (int k = 0; k < n; k++) {
                packed[k] = ((time[k] - first) << 24) | k;
            }
            Arrays.sort(packed);
            for (int k = 0; k < n; k++) {
                order[k] = (int) (packed[k] & ((1 << 24) - 1));
            }
            return order;
        }
        Integer[] boxed = new Integer[n];
        for (int k = 0; k < n; k++) {
            boxed[k] = k;
        }
        Arrays.sort(boxed, (x, y) -> Long.compare(time[x], time[y]));
        for (int k = 0; k < n; k++) {
            order[k] = boxed[k];
        }
        return order;
    }
}
