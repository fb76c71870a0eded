package io.gantry.engine;

/**
 * A row of numbers (one per time bucket) that can be added to over a range and searched for the first
 * bucket holding at least an amount or the last one holding less: a segment tree with lazy adds, keeping
 * each subtree's lowest and highest value. Every operation is O(log n). For {@link RoughStarts}.
 */
final class BucketMins {

    private final int size;
    private final long[] min;
    private final long[] max;
    private final long[] lazy;

    /** A tree over {@code leaves}, whose length must be a power of two. */
    BucketMins(long[] leaves) {
        if (Integer.bitCount(leaves.length) != 1) {
            throw new IllegalArgumentException("the bucket count must be a power of two: " + leaves.length);
        }
        size = leaves.length;
        min = new long[2 * size];
        max = new long[2 * size];
        lazy = new long[2 * size];
        for (int k = 0; k < size; k++) {
            min[size + k] = leaves[k];
            max[size + k] = leaves[k];
        }
        for (int node = size - 1; node >= 1; node--) {
            min[node] = Math.min(min[2 * node], min[2 * node + 1]);
            max[node] = Math.max(max[2 * node], max[2 * node + 1]);
        }
    }

    /** Adds {@code v} to every bucket from {@code l} to {@code r}, both included. */
    void add(int l, int r, long v) {
        if (l <= r) {
            add(1, 0, size - 1, l, r, v);
        }
    }

    /** The first bucket at or after {@code from} holding at least {@code d}; -1 when none does. */
    int firstAtLeast(int from, long d) {
        return from >= size ? -1 : firstAtLeast(1, 0, size - 1, from, d);
    }

    /** The last bucket from {@code l} to {@code r} (both included) holding less than {@code d}; -1 when none does. */
    int lastBelow(int l, int r, long d) {
        return l > r ? -1 : lastBelow(1, 0, size - 1, l, r, d);
    }

    /** Every bucket's value. */
    long[] leaves() {
        for (int node = 1; node < size; node++) {
            push(node);
        }
        long[] out = new long[size];
        System.arraycopy(min, size, out, 0, size);
        return out;
    }

    private void apply(int node, long v) {
        min[node] += v;
        max[node] += v;
        if (node < size) {
            lazy[node] += v;
        }
    }

    private void push(int node) {
        if (lazy[node] != 0) {
            apply(2 * node, lazy[node]);
            apply(2 * node + 1, lazy[node]);
            lazy[node] = 0;
        }
    }

    private void pull(int node) {
        min[node] = Math.min(min[2 * node], min[2 * node + 1]);
        max[node] = Math.max(max[2 * node], max[2 * node + 1]);
    }

    private void add(int node, int nl, int nr, int l, int r, long v) {
        if (r < nl || nr < l) {
            return;
        }
        if (l <= nl && nr <= r) {
            apply(node, v);
            return;
        }
        push(node);
        int mid = (nl + nr) >>> 1;
        add(2 * node, nl, mid, l, r, v);
        add(2 * node + 1, mid + 1, nr, l, r, v);
        pull(node);
    }

    private int firstAtLeast(int node, int nl, int nr, int from, long d) {
        if (nr < from || max[node] < d) {
            return -1;
        }
        if (nl == nr) {
            return nl;
        }
        push(node);
        int mid = (nl + nr) >>> 1;
        int left = firstAtLeast(2 * node, nl, mid, from, d);
        return left >= 0 ? left : firstAtLeast(2 * node + 1, mid + 1, nr, from, d);
    }

    private int lastBelow(int node, int nl, int nr, int l, int r, long d) {
        if (r < nl || nr < l || min[node] >= d) {
            return -1;
        }
        if (nl == nr) {
            return nl;
        }
        push(node);
        int mid = (nl + nr) >>> 1;
        int right = lastBelow(2 * node + 1, mid + 1, nr, l, r, d);
        return right >= 0 ? right : lastBelow(2 * node, nl, mid, l, r, d);
    }
}
