package io.gantry.reports;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.gantry.engine.PendingReason;

/**
 * Gives every non-allocated GPU of one capacity sample exactly one cause, so that the causes add
 * up to the free GPUs. A pure function of what the leader knows at the sample: each node's free
 * GPUs and state, what advance and backfill reservations hold, and the pending jobs' GPU demand.
 *
 * <p>Precedence, first match wins:
 * <ol>
 * <li>{@code down}: free GPUs of a node DOWN or not responding;</li>
 * <li>{@code draining}: free GPUs of a node draining or drained;</li>
 * <li>{@code reserved}: free GPUs of a node in an active advance reservation, and on other nodes
 * what the last plan holds there for pending jobs' reservations (backfill profile);</li>
 * </ol>
 * the rest of each node's free GPUs are <em>available</em>, and pending jobs that want GPUs
 * claim them, each up to the GPUs it asks for, in this order:
 * <ol start="4">
 * <li>{@code limits}: jobs waiting only for a QOS or association limit (reasons QOS..., Assoc...)
 * that would fit in what is available (per node, and enough nodes together): they claim it on the
 * nodes they fit on;</li>
 * <li>{@code topology}: jobs that would fit but for their topology request (TopologyWait, or a
 * one-block job that fits only across blocks): they claim it on the nodes they fit on;</li>
 * <li>{@code fragmented}: every other job that wants GPUs and waits for resources (Resources,
 * Priority, maintenance, ReqNodeNotAvail: more nodes than are up, or a limit or topology job that
 * would not fit anyway): it cannot use
 * what is free (too few per node, too few together, or the CPUs, memory or time beside them are
 * taken), and claims what is available on the nodes it may run on;</li>
 * <li>{@code noDemand}: whatever no pending job claimed. Jobs held, waiting on a dependency, a
 * begin time, an advance reservation not yet started or a partition's configuration are no demand.</li>
 * </ol>
 * A job claims at most the GPUs it asks for, so one small job blocked by a limit explains a few
 * GPUs, not a whole idle cluster.
 */
final class IdleClassifier {

    private IdleClassifier() {
    }

    /** How a node stands at the sample, as far as idle GPUs go (down wins over draining, draining over powered down). */
    enum Condition {
        UP, DRAINING, DOWN, POWERED_DOWN
    }

    /**
     * One node at a sample.
     *
     * @param freeGpus         GPUs no job holds (clamped to 0..gpus)
     * @param advanceReserved  whether an active advance reservation covers it
     * @param heldGpus         GPUs the last plan holds here for pending jobs' reservations
     * @param block            its block, or null
     */
    record NodeSample(String name, int gpus, int freeGpus, Condition condition, boolean advanceReserved,
            int heldGpus, String block) {
    }

    /**
     * A pending job's GPU demand as the last plan left it.
     *
     * @param nodes       node count asked for (0: the fewest that hold its GPUs)
     * @param gpus        GPUs in total (when not per node)
     * @param gpusPerNode GPUs per node (0 when given in total)
     * @param exclusive   whole nodes
     * @param oneBlock    all nodes inside one block
     * @param candidates  the nodes its partitions (and GPU type) allow
     */
    record Demand(PendingReason reason, int nodes, int gpus, int gpusPerNode, boolean exclusive, boolean oneBlock,
            Set<String> candidates) {
    }

    private enum Claim {
        LIMITS, TOPOLOGY, FRAGMENTED
    }

    /** What a job's claim depends on; its allowed nodes by identity (jobs alike share one set). */
    private record Shape(PendingReason reason, int nodes, int gpus, int gpusPerNode, boolean exclusive,
            boolean oneBlock, IdentityKey candidates) {

        static Shape of(Demand d) {
            return new Shape(d.reason(), d.nodes(), d.gpus(), d.gpusPerNode(), d.exclusive(), d.oneBlock(),
                    new IdentityKey(d.candidates()));
        }
    }

    /** Equal only to a key of the very same set: comparing thousands of node names per job would cost more. */
    private record IdentityKey(Set<String> set) {

        @Override
        public boolean equals(Object o) {
            return o instanceof IdentityKey k && k.set == set;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(set);
        }
    }

