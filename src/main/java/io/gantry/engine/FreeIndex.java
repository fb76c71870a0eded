package io.gantry.engine;

import java.util.BitSet;
import java.util.List;

/**
 * Nodes indexed by their free GPUs and CPUs over time, for {@link StartEstimator}'s search: time is
 * cut into buckets (a minute wide near now, twice as wide every {@value #PER_DOUBLING} buckets, so
 * that months ahead fit in a few hundred), and for each bucket and level ("at least g GPUs free",
 * "at least 2^j CPUs free") one bitset holds the nodes that have it free at some moment of the
 * bucket and one those that have it free throughout. A job can start in bucket k only on nodes of
 * the first kind for bucket k and of the second kind for every bucket its run covers whatever the
 * start within k: a word-wise AND over those bitsets gives every node that could take part, so the
 * exact search ({@link Availability#startWindows}) reads only those nodes' profiles instead of every
 * node's. The index only ever narrows to a superset of the nodes that fit, so the result is the
 * exact search's. Memory is not indexed (the exact search checks it).
 *
 * <p>Built because with 12,500 nodes every job read all 12,500 profiles (0.25 ms of CPU a job);
 * measured, it saved little (for one-node jobs most nodes stay candidates), so the estimator does
 * not use it by default; see BENCHMARKS.md, "Expected starts", second round.
 */
final class FreeIndex {

    /** The first buckets' width: start times closer than this are not told apart by the index. */
    static final long FIRST_WIDTH = 60;
    static final int PER_DOUBLING = 12;
    /** 60 s doubled 18 times is ~182 days wide; the buckets reach ~12 years ahead, the last one forever. */
    static final int DOUBLINGS = 18;

    private final Availability a;
    private final Cluster c;
    /** Bucket k is [edge[k], edge[k + 1]); the last edge is {@link Availability#FOREVER}. */
    final long[] edge;
    final int buckets;
    private final int words;
    private final int gpuLevels;
    private final int cpuLevels;
    /** [level][bucket][word]: levels 0..gpuLevels-1 are "at least level+1 GPUs", then "at least 2^j CPUs". */
    private final long[][][] some;
    private final long[][][] always;
    private final long[] minCpu;
    private final long[] maxCpu;
    private final long[] minGpu;
    private final long[] maxGpu;

    FreeIndex(Availability a) {
        this.a = a;
        this.c = a.c;
        buckets = PER_DOUBLING * DOUBLINGS;
        edge = new long[buckets + 1];
        edge[0] = a.now;
        long width = FIRST_WIDTH;
        for (int k = 1; k < buckets; k++) {
            edge[k] = edge[k - 1] + width;
            if (k % PER_DOUBLING == 0) {
                width *= 2;
            }
        }
        edge[buckets] = Availability.FOREVER;
        words = (c.size + 63) / 64;
        int maxGpus = 0;
        int maxCpus = 1;
        for (int i = 0; i < c.size; i++) {
            maxGpus = Math.max(maxGpus, c.gpus[i]);
            maxCpus = Math.max(maxCpus, c.cpus[i]);
        }
        gpuLevels = maxGpus;
        cpuLevels = 64 - Long.numberOfLeadingZeros(maxCpus);
        int levels = gpuLevels + cpuLevels;
        some = new long[levels][buckets][words];
        always = new long[levels][buckets][words];
        minCpu = new long[buckets];
        maxCpu = new long[buckets];
        minGpu = new long[buckets];
        maxGpu = new long[buckets];
        build();
    }

    /**
     * Every up node into the index: each node is put once per bucket at the level of its amount,
     * then each level takes in the levels above it (one bit written per node and bucket, instead of
     * one per level).
     */
    private void build() {
        int last = buckets - 1;
        for (int i = c.up.nextSetBit(0); i >= 0; i = c.up.nextSetBit(i + 1)) {
            a.extremes(i, edge, 0, last, minCpu, maxCpu, minGpu, maxGpu);
            int w = i >>> 6;
            long bit = 1L << i;
            for (int k = 0; k <= last; k++) {
                int g = (int) Math.min(maxGpu[k], gpuLevels);
                if (g > 0) {
                    some[g - 1][k][w] |= bit;
                }
                g = (int) Math.min(minGpu[k], gpuLevels);
                if (g > 0) {
                    always[g - 1][k][w] |= bit;
                }
                int j = cpuClass(maxCpu[k]);
                if (j >= 0) {
                    some[gpuLevels + j][k][w] |= bit;
                }
                j = cpuClass(minCpu[k]);
                if (j >= 0) {
                    always[gpuLevels + j][k][w] |= bit;
                }
            }
        }
        for (long[][][] bits : List.of(some, always)) {
            for (int k = 0; k <= last; k++) {
                suffixOr(bits, 0, gpuLevels, k);
                suffixOr(bits, gpuLevels, gpuLevels + cpuLevels, k);
            }
        }
    }

