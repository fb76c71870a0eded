package io.gantry.engine;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Free resources now and in the future, per node: the free amounts at {@code now} plus, per node,
 * a short time-sorted list of changes (running jobs ending, reservations beginning and ending).
 * It is Slurm's backfill profile kept per node rather than per time slot, so a node nothing is
 * reserved on is checked in O(1) and no slot arrays of 12,500 nodes get copied.
 * Mutable; lives for one cycle.
 */
final class Availability {

    static final long FOREVER = Long.MAX_VALUE;

    final Cluster c;
    final long now;
    final int[] freeCpu;
    final long[] freeMem;
    final int[] freeGpu;
    final long[] gpuInUse;
    final BitSet hasFreeCpu;
    final BitSet hasFreeGpu;
    /** Nodes with a reservation (a future drop in free resources) on them. */
    final BitSet reserved = new BitSet();
    /** Told of every reservation made from when it is set on; null for nobody. */
    Reserved onReserve;

    /** Who is told of reservations as they are made. */
    interface Reserved {
        void reserved(int i, long start, long end, int cpus, int gpus);
    }

    /**
     * Per node, its changes in time order, {@link #S} longs each: when ({@link #T}) and the running sums of the
     * CPUs, memory and GPUs the changes up to it free ({@link #SC}, {@link #SM}, {@link #SG}; negative: take):
     * just after its change k a node has free + sum[k] (so any moment is a binary search away), and change k
     * itself is sum[k] - sum[k - 1]. One array a node, not four, and no deltas beside the sums: a pass takes
     * every running job's holds afresh, and the bytes it allocates and writes for them were a fifth of a
     * trace replay's samples.
     */
    private final long[][] ev;
    private final int[] evCount;
    private static final int S = 4;
    private static final int T = 0;
    private static final int SC = 1;
    private static final int SM = 2;
    private static final int SG = 3;
    /** Room for a running job's end and one reservation's start and end: what most nodes of a pass hold. */
    private static final int FIRST_EVENTS = 3;

    Availability(Cluster c, long now) {
        this.c = c;
        this.now = now;
        int n = c.size;
        freeCpu = c.cpus.clone();
        freeMem = c.mem.clone();
        freeGpu = c.gpus.clone();
        gpuInUse = new long[n];
        hasFreeCpu = new BitSet(n);
        hasFreeCpu.set(0, n);
        hasFreeGpu = new BitSet(n);
        for (int i = 0; i < n; i++) {
            if (c.gpus[i] > 0) {
                hasFreeGpu.set(i);
            }
        }
        ev = new long[n][];
        evCount = new int[n];
    }

    /** Takes resources now for a job already running (or just started), freed again at {@code end}. */
    void hold(int i, int cpus, long memMb, long gpuMask, long end) {
        holdUnindexed(i, cpus, memMb, gpuMask, end);
        if (freeCpu[i] == 0) {
            hasFreeCpu.clear(i);
        }
        if (freeGpu[i] == 0) {
            hasFreeGpu.clear(i);
        }
    }

    /**
     * {@link #hold} without keeping {@link #hasFreeCpu} and {@link #hasFreeGpu} up to date: for taking every
     * running job's holds into a fresh profile, followed by one {@link #reindexFree}.
     */
    void holdUnindexed(int i, int cpus, long memMb, long gpuMask, long end) {
        if ((gpuInUse[i] & gpuMask) != 0) {
            throw new IllegalArgumentException("GPU given twice on node " + c.names[i]);
        }
        int gpuCount = Long.bitCount(gpuMask);
        if (cpus > freeCpu[i] || memMb > freeMem[i] || gpuCount > freeGpu[i]
                || (c.gpus[i] < Node.MAX_GPUS && (gpuMask >>> c.gpus[i]) != 0)) {
            throw new IllegalArgumentException("node " + c.names[i] + " is over capacity");
        }
        freeCpu[i] -= cpus;
        freeMem[i] -= memMb;
        freeGpu[i] -= gpuCount;
        gpuInUse[i] |= gpuMask;
        addEvent(i, Math.max(end, now + 1), cpus, memMb, gpuCount);
    }

