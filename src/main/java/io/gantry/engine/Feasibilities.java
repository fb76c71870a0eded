package io.gantry.engine;

import java.util.BitSet;

/** Whether a shape could ever run, were its partition empty and every node up. */
final class Feasibilities {

    private Feasibilities() {
    }

    static Feasibility check(Cluster c, Shape s) {
        Cluster.Part part = c.parts[s.partition()];
        BitSet cand = s.candidates();
        if (cand.isEmpty()) {
            return Feasibility.never(PendingReason.BAD_CONSTRAINTS,
                    "no node of partition " + part.name() + " has the GPU type and features asked for");
        }
        if (s.nodesAsked() && s.nodes() > part.nodeCount()) {
            return Feasibility.never(PendingReason.PARTITION_NODE_LIMIT, "the job needs " + s.nodes()
                    + " nodes; partition " + part.name() + " has " + part.nodeCount());
        }
        int capable = 0;
        int[] perBlock = new int[Math.max(1, c.blockCount)];
        for (int i = cand.nextSetBit(0); i >= 0; i = cand.nextSetBit(i + 1)) {
            if (s.capable(c, i)) {
                capable++;
                if (c.block[i] >= 0) {
                    perBlock[c.block[i]]++;
                }
            }
        }
        if (capable < s.nodes()) {
            return Feasibility.never(PendingReason.PARTITION_CONFIG, "requested node configuration is not available: "
                    + s.nodes() + " node(s) with " + s.cpusPerNode() + " CPUs, " + s.memPerNode() + " MB and "
                    + s.gpusPerNode() + " GPUs each; partition " + part.name() + " has " + capable);
        }
        if (s.oneBlock() && c.blockCount > 0) {
            int best = 0;
            for (int n : perBlock) {
                best = Math.max(best, n);
            }
            if (best < s.nodes()) {
                return Feasibility.never(PendingReason.PARTITION_CONFIG, "the job needs " + s.nodes()
                        + " nodes in one block; the largest block of partition " + part.name() + " has " + best);
            }
        }
        return Feasibility.FITS;
    }
}
