package io.gantry.engine;

/** Whether a shape could ever run, were its partition empty and every node up. */
final class Feasibilities {

    private Feasibilities() {
    }

    static Feasibility check(Cluster c, Shape s) {
        Cluster.Part part = c.parts[s.partition()];
        if (s.candidates().isEmpty()) {
            return Feasibility.never(PendingReason.BAD_CONSTRAINTS,
                    "no node of partition " + part.name() + " has the GPU type and features asked for");
        }
        if (s.nodesAsked() && s.nodes() > part.nodeCount()) {
            return Feasibility.never(PendingReason.PARTITION_NODE_LIMIT, "the job needs " + s.nodes()
                    + " nodes; partition " + part.name() + " has " + part.nodeCount());
        }
        int capable = 0;
        for (int ci = 0; ci < c.classCount; ci++) {
            if (s.capableClass(c, ci)) {
                capable += s.match().all()[ci];
            }
        }
        if (capable < s.nodes()) {
            return Feasibility.never(PendingReason.PARTITION_CONFIG, "requested node configuration is not available: "
                    + s.nodes() + " node(s) with " + s.cpusPerNode() + " CPUs, " + s.memPerNode() + " MB and "
                    + s.gpusPerNode() + " GPUs each; partition " + part.name() + " has " + capable);
        }
        if (s.oneBlock() && c.blockCount > 0) {
            int best = 0;
            for (int[] perClass : s.match().blockAll()) {
                int n = 0;
                for (int ci = 0; ci < c.classCount; ci++) {
                    if (s.capableClass(c, ci)) {
                        n += perClass[ci];
                    }
                }
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
