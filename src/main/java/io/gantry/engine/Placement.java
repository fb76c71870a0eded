package io.gantry.engine;

import java.util.Arrays;

/**
 * Where a job goes among the nodes that could take it: under the lowest switch of the tree that
 * holds it (as Slurm's topology/tree), then the fewest switches at each level below, best fit (the
 * smallest switch that holds what is left, the fullest nodes first) so that big holes stay whole;
 * one block when the job asks for it, and preferably one block for multi-node GPU jobs. A job that
 * wants at most N leaf switches gets them when any switch holds it in N of its leaves.
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
        if (c.blockCount > 0 && s.segmented()) {
            return bySegments(c, a, s, usable, count, n, s.segment());
        }
        if (c.blockCount > 0 && s.topo() && !s.inOneBlock()) {
            // Bigger than a block: the fewest blocks, since it has each block it touches to itself.
            return bySegments(c, a, s, usable, count, n, 1);
        }
        int poolSize = count;
        boolean wantBlock = c.blockCount > 0 && (s.inOneBlock() || s.gpusPerNode() > 0);
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
            } else if (s.inOneBlock()) {
                return null;
            }
        }
        long[] keyed = new long[poolSize];
        for (int k = 0; k < poolSize; k++) {
            keyed[k] = (key(c, a, s, usable[k]) << 24) | usable[k];
        }
        Arrays.sort(keyed);
        return c.hasInnerSwitches() ? byTree(c, keyed, n, s.switches()) : bySwitches(c, keyed, n);
    }

    /**
     * {@code n} nodes in groups of the shape's segment, each group inside one block (Slurm's
     * --segment): blocks are taken by how many whole groups they hold, biggest first and the
     * smallest that holds the rest last, so the job spans the fewest blocks; within a block the best
     * fitting nodes. Null when the blocks do not hold enough groups.
     */
    private static int[] bySegments(Cluster c, Availability a, Shape s, int[] usable, int count, int n, int segment) {
        int groups = (n + segment - 1) / segment;
        long[] keyed = new long[count];
        int m = 0;
        for (int k = 0; k < count; k++) {
            if (c.block[usable[k]] >= 0) {
                keyed[m++] = (key(c, a, s, usable[k]) << 24) | usable[k];
            }
        }
        keyed = Arrays.copyOf(keyed, m);
        Arrays.sort(keyed);
        int[] perBlock = new int[c.blockCount];
        for (long k : keyed) {
            perBlock[c.block[(int) (k & 0xFFFFFF)]]++;
        }
        // Blocks by whole groups held, descending; the block index breaks ties.
        long[] order = new long[c.blockCount];
        int total = 0;
        for (int b = 0; b < c.blockCount; b++) {
            int held = perBlock[b] / segment;
            total += held;
            order[b] = ((long) (Integer.MAX_VALUE - held) << 32) | b;
        }
        if (total < groups) {
            return null;
        }
        Arrays.sort(order);
        int[] picks = new int[c.blockCount];
        int[] groupsOf = new int[c.blockCount];
        int picked = 0;
        boolean[] taken = new boolean[c.blockCount];
        int rem = groups;
        for (int next = 0; rem > 0; ) {
            while (taken[(int) order[next]]) {
                next++;
            }
            int pick = (int) order[next];
            if (perBlock[pick] / segment >= rem) {
                // Best fit: the smallest block that still holds the rest.
                for (int j = next + 1; j < order.length; j++) {
                    int b = (int) order[j];
                    if (perBlock[b] / segment < rem) {
                        break;
                    }
                    if (!taken[b] && perBlock[b] < perBlock[pick]) {
                        pick = b;
                    }
                }
            }
            taken[pick] = true;
            groupsOf[pick] = Math.min(rem, perBlock[pick] / segment);
            picks[picked++] = pick;
            rem -= groupsOf[pick];
        }
        // Each chosen block gives its groups' nodes, best fitting first; whole groups stay in one block.
        int[] chosen = new int[n];
        int filled = 0;
        for (int p = 0; p < picked && filled < n; p++) {
            int b = picks[p];
            int want = Math.min(groupsOf[b] * segment, n - filled);
            for (int k = 0; k < keyed.length && want > 0; k++) {
                int i = (int) (keyed[k] & 0xFFFFFF);
                if (c.block[i] == b) {
                    chosen[filled++] = i;
                    want--;
                }
            }
        }
        return chosen;
    }

    /** How many distinct leaf switches {@code nodes} span. */
    static int leavesSpanned(Cluster c, int[] nodes) {
        int[] leaves = new int[nodes.length];
        for (int k = 0; k < nodes.length; k++) {
            leaves[k] = c.leaf[nodes[k]];
        }
        return (int) Arrays.stream(leaves).distinct().count();
    }

    /**
     * The tree version of {@link #bySwitches}: the pool's nodes grouped by leaf, counted up the
     * tree; the job goes under the lowest switch that holds it (the fewest nodes on a tie: best
     * fit), and below it each level takes the fewest children that hold it. With a switch limit,
     * the lowest switch whose {@code maxLeaves} biggest leaves hold the job wins, and the leaves
     * below it are taken biggest first, so no other choice would span fewer leaves.
     */
    private static int[] byTree(Cluster c, long[] keyed, int n, int maxLeaves) {
        Pool p = new Pool(c, keyed);
        int top = -1;
        if (maxLeaves > 0) {
            top = p.lowest(n, maxLeaves);
        }
        int[] chosen = new int[n];
        if (maxLeaves > 0 && top != Pool.NONE) {
            p.takeFlat(top, n, chosen);
            return chosen;
        }
        top = p.lowest(n, 0);
        p.take(top == Pool.NONE ? -1 : top, n, chosen, 0);
        return chosen;
    }

    /** The pool's nodes by leaf group, and the count of pool nodes under each switch of the tree. */
    private static final class Pool {

        static final int NONE = -2;
        /** Above any count of nodes (indices fit in 24 bits). */
        private static final long MAX_COUNT = 1 << 24;

        final Cluster c;
        /** Leaf switch id of each group, groups numbered in the order their best node was met. */
        final int[] groupLeaf;
        final int[] groupOfLeaf;
        final int[] groupSize;
        final int[] offset;
        final int[] members;
        final int groups;
        /** Pool nodes under each switch id; the first group met under it (ties go to the better fit). */
        final int[] count;
        final int[] firstMet;
        /** Switches with pool nodes, in the order met. */
        final int[] touched;
        final int touchedCount;
        /** Scratch for {@link #fewest}: the item whose first group met is the index. */
        private final int[] itemByFirstMet;

        Pool(Cluster c, long[] keyed) {
            this.c = c;
            int size = keyed.length;
            groupOfLeaf = new int[c.leafCount];
            Arrays.fill(groupOfLeaf, -1);
            int[] leafOfGroup = new int[Math.min(size, c.leafCount)];
            int[] sizes = new int[leafOfGroup.length];
            int[] groupOfMember = new int[size];
            int g = 0;
            for (int k = 0; k < size; k++) {
                int leaf = c.leaf[(int) (keyed[k] & 0xFFFFFF)];
                if (groupOfLeaf[leaf] < 0) {
                    groupOfLeaf[leaf] = g;
                    leafOfGroup[g++] = leaf;
                }
                groupOfMember[k] = groupOfLeaf[leaf];
                sizes[groupOfLeaf[leaf]]++;
            }
            groups = g;
            groupLeaf = leafOfGroup;
            groupSize = sizes;
            offset = new int[groups + 1];
            for (int i = 0; i < groups; i++) {
                offset[i + 1] = offset[i] + groupSize[i];
            }
            int[] fill = Arrays.copyOf(offset, groups);
            members = new int[size];
            for (int k = 0; k < size; k++) {
                members[fill[groupOfMember[k]]++] = (int) (keyed[k] & 0xFFFFFF);
            }
            count = new int[c.switchCount];
            firstMet = new int[c.switchCount];
            int[] seen = new int[c.switchCount];
            int t = 0;
            for (int i = 0; i < groups; i++) {
                for (int s = groupLeaf[i]; s >= 0; s = c.parent[s]) {
                    if (count[s] == 0) {
                        firstMet[s] = i;
                        seen[t++] = s;
                    }
                    count[s] += groupSize[i];
                }
            }
            touched = seen;
            touchedCount = t;
            itemByFirstMet = new int[groups];
        }

        /**
         * The lowest switch (fewest pool nodes on a tie, then the first met) holding {@code n} pool
         * nodes, in at most {@code maxLeaves} of its leaves when that is above 0; {@link #NONE} when none.
         */
        int lowest(int n, int maxLeaves) {
            int[][] biggest = maxLeaves > 0 ? biggestLeaves(maxLeaves) : null;
            int best = NONE;
            for (int k = 0; k < touchedCount; k++) {
                int s = touched[k];
                if (count[s] < n || (biggest != null && sum(biggest[s]) < n)) {
                    continue;
                }
                if (best == NONE || c.level[s] < c.level[best]
                        || (c.level[s] == c.level[best] && (count[s] < count[best]
                        || (count[s] == count[best] && firstMet[s] < firstMet[best])))) {
                    best = s;
                }
            }
            if (best == NONE && biggest != null) {
                // No single switch: all leaves together, when their biggest do.
                int[] all = new int[maxLeaves];
                for (int i = 0; i < groups; i++) {
                    insert(all, groupSize[i]);
                }
                return sum(all) >= n ? -1 : NONE;
            }
            return best;
        }

        /** Per switch, the sizes of its {@code k} biggest leaf groups (descending, zero-padded). */
        private int[][] biggestLeaves(int k) {
            int[][] biggest = new int[c.switchCount][];
            for (int i = 0; i < groups; i++) {
                for (int s = groupLeaf[i]; s >= 0; s = c.parent[s]) {
                    if (biggest[s] == null) {
                        biggest[s] = new int[k];
                    }
                    insert(biggest[s], groupSize[i]);
                }
            }
            return biggest;
        }

        private static void insert(int[] descending, int value) {
            int i = descending.length - 1;
            if (value <= descending[i]) {
                return;
            }
            while (i > 0 && descending[i - 1] < value) {
                descending[i] = descending[i - 1];
                i--;
            }
            descending[i] = value;
        }

        private static int sum(int[] values) {
            int total = 0;
            for (int v : values) {
                total += v;
            }
            return total;
        }

        /** Whether switch {@code s} is leaf group {@code i}'s leaf or above it ({@code s} -1: the whole tree). */
        private boolean under(int i, int s) {
            for (int t = groupLeaf[i]; t >= 0; t = c.parent[t]) {
                if (t == s) {
                    return true;
                }
            }
            return s == -1;
        }

        /** Takes {@code n} nodes under {@code s} from its biggest leaves first: the fewest leaves. */
        void takeFlat(int s, int n, int[] chosen) {
            int[] items = new int[groups];
            int m = 0;
            for (int i = 0; i < groups; i++) {
                if (under(i, s)) {
                    items[m++] = groupLeaf[i];
                }
            }
            int filled = 0;
            for (long pick : fewest(Arrays.copyOf(items, m), n)) {
                int leaf = (int) (pick >>> 32);
                int want = (int) pick;
                int g = groupOfLeaf[leaf];
                System.arraycopy(members, offset[g], chosen, filled, want);
                filled += want;
            }
        }

        /** Takes {@code n} nodes under switch {@code s} (-1: under the tops), the fewest children at each level. */
        int take(int s, int n, int[] chosen, int filled) {
            if (s >= 0 && s < c.leafCount) {
                System.arraycopy(members, offset[groupOfLeaf[s]], chosen, filled, n);
                return filled + n;
            }
            int[] kids;
            if (s >= 0) {
                kids = c.children[s];
            } else {
                kids = new int[touchedCount];
                int m = 0;
                for (int k = 0; k < touchedCount; k++) {
                    if (c.parent[touched[k]] < 0) {
                        kids[m++] = touched[k];
                    }
                }
                kids = Arrays.copyOf(kids, m);
            }
            for (long pick : fewest(kids, n)) {
                filled = take((int) (pick >>> 32), (int) pick, chosen, filled);
            }
            return filled;
        }

        /**
         * Which of {@code items} (switch ids) to take how many pool nodes from, packed as
         * {@code id << 32 | want}: biggest first, and once one holds the rest, the smallest that does.
         */
        private long[] fewest(int[] items, int n) {
            // Packed (count descending, first met) so that a primitive sort orders them; the first
            // group met is distinct for switches that share no leaf, so it also names the item.
            long[] order = new long[items.length];
            int m = 0;
            for (int id : items) {
                if (count[id] > 0) {
                    order[m++] = ((long) (MAX_COUNT - count[id]) << 24) | firstMet[id];
                    itemByFirstMet[firstMet[id]] = id;
                }
            }
            order = Arrays.copyOf(order, m);
            Arrays.sort(order);
            int[] ids = new int[m];
            for (int k = 0; k < m; k++) {
                ids[k] = itemByFirstMet[(int) (order[k] & 0xFFFFFF)];
            }
            boolean[] taken = new boolean[m];
            long[] picks = new long[m];
            int picked = 0;
            int rem = n;
            int next = 0;
            while (rem > 0) {
                while (taken[next]) {
                    next++;
                }
                int pick = next;
                if (count[ids[pick]] >= rem) {
                    // Best fit: the smallest that still holds the rest.
                    for (int j = next + 1; j < m && count[ids[j]] >= rem; j++) {
                        if (!taken[j] && count[ids[j]] < count[ids[pick]]) {
                            pick = j;
                        }
                    }
                }
                taken[pick] = true;
                int want = Math.min(rem, count[ids[pick]]);
                picks[picked++] = ((long) ids[pick] << 32) | want;
                rem -= want;
            }
            return Arrays.copyOf(picks, picked);
        }
    }

    /** Lower is a better fit: for GPU jobs the node with the fewest GPUs left, for CPU jobs a node without GPUs. */
    private static long key(Cluster c, Availability a, Shape s, int i) {
        long primary = s.gpusPerNode() > 0 || s.exclusive() ? a.freeGpu[i] : c.gpus[i];
        long secondary = Math.min(a.freeCpu[i], (1 << 20) - 1);
        return (primary << 20) | secondary;
    }

    private static int[] bySwitches(Cluster c, long[] keyed, int n) {
        int[] chosen = new int[n];
        if (c.leafPerNode()) {
            // Every group holds one node, so groups go in the order met and the best-fit nodes come first:
            // the grouping below would hand back keyed's first n, at the cost of five arrays a call.
            for (int k = 0; k < n; k++) {
                chosen[k] = (int) (keyed[k] & 0xFFFFFF);
            }
            return chosen;
        }
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