    /**
     * After {@link #holdUnindexed} on a fresh profile: clears, in one go, the free bits of every node a hold
     * left without a free CPU or GPU, as {@link #hold} would have one by one (a node no hold touched keeps its bits).
     */
    void reindexFree() {
        BitSet noCpu = new BitSet(c.size);
        BitSet noGpu = new BitSet(c.size);
        for (int i = 0; i < c.size; i++) {
            if (evCount[i] > 0) {
                if (freeCpu[i] == 0) {
                    noCpu.set(i);
                }
                if (freeGpu[i] == 0) {
                    noGpu.set(i);
                }
            }
        }
        hasFreeCpu.andNot(noCpu);
        hasFreeGpu.andNot(noGpu);
    }

    /**
     * Gives back now what {@link #hold} took for a job that is being preempted; a compensating event
     * at its old end keeps the profile's later figures unchanged.
     */
    void release(int i, int cpus, long memMb, long gpuMask, long end) {
        int gpuCount = Long.bitCount(gpuMask);
        freeCpu[i] += cpus;
        freeMem[i] += memMb;
        freeGpu[i] += gpuCount;
        gpuInUse[i] &= ~gpuMask;
        if (freeCpu[i] > 0) {
            hasFreeCpu.set(i);
        }
        if (freeGpu[i] > 0) {
            hasFreeGpu.set(i);
        }
        addEvent(i, Math.max(end, now + 1), -cpus, -memMb, -gpuCount);
    }

    /** Holds resources on node {@code i} from {@code start} to {@code end} for a job that will start then. */
    void reserve(int i, long start, long end, int cpus, long memMb, int gpuCount) {
        addEvent(i, start, -cpus, -memMb, -gpuCount);
        addEvent(i, end, cpus, memMb, gpuCount);
        reserved.set(i);
        if (onReserve != null) {
            onReserve.reserved(i, start, end, cpus, gpuCount);
        }
    }

    /** The lowest {@code count} free GPU indices of node {@code i}. */
    long pickGpus(int i, int count) {
        long mask = 0;
        long used = gpuInUse[i];
        for (int g = 0; g < c.gpus[i] && Long.bitCount(mask) < count; g++) {
            if ((used & (1L << g)) == 0) {
                mask |= 1L << g;
            }
        }
        if (Long.bitCount(mask) < count) {
            throw new IllegalStateException("node " + c.names[i] + " has fewer free GPUs than checked");
        }
        return mask;
    }

    boolean fitsNow(int i, int cpus, long memMb, int gpuCount) {
        return freeCpu[i] >= cpus && freeMem[i] >= memMb && freeGpu[i] >= gpuCount;
    }

    /** Whether node {@code i} has the amounts free during all of [t0, t1). */
    boolean fitsDuring(int i, long t0, long t1, int cpus, long memMb, int gpuCount) {
        if (evCount[i] == 0 || (t0 <= now && !reserved.get(i))) {
            // Without reservations free resources only grow after now, so now is the tightest moment.
            return fitsNow(i, cpus, memMb, gpuCount);
        }
        return fitsAtLater(i, t0, t1, cpus, memMb, gpuCount);
    }

    private boolean fitsAtLater(int i, long t0, long t1, int cpus, long memMb, int gpuCount) {
        long[] x = ev[i];
        int n = evCount[i];
        int k = eventsUpTo(i, t0);
        long fc = freeCpu[i] + (k > 0 ? x[(k - 1) * S + SC] : 0);
        long fm = freeMem[i] + (k > 0 ? x[(k - 1) * S + SM] : 0);
        long fg = freeGpu[i] + (k > 0 ? x[(k - 1) * S + SG] : 0);
        if (fc < cpus || fm < memMb || fg < gpuCount) {
            return false;
        }
        while (k < n && x[k * S + T] < t1) {
            long t = x[k * S + T];
            while (k < n && x[k * S + T] == t) {
                k++;
            }
            if (freeCpu[i] + x[(k - 1) * S + SC] < cpus || freeMem[i] + x[(k - 1) * S + SM] < memMb
                    || freeGpu[i] + x[(k - 1) * S + SG] < gpuCount) {
                return false;
            }
        }
        return true;
    }

