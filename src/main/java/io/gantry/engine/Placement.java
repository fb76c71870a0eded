package io.gantry.engine;

import java.util.Arrays;

/**
 * Where a job goes among the nodes that could take it: the fewest leaf switches, best fit (the
 * smallest switch that holds what is left, the fullest nodes first) so that big holes stay whole;
 * one block when the job asks for it, and preferably one block for multi-node GPU jobs.
 */
final class Placement {

    private Placement() {
    }

    /**
     * Chooses {@code s.nodes()} of the first {@code count} entries of {@code usable} (which it may
     * reorder), or returns null when topology rules leave too few.
     */
    static int[] choose(Cluster c, Availability a, Shape s, int[] usable, int count) {
        return choose(c, a, s, usable, count, s.nodes());
    }

    /** Like {@link #choose(Cluster, Availability, Shape, int[], int)}, for {@code n} of the shape's nodes. */
    static int[] choose(Cluster c, Availability a, Shape s, int[] usable, int count, int n) {
        if (count < n) {
            return null;
        }
        if (n == 1) {
            int best = -1;
            long bestKey = Long.MAX_VALUE;
            for (int k = 0; k < count; k++) {
                long key = key(c, a, s, usable[k]);
                if (key < bestKey) {
                    bestKey = key;
                    best = usable[k];
                }
            }
            return new int[] {best};
        }
        int poolSize = count;
        boolean wantBlock = c.blockCount > 0 && (s.oneBlock() || s.gpusPerNode() > 0);
        if (wantBlock) {
            int[] perBlock = new int[c.blockCount];
            for (int k = 0; k < count; k++) {
                int b = c.block[usable[k]];
                if (b >= 0) {
                    perBlock[b]++;
                }
            }
            int best = -1;
            for (int b = 0; b < perBlock.length; b++) {
                if (perBlock[b] >= n && (best < 0 || perBlock[b] < perBlock[best])) {
                    best = b;
                }
            }
            if (best >= 0) {
                poolSize = 0;
                for (int k = 0; k < count; k++) {
                    if (c.block[usable[k]] == best) {
                        usable[poolSize++] = usable[k];
                    }
                }
            } else if (s.oneBlock()) {
                return null;
            }
        }
        long[] keyed = new long[poolSize];
        for (int k = 0; k < poolSize; k++) {
            keyed[k] = (key(c, a, s, usable[k]) << 24) | usable[k];
        }
        Arrays.sort(keyed);
        return bySwitches(c, keyed, n);
    }

    /** Lower is a better fit: for GPU jobs the node with the fewest GPUs left, for CPU jobs a node without GPUs. */
    private static long key(Cluster c, Availability a, Shape s, int i) {
        long primary = s.gpusPerNode() > 0 || s.exclusive() ? a.freeGpu[i] : c.gpus[i];
        long secondary = Math.min(a.freeCpu[i], (1 << 20) - 1);
        return (primary << 20) | secondary;
    }

    private static int[] bySwitches(Cluster c, long[] keyed, int n) {
        int[] chosen = new int[n];
        int size = keyed.length;
        int[] groupOf = new int[size];
        int[] leafSlot = new int[c.leafCount];
        Arrays.fill(leafSlot, -1);
        int groups = 0;
        int[] groupSize = new int[Math.min(size, c.leafCount)];
        for (int k = 0; k < size; k++) {
            int leaf = c.leaf[(int) (keyed[k] & 0xFFFFFF)];
            if (leafSlot[leaf] < 0) {
                leafSlot[leaf] = groups;
                groups++;
            }
            groupOf[k] = leafSlot[leaf];
            groupSize[leafSlot[leaf]]++;
        }
        // Groups largest first; among equals the one whose best node fits best (they were met in that order).
        long[] order = new long[groups];
        for (int g = 0; g < groups; g++) {
            order[g] = ((long) (Integer.MAX_VALUE - groupSize[g]) << 31) | g;
        }
        Arrays.sort(order);
        // Members of each group, in best-fit order.
        int[] offset = new int[groups + 1];
        for (int g = 0; g < groups; g++) {
            offset[g + 1] = offset[g] + groupSize[g];
        }
        int[] fill = Arrays.copyOf(offset, groups);
        int[] members = new int[size];
        for (int k = 0; k < size; k++) {
            members[fill[groupOf[k]]++] = (int) (keyed[k] & 0xFFFFFF);
        }
        boolean[] taken = new boolean[groups];
        int rem = n;
        int filled = 0;
        int next = 0;
        while (rem > 0) {
            while (taken[(int) (order[next] & 0x7FFFFFFF)]) {
                next++;
            }
            int pick = (int) (order[next] & 0x7FFFFFFF);
            if (groupSize[pick] >= rem) {
                // Best fit: the smallest group that still holds the rest.
                for (int j = next + 1; j < groups; j++) {
                    int g = (int) (order[j] & 0x7FFFFFFF);
                    if (groupSize[g] < rem) {
                        break;
                    }
                    if (!taken[g] && groupSize[g] < groupSize[pick]) {
                        pick = g;
                    }
                }
            }
            taken[pick] = true;
            int want = Math.min(rem, groupSize[pick]);
            System.arraycopy(members, offset[pick], chosen, filled, want);
            filled += want;
            rem -= want;
        }
        return chosen;
    }
}