    static IdleCauses classify(List<NodeSample> nodes, List<Demand> demand) {
        long down = 0;
        long draining = 0;
        long reserved = 0;
        long poweredDown = 0;
        Map<String, NodeSample> byName = new HashMap<>();
        Map<String, Integer> available = new LinkedHashMap<>();
        for (NodeSample n : nodes) {
            int free = Math.max(0, Math.min(n.freeGpus(), n.gpus()));
            byName.put(n.name(), n);
            switch (n.condition()) {
                case DOWN -> down += free;
                case DRAINING -> draining += free;
                case POWERED_DOWN -> poweredDown += free;
                case UP -> {
                    int held = n.advanceReserved() ? free : Math.max(0, Math.min(free, n.heldGpus()));
                    reserved += held;
                    available.put(n.name(), free - held);
                }
                default -> throw new IllegalStateException();
            }
        }
        Map<Claim, List<Demand>> byClaim = new LinkedHashMap<>();
        for (Claim c : Claim.values()) {
            byClaim.put(c, new ArrayList<>());
        }
        // Jobs of one shape (same reason, request and allowed nodes) make the same claim: judged once.
        Map<Shape, Optional<Claim>> judged = new HashMap<>();
        for (Demand d : demand) {
            Optional<Claim> c = judged.computeIfAbsent(Shape.of(d),
                    k -> Optional.ofNullable(claim(d, byName, available)));
            c.ifPresent(claim -> byClaim.get(claim).add(d));
        }
        // The fit of each job is judged on what is available before anyone claims: claims only share it out.
        Map<String, Integer> left = new HashMap<>(available);
        long limits = claimAll(byClaim.get(Claim.LIMITS), byName, available, left, true);
        long topology = claimAll(byClaim.get(Claim.TOPOLOGY), byName, available, left, true);
        long fragmented = claimAll(byClaim.get(Claim.FRAGMENTED), byName, available, left, false);
        long noDemand = 0;
        for (int g : left.values()) {
            noDemand += g;
        }
        return new IdleCauses(noDemand, reserved, fragmented, topology, limits, draining, down, poweredDown);
    }

    /** Which claim a pending job makes, or null when it is no demand for GPUs now. */
    private static Claim claim(Demand d, Map<String, NodeSample> nodes, Map<String, Integer> available) {
        if (!wantsGpus(d) || !waitsForResources(d.reason())) {
            return null;
        }
        int n = nodeCount(d, nodes);
        int fitting = 0;
        Map<String, Integer> perBlock = new HashMap<>();
        boolean inOneBlock = false;
        for (String name : d.candidates()) {
            NodeSample node = nodes.get(name);
            if (node != null && fits(d, n, node, available.getOrDefault(name, 0))) {
                fitting++;
                if (node.block() != null && perBlock.merge(node.block(), 1, Integer::sum) >= n) {
                    inOneBlock = true;
                }
            }
        }
        boolean together = fitting >= n;
        if (isLimit(d.reason()) && together && (!d.oneBlock() || inOneBlock)) {
            return Claim.LIMITS;
        }
        if (together && (d.reason() == PendingReason.TOPOLOGY_WAIT || d.oneBlock() && !inOneBlock)) {
            return Claim.TOPOLOGY;
        }
        return Claim.FRAGMENTED;
    }

    /**
     * Shares out what is left among the jobs, in priority order, each up to its GPUs, node by node in
     * the nodes' order; {@code fitOnly}: only where one node's share fits. Jobs of one shape walk one
     * list of the nodes they may take, past the nodes emptied before them, so a long queue of alike
     * jobs costs about one pass over the nodes.
     */
    private static long claimAll(List<Demand> jobs, Map<String, NodeSample> nodes, Map<String, Integer> available,
            Map<String, Integer> left, boolean fitOnly) {
        long claimed = 0;
        Map<Shape, Pool> pools = new HashMap<>();
        for (Demand d : jobs) {
            Pool pool = pools.computeIfAbsent(Shape.of(d), k -> Pool.of(d, nodes, available, fitOnly));
            long want = pool.gpus;
            for (int i = pool.cursor; i < pool.nodes.size() && want > 0; i++) {
                String name = pool.nodes.get(i);
                int there = left.getOrDefault(name, 0);
                int perNode = fitOnly ? Math.min(there, need(d, pool.count, nodes.get(name))) : there;
                int take = (int) Math.min(perNode, want);
                want -= take;
                claimed += take;
                left.put(name, there - take);
                if (there == take && i == pool.cursor) {
                    pool.cursor++; // emptied: no later job of this shape looks at it again
                }
            }
        }
        return claimed;
    }

