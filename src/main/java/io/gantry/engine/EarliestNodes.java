package io.gantry.engine;

import java.util.Arrays;

/**
 * The nodes of one class of requests (same nodes to choose from, same time limit, per-node needs
 * rounded down to one level), smallest first by a lower bound on the earliest time each could
 * start such a request, for {@link StartEstimator}. A min-heap of longs: the bound, relative to
 * now, in the high bits and the node index in the low {@value #NODE_BITS}, so ties break by node.
 *
 * <p>The bounds stay bounds while the estimator fills the profile (a node only gets fuller, so its
 * earliest start only moves later): an entry read from the top is computed again and, if it moved,
 * put back further down, so nothing needs telling when a node changes.
 */
final class EarliestNodes {

    static final int NODE_BITS = 24;
    private static final long NODE_MASK = (1L << NODE_BITS) - 1;
    /** Bounds further ahead are cut to this (still a lower bound): about 17,000 years. */
    private static final long MAX_OFFSET = (1L << (63 - NODE_BITS)) - 1;

    private final long now;
    private long[] heap;
    private int size;
    /**
     * Per node, how many changes its profile had when its entry was computed: while it has no more,
     * the entry is its exact earliest start and need not be computed again (see {@link #isCurrent}).
     */
    private final int[] computedAt;

    /** From {@code count} packed entries (see {@link #pack}); takes the array. */
    EarliestNodes(long now, long[] packed, int count, int nodeCount) {
        this.now = now;
        Arrays.sort(packed, 0, count); // a sorted array is a min-heap
        this.heap = packed;
        this.size = count;
        this.computedAt = new int[nodeCount];
        Arrays.fill(computedAt, -1);
    }

    /** Records that node {@code i}'s entry was computed when its profile had {@code changes} changes. */
    void computed(int i, int changes) {
        computedAt[i] = changes;
    }

    /** Whether node {@code i}'s entry was computed when its profile had {@code changes} changes, as now. */
    boolean isCurrent(int i, int changes) {
        return computedAt[i] == changes;
    }

    /** An entry for node {@code i} whose earliest start is no sooner than {@code start}. */
    static long pack(long now, long start, int i) {
        long offset = Math.min(Math.max(0, start - now), MAX_OFFSET);
        return (offset << NODE_BITS) | i;
    }

    /** Replaces every entry by the {@code count} packed ones of {@code packed} (see {@link #pack}); takes the array. */
    void reset(long[] packed, int count) {
        Arrays.sort(packed, 0, count);
        this.heap = packed;
        this.size = count;
    }

    /** The entry at heap position {@code k} (0 to size - 1, in no particular order). */
    long entryAt(int k) {
        return heap[k];
    }

    /** The node of the entry at heap position {@code k} (0 to size - 1, in no particular order). */
    int nodeAt(int k) {
        return (int) (heap[k] & NODE_MASK);
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** The smallest bound (an absolute time); the heap must not be empty. */
    long peekStart() {
        return now + (heap[0] >>> NODE_BITS);
    }

    int peekNode() {
        return (int) (heap[0] & NODE_MASK);
    }

    long peekEntry() {
        return heap[0];
    }

    /** Removes and returns the smallest entry. */
    long pop() {
        long top = heap[0];
        size--;
        if (size > 0) {
            heap[0] = heap[size];
            siftDown(0);
        }
        return top;
    }

    /** Replaces the smallest entry by {@code entry} (a later bound for the same node). */
    void replaceTop(long entry) {
        heap[0] = entry;
        siftDown(0);
    }

    void push(long entry) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, Math.max(8, size * 2));
        }
        int k = size++;
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            if (heap[parent] <= entry) {
                break;
            }
            heap[k] = heap[parent];
            k = parent;
        }
        heap[k] = entry;
    }

    static int nodeOf(long entry) {
        return (int) (entry & NODE_MASK);
    }

    private void siftDown(int k) {
        long entry = heap[k];
        int half = size >>> 1;
        while (k < half) {
            int child = 2 * k + 1;
            if (child + 1 < size && heap[child + 1] < heap[child]) {
                child++;
            }
            if (entry <= heap[child]) {
                break;
            }
            heap[k] = heap[child];
            k = child;
        }
        heap[k] = entry;
    }
}
