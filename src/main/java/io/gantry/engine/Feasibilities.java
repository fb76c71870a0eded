package io.gantry.engine;

/** Whether a shape could ever run, were its partition empty and every node up. */
final class Feasibilities {

    private Feasibilities() {
    }

    static Feasibility check(Cluster c, Shape s) {
        Cluster.Part part = c.parts[s.partition()];
        if (!s.missing().isEmpty()) {
            return Feasibility.never(PendingReason.REQ_NODE_NOT_AVAIL, "the nodelist names "
                    + (s.missing().size() == 1 ? "node " : "nodes ") + String.join(",", s.missing())
                    + ", which the cluster does not have", Feasibility.Cause.NODELIST);
        }
        Feasibility listed = requiredNodes(c, s, part);
        if (listed != null) {
            return listed;
        }
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
        int allowed = capable - excludedCapable(c, s, -1);
        if (allowed < s.nodes()) {
            if (capable >= s.nodes()) {
                return Feasibility.never(PendingReason.PARTITION_CONFIG, "requested node configuration is not "
                        + "available: the job needs " + s.nodes() + " node(s) with " + s.cpusPerNode() + " CPUs, "
                        + s.memPerNode() + " MB and " + s.gpusPerNode() + " GPUs each; partition " + part.name()
                        + " has " + capable + ", " + (allowed == 0 ? "all" : capable - allowed + " of them")
                        + " excluded", Feasibility.Cause.EXCLUDE);
            }
            return Feasibility.never(PendingReason.PARTITION_CONFIG, unavailable(c, s, part, capable));
        }
        if (s.inOneBlock() && c.blockCount > 0) {
            return oneBlock(c, s, part);
        }
        if (s.segmented() && c.blockCount > 0) {
            return segments(c, s, part, s.segment());
        }
        if (s.topo() && c.blockCount > 0) {
            return segments(c, s, part, 1);
        }
        return Feasibility.FITS;
    }