    /** The nodes jobs of one shape may claim on, in the nodes' order, and how far they are used up. */
    private static final class Pool {
        final List<String> nodes;
        final int count;
        final long gpus;
        int cursor;

        private Pool(List<String> nodes, int count, long gpus) {
            this.nodes = nodes;
            this.count = count;
            this.gpus = gpus;
        }

        static Pool of(Demand d, Map<String, NodeSample> nodes, Map<String, Integer> available, boolean fitOnly) {
            int n = nodeCount(d, nodes);
            List<String> eligible = new ArrayList<>();
            available.forEach((name, g) -> {
                if (g > 0 && d.candidates().contains(name) && (!fitOnly || fits(d, n, nodes.get(name), g))) {
                    eligible.add(name);
                }
            });
            return new Pool(eligible, n, totalGpus(d, n, nodes));
        }
    }

    private static boolean wantsGpus(Demand d) {
        return d.gpus() > 0 || d.gpusPerNode() > 0;
    }

    /** Jobs that would start if GPUs (or limits, or topology) allowed: the ones free GPUs are idle for. */
    private static boolean waitsForResources(PendingReason reason) {
        return reason == PendingReason.RESOURCES || reason == PendingReason.PRIORITY
                || reason == PendingReason.RESERVED_FOR_MAINTENANCE || reason == PendingReason.REQ_NODE_NOT_AVAIL
                || reason == PendingReason.TOPOLOGY_WAIT || reason == PendingReason.QUOTA_RECLAIM
                || isLimit(reason);
    }

    /**
     * Slurm's QOS... and Assoc... reasons, and a quota's borrowing limits (issue 16): a limit, not the
     * cluster, keeps the job waiting.
     */
    static boolean isLimit(PendingReason reason) {
        return reason == PendingReason.QUOTA_BORROW_LIMIT || reason == PendingReason.QUOTA_NOTHING_TO_BORROW
                || reason != PendingReason.INVALID_QOS
                && (reason.slurmName().startsWith("QOS") || reason.slurmName().startsWith("Assoc"));
    }

    /** Its node count: as asked, else the fewest of its biggest candidate nodes that hold its GPUs. */
    private static int nodeCount(Demand d, Map<String, NodeSample> nodes) {
        if (d.nodes() > 0) {
            return d.nodes();
        }
        if (d.gpusPerNode() > 0) {
            return 1;
        }
        int biggest = 0;
        for (String name : d.candidates()) {
            NodeSample node = nodes.get(name);
            if (node != null) {
                biggest = Math.max(biggest, node.gpus());
            }
        }
        return biggest == 0 ? 1 : ceilDiv(d.gpus(), biggest);
    }

    /** GPUs one node of the job needs on {@code node}: all of them when exclusive. */
    private static int need(Demand d, int n, NodeSample node) {
        int perNode = d.gpusPerNode() > 0 ? d.gpusPerNode() : ceilDiv(d.gpus(), n);
        return d.exclusive() ? Math.max(perNode, node.gpus()) : perNode;
    }

    private static boolean fits(Demand d, int n, NodeSample node, int available) {
        return node.gpus() > 0 && available >= need(d, n, node) && (!d.exclusive() || available == node.gpus());
    }

    /** All the GPUs the job asks for (exclusive: whole nodes of the biggest it may get). */
    private static long totalGpus(Demand d, int n, Map<String, NodeSample> nodes) {
        long asked = d.gpusPerNode() > 0 ? (long) d.gpusPerNode() * n : d.gpus();
        if (!d.exclusive()) {
            return asked;
        }
        int biggest = 0;
        for (String name : d.candidates()) {
            NodeSample node = nodes.get(name);
            if (node != null) {
                biggest = Math.max(biggest, node.gpus());
            }
        }
        return Math.max(asked, (long) biggest * n);
    }

    private static int ceilDiv(int a, int b) {
        return -Math.floorDiv(-a, b);
    }
}
