package io.gantry.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * MIG instances and GPU shards in use during one cycle, beside the whole GPUs of {@link Availability}.
 *
 * <p>A MIG instance is its own device: it is held in a mask per node and nothing else is touched. A
 * GPU with shards in use is held whole in the availability profile (its bit in
 * {@link Availability#gpuInUse}, one GPU less free) until the last of its shard jobs is planned to
 * end, so no whole-GPU job gets it and reservations see it busy; each shard job's CPUs and memory are
 * held as any job's. Shard counts per GPU never exceed the node's {@link Node#shardsPerGpu()}.
 *
 * <p>Shared jobs start only now, on one node; they reserve nothing for later (Slurm's backfill does
 * plan them, Gantry's does not yet). Only nodes that declare MIG instances or shards get state here,
 * so a cluster without them costs nothing more than before.
 */
final class SharedGpus {

    private final Cluster c;
    private final Availability a;
    /** Per node: MIG instances in use, as a mask. Null until a node shares GPUs. */
    private long[] migInUse;
    /** Per node and GPU: shards in use, and the end the GPU is held until for them. */
    private int[][] shardsUsed;
    private long[][] shardHeldUntil;

    SharedGpus(Cluster c, Availability a) {
        this.c = c;
        this.a = a;
    }

    /** What a shared job would get on one node: MIG instances, or shards of one GPU. */
    record Pick(long migMask, int shardGpu, boolean newGpu, long heldUntil) {
    }

    /** Takes what a running job holds on node {@code i}; rejects an allocation the node cannot hold. */
    void holdRunning(JobId id, int i, NodeAllocation alloc, long end) {
        Node n = c.nodes[i];
        if (!alloc.migIndices().isEmpty()) {
            long mask = 0;
            for (int m : alloc.migIndices()) {
                if (m < 0 || m >= n.migProfiles().size() || (mask & (1L << m)) != 0) {
                    throw new IllegalArgumentException("running job " + id + " holds bad MIG instance " + m + " on "
                            + n.name());
                }
                mask |= 1L << m;
            }
            ensure(i);
            if ((migInUse[i] & mask) != 0) {
                throw new IllegalArgumentException("MIG instance given twice on node " + n.name());
            }
            migInUse[i] |= mask;
        }
        if (alloc.shards() > 0) {
            int g = alloc.shardGpu();
            if (g >= c.gpus[i] || n.shardsPerGpu() == 0) {
                throw new IllegalArgumentException("running job " + id + " holds shards of bad GPU " + g + " on "
                        + n.name());
            }
            ensure(i);
            if (shardsUsed[i][g] + alloc.shards() > n.shardsPerGpu()) {
                throw new IllegalArgumentException("GPU " + g + " of node " + n.name() + " has more shards in use "
                        + "than it offers");
            }
            boolean held = shardsUsed[i][g] > 0;
            takeShards(i, g, alloc.shards(), !held, shardHeldUntil[i][g], end);
        }
    }

    /**
     * What node {@code i} could give the request now until {@code end}, besides {@code cpus} and
     * {@code memMb}, leaving every reservation whole; null when it cannot.
     */
    Pick pick(int i, Request r, int cpus, long memMb, long end) {
        Node n = c.nodes[i];
        if (!n.sharesGpus() || !a.fitsNow(i, cpus, memMb, 0)
                || (a.reserved.get(i) && !a.fitsDuring(i, a.now, end, cpus, memMb, 0))) {
            return null;
        }
        if (r.migCount() > 0) {
            long used = migInUse == null ? 0 : migInUse[i];
            long mask = 0;
            int got = 0;
            List<String> profiles = n.migProfiles();
            for (int m = 0; m < profiles.size() && got < r.migCount(); m++) {
                if ((used & (1L << m)) == 0 && profiles.get(m).equals(r.migProfile())) {
                    mask |= 1L << m;
                    got++;
                }
            }
            return got == r.migCount() ? new Pick(mask, -1, false, 0) : null;
        }
        int k = r.shards();
        if (k > n.shardsPerGpu()) {
            return null;
        }
        // Pack onto the fullest GPU already shared, so that whole GPUs stay free for whole-GPU jobs.
        int best = -1;
        if (shardsUsed != null && shardsUsed[i] != null) {
            for (int g = 0; g < c.gpus[i]; g++) {
                int u = shardsUsed[i][g];
                if (u > 0 && u + k <= n.shardsPerGpu() && (best < 0 || u > shardsUsed[i][best])
                        && (shardHeldUntil[i][g] >= end || a.fitsDuring(i, shardHeldUntil[i][g], end, 0, 0, 1))) {
                    best = g;
                }
            }
        }
        if (best >= 0) {
            return new Pick(0, best, false, shardHeldUntil[i][best]);
        }
        if (!a.fitsNow(i, cpus, memMb, 1) || (a.reserved.get(i) && !a.fitsDuring(i, a.now, end, cpus, memMb, 1))) {
            return null;
        }
        for (int g = 0; g < c.gpus[i]; g++) {
            if ((a.gpuInUse[i] & (1L << g)) == 0) {
                return new Pick(0, g, true, 0);
            }
        }
        return null;
    }

    /** Takes {@code pick} for a job starting now until {@code end}; returns its allocation on node {@code i}. */
    NodeAllocation take(int i, Request r, Pick pick, int cpus, long memMb, long end) {
        a.hold(i, cpus, memMb, 0, end);
        ensure(i);
        List<Integer> mig = new ArrayList<>();
        for (long m = pick.migMask(); m != 0; m &= m - 1) {
            mig.add(Long.numberOfTrailingZeros(m));
        }
        migInUse[i] |= pick.migMask();
        if (pick.shardGpu() >= 0) {
            takeShards(i, pick.shardGpu(), r.shards(), pick.newGpu(), pick.heldUntil(), end);
        }
        return new NodeAllocation(c.names[i], cpus, memMb, List.of(), mig, pick.shardGpu(),
                pick.shardGpu() >= 0 ? r.shards() : 0);
    }

    /** Shards in use on GPU {@code g} of node {@code i} (for tests). */
    int shardsInUse(int i, int g) {
        return shardsUsed == null || shardsUsed[i] == null ? 0 : shardsUsed[i][g];
    }

    private void takeShards(int i, int g, int k, boolean newGpu, long heldUntil, long end) {
        if (newGpu) {
            a.hold(i, 0, 0, 1L << g, end);
            shardHeldUntil[i][g] = Math.max(end, a.now + 1);
        } else if (end > heldUntil) {
            // The GPU stays busy until the last of its shard jobs ends: keep it held that much longer.
            a.reserve(i, heldUntil, end, 0, 0, 1);
            shardHeldUntil[i][g] = end;
        }
        shardsUsed[i][g] += k;
    }

    private void ensure(int i) {
        if (migInUse == null) {
            migInUse = new long[c.size];
            shardsUsed = new int[c.size][];
            shardHeldUntil = new long[c.size][];
        }
        if (shardsUsed[i] == null) {
            shardsUsed[i] = new int[c.gpus[i]];
            shardHeldUntil[i] = new long[c.gpus[i]];
        }
    }

    /**
     * Whether some node of the shape's partition (with its features) offers the MIG profile or shard
     * count asked for; when none does, why in words.
     */
    static Feasibility check(Cluster c, Shape s, Request r) {
        int offering = 0;
        int largestShards = 0;
        for (int i = s.candidates().nextSetBit(0); i >= 0; i = s.candidates().nextSetBit(i + 1)) {
            Node n = c.nodes[i];
            if (s.excludes(i) || !n.sharesGpus()) {
                continue;
            }
            if (r.migCount() > 0) {
                int count = 0;
                for (String p : n.migProfiles()) {
                    if (p.equals(r.migProfile())) {
                        count++;
                    }
                }
                offering = Math.max(offering, count);
            } else {
                largestShards = Math.max(largestShards, n.shardsPerGpu());
            }
        }
        String part = c.parts[s.partition()].name();
        if (r.migCount() > 0 && offering < r.migCount()) {
            return Feasibility.never(PendingReason.BAD_CONSTRAINTS, offering == 0
                    ? "no node of partition " + part + " has MIG instances of profile " + r.migProfile()
                    : "the job asks for " + r.migCount() + " MIG instances of profile " + r.migProfile()
                            + " on one node; nodes of partition " + part + " have at most " + offering);
        }
        if (r.shards() > 0 && largestShards < r.shards()) {
            return Feasibility.never(PendingReason.BAD_CONSTRAINTS, largestShards == 0
                    ? "no node of partition " + part + " has GPU shards"
                    : "the job asks for " + r.shards() + " shards of one GPU; GPUs of partition " + part
                            + " have at most " + largestShards);
        }
        return Feasibility.FITS;
    }
}