    /**
     * Appends to {@code out} the start times at which node {@code i} could run the amounts for
     * {@code duration} seconds, as half-open intervals [start, end) of start times.
     */
    void startWindows(int i, long duration, int cpus, long memMb, int gpuCount, Intervals out) {
        startWindows(i, duration, cpus, memMb, gpuCount, now, FOREVER, out);
    }

    /**
     * {@link #startWindows(int, long, int, long, int, Intervals)} for start times from {@code from}
     * and before {@code until} only (a window may end later): the node's changes before
     * {@code from} are summed up at once, and the ones after the last window that starts in time
     * are not read.
     */
    void startWindows(int i, long duration, int cpus, long memMb, int gpuCount, long from, long until, Intervals out) {
        long[] x = ev[i];
        int n = evCount[i];
        long t = Math.max(from, now);
        int k = eventsUpTo(i, t);
        long fc = freeCpu[i] + (k > 0 ? x[(k - 1) * S + SC] : 0);
        long fm = freeMem[i] + (k > 0 ? x[(k - 1) * S + SM] : 0);
        long fg = freeGpu[i] + (k > 0 ? x[(k - 1) * S + SG] : 0);
        long runStart = -1;
        while (true) {
            boolean good = fc >= cpus && fm >= memMb && fg >= gpuCount;
            if (good && runStart < 0) {
                if (t >= until) {
                    return;
                }
                runStart = t;
            } else if (!good && runStart >= 0) {
                if (t - runStart >= duration) {
                    out.add(i, runStart, t - duration + 1);
                }
                runStart = -1;
            }
            if (k == n || (runStart < 0 && t >= until)) {
                break;
            }
            t = x[k * S + T];
            while (k < n && x[k * S + T] == t) {
                k++;
            }
            fc = freeCpu[i] + x[(k - 1) * S + SC];
            fm = freeMem[i] + x[(k - 1) * S + SM];
            fg = freeGpu[i] + x[(k - 1) * S + SG];
        }
        if (runStart >= 0) {
            out.add(i, runStart, FOREVER);
        }
    }

    /**
     * The earliest time at or after {@code from} at which node {@code i} could start the amounts for
     * {@code duration} seconds (as the first of {@link #startWindows}); -1 for never. Reads the
     * node's changes from {@code from} only up to that time.
     */
    long firstStart(int i, long duration, int cpus, long memMb, int gpuCount, long from) {
        long[] x = ev[i];
        int n = evCount[i];
        long t = Math.max(from, now);
        int k = eventsUpTo(i, t);
        long runStart = -1;
        while (true) {
            long fc = freeCpu[i] + (k > 0 ? x[(k - 1) * S + SC] : 0);
            long fm = freeMem[i] + (k > 0 ? x[(k - 1) * S + SM] : 0);
            long fg = freeGpu[i] + (k > 0 ? x[(k - 1) * S + SG] : 0);
            boolean good = fc >= cpus && fm >= memMb && fg >= gpuCount;
            if (good && runStart < 0) {
                runStart = t;
            } else if (!good) {
                runStart = -1;
            }
            if (k == n) {
                return runStart;
            }
            long next = x[k * S + T];
            if (runStart >= 0 && next - runStart >= duration) {
                return runStart;
            }
            t = next;
            while (k < n && x[k * S + T] == t) {
                k++;
            }
        }
    }

    /** How many changes node {@code i}'s profile has had: a count that grows with every one. */
    int changes(int i) {
        return evCount[i];
    }

    /** When node {@code i}'s {@code k}-th change (in time order) comes. */
    long changeTime(int i, int k) {
        return ev[i][k * S + T];
    }