    /**
     * Why too few nodes of the partition are big enough, in words a user acts on: which of GPUs, CPUs
     * and memory no node has as much of (with the most one has), else that no node has them together,
     * else how many such nodes there are. Memory 0 (none asked) is not mentioned.
     */
    static String unavailable(Cluster c, Shape s, Cluster.Part part, int capable) {
        int maxCpus = 0;
        long maxMem = 0;
        int maxGpus = 0;
        java.util.BitSet nodes = (java.util.BitSet) part.nodes().clone();
        nodes.and(s.candidates());
        for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
            maxCpus = Math.max(maxCpus, c.cpus[i]);
            maxMem = Math.max(maxMem, c.mem[i]);
            maxGpus = Math.max(maxGpus, c.gpus[i]);
        }
        String where = "no node in " + part.name() + (nodes.cardinality() < part.nodes().cardinality()
                ? " with the GPU type and features asked for" : "");
        java.util.List<String> lacking = new java.util.ArrayList<>();
        if (s.gpusPerNode() > maxGpus) {
            lacking.add(where + " has " + count(s.gpusPerNode(), "GPU") + "; the largest has " + maxGpus);
        }
        if (s.cpusPerNode() > maxCpus) {
            lacking.add(where + " has " + count(s.cpusPerNode(), "CPU") + "; the largest has " + maxCpus);
        }
        if (s.memPerNode() > maxMem) {
            lacking.add(where + " has " + s.memPerNode() + " MB of memory; the largest has " + maxMem + " MB");
        }
        if (!lacking.isEmpty()) {
            return String.join("; ", lacking);
        }
        String each = count(s.cpusPerNode(), "CPU") + (s.memPerNode() > 0 ? ", " + s.memPerNode() + " MB" : "")
                + (s.gpusPerNode() > 0 ? ", " + count(s.gpusPerNode(), "GPU") : "");
        if (capable == 0) {
            return where + " has " + each + " together";
        }
        return "the job needs " + count(s.nodes(), "node") + " with " + each + " each; " + part.name() + " has only "
                + capable + " such " + (capable == 1 ? "node" : "nodes");
    }

    private static String count(long n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }

    /** Every node of the nodelist must be in the partition, have what the job asks for and not be excluded. */
    private static Feasibility requiredNodes(Cluster c, Shape s, Cluster.Part part) {
        for (int i : s.required()) {
            String name = c.names[i];
            if (s.excludes(i)) {
                return Feasibility.never(PendingReason.PARTITION_CONFIG, "node " + name
                        + " is both in the nodelist and excluded", Feasibility.Cause.NODELIST);
            }
            if (!part.nodes().get(i)) {
                return Feasibility.never(PendingReason.PARTITION_CONFIG, "node " + name + " is not in partition "
                        + part.name(), Feasibility.Cause.NODELIST);
            }
            if (!s.candidates().get(i)) {
                return Feasibility.never(PendingReason.BAD_CONSTRAINTS, "node " + name
                        + " lacks the GPU type or features asked for", Feasibility.Cause.NODELIST);
            }
            if (!s.capable(c, i)) {
                return Feasibility.never(PendingReason.PARTITION_CONFIG, "requested node configuration is not "
                        + "available: node " + name + " has " + c.cpus[i] + " CPUs, " + c.mem[i] + " MB and "
                        + c.gpus[i] + " GPUs; the job needs " + s.cpusPerNode() + " CPUs, " + s.memPerNode()
                        + " MB and " + s.gpusPerNode() + " GPUs on each of its " + s.nodes() + " node(s)",
                        Feasibility.Cause.NODELIST);
            }
        }
        return null;
    }

    /** Excluded nodes that would otherwise be candidates big enough for the shape, in block {@code b} (-1: any). */
    private static int excludedCapable(Cluster c, Shape s, int b) {
        int n = 0;
        for (int i : s.excluded()) {
            if (s.candidates().get(i) && s.capable(c, i) && (b < 0 || c.block[i] == b)) {
                n++;
            }
        }
        return n;
    }

    /** Whether the blocks could ever hold the job's groups of {@code segment} nodes, each in one block. */
    private static Feasibility segments(Cluster c, Shape s, Cluster.Part part, int segment) {
        int groups = (s.nodes() + segment - 1) / segment;
        int held = 0;
        int[][] blockAll = s.match().blockAll();
        for (int b = 0; b < blockAll.length; b++) {
            int n = 0;
            for (int ci = 0; ci < c.classCount; ci++) {
                if (s.capableClass(c, ci)) {
                    n += blockAll[b][ci];
                }
            }
            held += (n - excludedCapable(c, s, b)) / segment;
        }
        if (held < groups) {
            return Feasibility.never(PendingReason.PARTITION_CONFIG, segment == 1
                    ? "the job asks for whole blocks (--exclusive=topo) on " + s.nodes() + " nodes; the blocks of "
                            + "partition " + part.name() + " have " + held
                    : "the job needs " + groups + " groups of " + segment + " nodes, each in one block; the blocks "
                            + "of partition " + part.name() + " hold " + held, s.excluded().length > 0 ? Feasibility.Cause.EXCLUDE : Feasibility.Cause.REQUEST);
        }
        return Feasibility.FITS;
    }

    private static Feasibility oneBlock(Cluster c, Shape s, Cluster.Part part) {
        int only = -1;
        if (s.required().length > 0) {
            only = c.block[s.required()[0]];
            for (int i : s.required()) {
                if (c.block[i] < 0 || c.block[i] != only) {
                    return Feasibility.never(PendingReason.PARTITION_CONFIG, "the job must run in one block but "
                            + "the nodelist's nodes are not all in one block", Feasibility.Cause.NODELIST);
                }
            }
        }
        int best = 0;
        int[][] blockAll = s.match().blockAll();
        for (int b = 0; b < blockAll.length; b++) {
            if (only >= 0 && b != only) {
                continue;
            }
            int n = 0;
            for (int ci = 0; ci < c.classCount; ci++) {
                if (s.capableClass(c, ci)) {
                    n += blockAll[b][ci];
                }
            }
            best = Math.max(best, n - excludedCapable(c, s, b));
        }
        if (best < s.nodes()) {
            return Feasibility.never(PendingReason.PARTITION_CONFIG, "the job needs " + s.nodes()
                    + " nodes in one block; the largest block of partition " + part.name() + " has " + best
                    + (s.restricted() ? " that the job's node lists allow" : ""),
                    s.required().length > 0 ? Feasibility.Cause.NODELIST
                            : s.excluded().length > 0 ? Feasibility.Cause.EXCLUDE : Feasibility.Cause.REQUEST);
        }
        return Feasibility.FITS;
    }
}