    /** The highest CPU level that {@code cpus} free reaches; -1 for none. */
    private int cpuClass(long cpus) {
        if (cpus <= 0) {
            return -1;
        }
        return Math.min(63 - Long.numberOfLeadingZeros(cpus), cpuLevels - 1);
    }

    private void suffixOr(long[][][] bits, int from, int to, int k) {
        for (int level = to - 2; level >= from; level--) {
            long[] into = bits[level][k];
            long[] above = bits[level + 1][k];
            for (int w = 0; w < words; w++) {
                into[w] |= above[w];
            }
        }
    }

    /** The bucket holding time {@code t} (times before now: the first). */
    int bucketOf(long t) {
        if (t < edge[1]) {
            return 0;
        }
        int lo = 1;
        int hi = buckets - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (edge[mid] <= t) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Node {@code i}'s profile changed in [start, end): reads it again for the buckets that overlap. */
    void changed(int i, long start, long end) {
        if (!c.up.get(i)) {
            return;
        }
        refresh(i, bucketOf(start), bucketOf(end));
    }

    private void refresh(int i, int kFrom, int kTo) {
        a.extremes(i, edge, kFrom, kTo, minCpu, maxCpu, minGpu, maxGpu);
        int w = i >>> 6;
        long bit = 1L << i;
        for (int k = kFrom; k <= kTo; k++) {
            for (int g = 0; g < gpuLevels; g++) {
                set(some[g][k], w, bit, maxGpu[k] > g);
                set(always[g][k], w, bit, minGpu[k] > g);
            }
            for (int j = 0; j < cpuLevels; j++) {
                set(some[gpuLevels + j][k], w, bit, maxCpu[k] >= 1L << j);
                set(always[gpuLevels + j][k], w, bit, minCpu[k] >= 1L << j);
            }
        }
    }

    private static void set(long[] bits, int w, long bit, boolean on) {
        if (on) {
            bits[w] |= bit;
        } else {
            bits[w] &= ~bit;
        }
    }

    /** The level that holds every node with {@code gpus} GPUs free; -1 for none asked, -2 when no node has that many. */
    int gpuLevel(int gpus) {
        if (gpus <= 0) {
            return -1;
        }
        return gpus > gpuLevels ? -2 : gpus - 1;
    }

    /** The level that holds every node with {@code cpus} CPUs free (rounded down to a power of two); as {@link #gpuLevel}. */
    int cpuLevel(int cpus) {
        if (cpus <= 0) {
            return -1;
        }
        int j = 63 - Long.numberOfLeadingZeros(cpus);
        return j >= cpuLevels ? -2 : gpuLevels + j;
    }

    /**
     * Into {@code out}: the nodes of {@code pool} that could be part of a start in bucket {@code k}
     * at or after {@code from} for {@code duration} seconds, given levels from {@link #gpuLevel} and
     * {@link #cpuLevel}; returns how many, stopping early (with a smaller count) once fewer than
     * {@code atLeast} are left.
     */
    int candidates(long[] pool, int k, long from, long duration, int gpuLevel, int cpuLevel, int atLeast,
            long[] out) {
        System.arraycopy(pool, 0, out, 0, words);
        int count = and(out, gpuLevel < 0 ? null : some[gpuLevel][k], cpuLevel < 0 ? null : some[cpuLevel][k]);
        if (count < atLeast) {
            return count;
        }
        // Every start in [max(from, edge[k]), edge[k + 1]) runs through [edge[k + 1], max(from, edge[k]) + duration).
        long coveredUntil = saturatedAdd(Math.max(from, edge[k]), duration);
        for (int m = k + 1; m < buckets && edge[m + 1] <= coveredUntil; m++) {
            if (gpuLevel < 0 && cpuLevel < 0) {
                break;
            }
            count = and(out, gpuLevel < 0 ? null : always[gpuLevel][m], cpuLevel < 0 ? null : always[cpuLevel][m]);
            if (count < atLeast) {
                return count;
            }
        }
        return count;
    }

    private int and(long[] out, long[] x, long[] y) {
        int count = 0;
        for (int w = 0; w < words; w++) {
            long v = out[w];
            if (x != null) {
                v &= x[w];
            }
            if (y != null) {
                v &= y[w];
            }
            out[w] = v;
            count += Long.bitCount(v);
        }
        return count;
    }

    int words() {
        return words;
    }

    static long saturatedAdd(long x, long y) {
        long r = x + y;
        return ((x ^ r) & (y ^ r)) < 0 ? Availability.FOREVER : r;
    }

    /** The nodes of {@code words} as a bitset. */
    static BitSet toBitSet(long[] words) {
        return BitSet.valueOf(words);
    }
}