    /** The CPUs node {@code i}'s {@code k}-th change frees (negative: takes). */
    int changeCpu(int i, int k) {
        return (int) (ev[i][k * S + SC] - (k > 0 ? ev[i][(k - 1) * S + SC] : 0));
    }

    /** The GPUs node {@code i}'s {@code k}-th change frees (negative: takes). */
    int changeGpu(int i, int k) {
        return (int) (ev[i][k * S + SG] - (k > 0 ? ev[i][(k - 1) * S + SG] : 0));
    }

    /** How many of node {@code i}'s changes come at or before {@code t}. */
    private int eventsUpTo(int i, long t) {
        long[] x = ev[i];
        int lo = 0;
        int hi = evCount[i];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (x[mid * S + T] <= t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * For {@link FreeIndex}: node {@code i}'s lowest and highest free CPUs and GPUs over each bucket
     * [edge[k], edge[k + 1]) for k from {@code kFrom} to {@code kTo}, written at index k.
     */
    void extremes(int i, long[] edge, int kFrom, int kTo, long[] minCpu, long[] maxCpu, long[] minGpu,
            long[] maxGpu) {
        long[] x = ev[i];
        int n = evCount[i];
        int e = eventsUpTo(i, edge[kFrom]);
        long fc = freeCpu[i] + (e > 0 ? x[(e - 1) * S + SC] : 0);
        long fg = freeGpu[i] + (e > 0 ? x[(e - 1) * S + SG] : 0);
        for (int k = kFrom; k <= kTo; k++) {
            long lc = fc;
            long hc = fc;
            long lg = fg;
            long hg = fg;
            long until = edge[k + 1];
            while (e < n && x[e * S + T] < until) {
                long t = x[e * S + T];
                while (e < n && x[e * S + T] == t) {
                    e++;
                }
                fc = freeCpu[i] + x[(e - 1) * S + SC];
                fg = freeGpu[i] + x[(e - 1) * S + SG];
                lc = Math.min(lc, fc);
                hc = Math.max(hc, fc);
                lg = Math.min(lg, fg);
                hg = Math.max(hg, fg);
            }
            minCpu[k] = lc;
            maxCpu[k] = hc;
            minGpu[k] = lg;
            maxGpu[k] = hg;
        }
    }

    private void addEvent(int i, long t, int dCpu, long dMem, int dGpu) {
        int n = evCount[i];
        long[] x = ev[i];
        if (x == null) {
            x = new long[FIRST_EVENTS * S];
            ev[i] = x;
        } else if (n * S == x.length) {
            x = Arrays.copyOf(x, 2 * n * S);
            ev[i] = x;
        }
        int pos = n;
        while (pos > 0 && x[(pos - 1) * S + T] > t) {
            pos--;
        }
        if (pos < n) {
            System.arraycopy(x, pos * S, x, (pos + 1) * S, (n - pos) * S);
        }
        int at = pos * S;
        x[at + T] = t;
        x[at + SC] = (pos > 0 ? x[at - S + SC] : 0) + dCpu;
        x[at + SM] = (pos > 0 ? x[at - S + SM] : 0) + dMem;
        x[at + SG] = (pos > 0 ? x[at - S + SG] : 0) + dGpu;
        for (int m = pos + 1; m <= n; m++) {
            x[m * S + SC] += dCpu;
            x[m * S + SM] += dMem;
            x[m * S + SG] += dGpu;
        }
        evCount[i] = n + 1;
    }

    /** A growable list of (node, [start, end)) start-time intervals. */
    static final class Intervals {
        int size;
        int[] node = new int[64];
        long[] start = new long[64];
        long[] end = new long[64];

        void clear() {
            size = 0;
        }

        void add(int i, long s, long e) {
            if (size == node.length) {
                node = Arrays.copyOf(node, size * 2);
                start = Arrays.copyOf(start, size * 2);
                end = Arrays.copyOf(end, size * 2);
            }
            node[size] = i;
            start[size] = s;
            end[size] = e;
            size++;
        }
    }
}
