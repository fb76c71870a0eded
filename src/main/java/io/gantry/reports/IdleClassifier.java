package io.gantry.reports;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /** How a node stands at the sample, as far as idle GPUs go (down wins over draining). */
    enum Condition {
        UP, DRAINING, DOWN
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

    static IdleCauses classify(List<NodeSample> nodes, List<Demand> demand) {
        long down = 0;
        long draining = 0;
        long reserved = 0;
        Map<String, NodeSample> byName = new HashMap<>();
        Map<String, Integer> available = new LinkedHashMap<>();
        for (NodeSample n : nodes) {
            int free = Math.max(0, Math.min(n.freeGpus(), n.gpus()));
            byName.put(n.name(), n);
            switch (n.condition()) {
                case DOWN -> down += free;
                case DRAINING -> draining += free;
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
        for (Demand d : demand) {
            Claim c = claim(d, byName, available);
            if (c != null) {
                byClaim.get(c).add(d);
            }
        }
        // The fit of each job is judged on what is available before anyone claims: claims only share it out.
        Map<String, Integer> left = new LinkedHashMap<>(available);
        long limits = claimAll(byClaim.get(Claim.LIMITS), byName, available, left, true);
        long topology = claimAll(byClaim.get(Claim.TOPOLOGY), byName, available, left, true);
        long fragmented = claimAll(byClaim.get(Claim.FRAGMENTED), byName, available, left, false);
        long noDemand = 0;
        for (int g : left.values()) {
            noDemand += g;
        }
        return new IdleCauses(noDemand, reserved, fragmented, topology, limits, draining, down);
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
     * the nodes' order; {@code fitOnly}: only where one node's share fits.
     */
    private static long claimAll(List<Demand> jobs, Map<String, NodeSample> nodes, Map<String, Integer> available,
            Map<String, Integer> left, boolean fitOnly) {
        long claimed = 0;
        for (Demand d : jobs) {
            int n = nodeCount(d, nodes);
            long want = totalGpus(d, n, nodes);
            for (Map.Entry<String, Integer> e : left.entrySet()) {
                if (want == 0) {
                    break;
                }
                int there = e.getValue();
                if (there == 0 || !d.candidates().contains(e.getKey())) {
                    continue;
                }
                NodeSample node = nodes.get(e.getKey());
                if (fitOnly && !fits(d, n, node, available.get(e.getKey()))) {
                    continue;
                }
                int perNode = fitOnly ? Math.min(there, need(d, n, node)) : there;
                int take = (int) Math.min(perNode, want);
                e.setValue(there - take);
                want -= take;
                claimed += take;
            }
        }
        return claimed;
    }

    private static boolean wantsGpus(Demand d) {
        return d.gpus() > 0 || d.gpusPerNode() > 0;
    }

    /** Jobs that would start if GPUs (or limits, or topology) allowed: the ones free GPUs are idle for. */
    private static boolean waitsForResources(PendingReason reason) {
        return reason == PendingReason.RESOURCES || reason == PendingReason.PRIORITY
                || reason == PendingReason.RESERVED_FOR_MAINTENANCE || reason == PendingReason.REQ_NODE_NOT_AVAIL || reason == PendingReason.TOPOLOGY_WAIT
                || isLimit(reason);
    }

    /** Slurm's QOS... and Assoc... reasons: a limit, not the cluster, keeps the job waiting. */
    static boolean isLimit(PendingReason reason) {
        return reason != PendingReason.INVALID_QOS
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
