package io.gantry.reports;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.stereotype.Component;

import io.gantry.cluster.ClusterService;
import io.gantry.engine.Constraint;
import io.gantry.engine.Hostlist;
import io.gantry.engine.Node;
import io.gantry.engine.Partition;
import io.gantry.engine.Waiting;
import io.gantry.jobs.ActiveJob;
import io.gantry.reports.IdleClassifier.Demand;
import io.gantry.scheduling.WaitingJobs;

/**
 * What the leader's last full pass knows of pending jobs, in the terms {@link IdleClassifier}
 * needs: the GPUs held on each node for jobs' reservations, and each pending job's GPU demand
 * (its shape, reason and the nodes its partitions, GPU type and features allow).
 */
@Component
class IdleDemand {

    /** GPUs held per node for reservations in the backfill profile, the pending jobs' demand, each node's block. */
    record Known(Map<String, Integer> held, List<Demand> demand, Map<String, String> blocks) {
    }

    /** What decides where a job may run. */
    private record Where(List<String> partitions, String gpuType, String constraints, String nodelist, String exclude) {
    }

    private final WaitingJobs waiting;
    private final ClusterService cluster;

    IdleDemand(WaitingJobs waiting, ClusterService cluster) {
        this.waiting = waiting;
        this.cluster = cluster;
    }

    Known now() {
        List<WaitingJobs.Pending> pending = waiting.lastFullPass();
        if (pending.isEmpty()) {
            return new Known(Map.of(), List.of(), Map.of());
        }
        Map<String, Node> nodes = new HashMap<>();
        Map<String, String> blocks = new HashMap<>();
        io.gantry.cluster.ClusterService.EngineLayout layout = cluster.engineLayout();
        for (Node n : layout.nodes()) {
            nodes.put(n.name(), n);
            if (n.block() != null) {
                blocks.put(n.name(), n.block());
            }
        }
        Map<String, List<String>> partitions = new HashMap<>();
        for (Partition p : layout.partitions()) {
            if (p.up()) {
                partitions.put(p.name(), p.nodes());
            }
        }
        Map<String, Integer> held = new HashMap<>();
        Map<Where, Set<String>> candidates = new HashMap<>();
        List<Demand> demand = new ArrayList<>(pending.size());
        for (WaitingJobs.Pending p : pending) {
            ActiveJob job = p.job();
            Waiting w = p.waiting();
            int reservedOn = w.reservedNodes().size();
            for (String name : w.reservedNodes()) {
                Node node = nodes.get(name);
                int gpus = job.exclusive() && node != null ? node.gpus()
                        : job.gpusPerNode() > 0 ? job.gpusPerNode() : ceilDiv(job.gpus(), reservedOn);
                held.merge(name, gpus, Integer::sum);
            }
            // Jobs alike share one set: a queue of thousands names a handful of partitions and constraints.
            Set<String> allowed = candidates.computeIfAbsent(new Where(job.partitions(), job.gpuType(),
                    job.constraints(), job.nodelist(), job.exclude()), k -> candidates(job, partitions, nodes));
            // A --segment of the whole node count asks for one block (smaller segments count as any job).
            boolean oneBlock = job.segment() != null && job.segment() >= Math.max(job.minNodes(), 1);
            demand.add(new Demand(w.reason(), job.minNodes(), job.gpus(), job.gpusPerNode(), job.exclusive(), oneBlock,
                    allowed));
        }
        return new Known(held, demand, blocks);
    }

    /**
     * The nodes of the job's partitions with its GPU type and features, less those it excludes; a
     * job naming nodes (-w) wants GPUs on those only (the rest of a bigger job's nodes are left out).
     */
    private static Set<String> candidates(ActiveJob job, Map<String, List<String>> partitions, Map<String, Node> nodes) {
        Constraint constraint = Constraint.parse(job.constraints());
        Set<String> named = job.nodelist() == null ? null : new HashSet<>(Hostlist.parse(job.nodelist()).hosts());
        Set<String> excluded = job.exclude() == null ? Set.of() : new HashSet<>(Hostlist.parse(job.exclude()).hosts());
        Set<String> candidates = new HashSet<>();
        for (String partition : job.partitions()) {
            for (String name : partitions.getOrDefault(partition, List.of())) {
                Node node = nodes.get(name);
                if (node != null && (job.gpuType() == null || job.gpuType().equals(node.gpuType()))
                        && constraint.matches(node.features()) && (named == null || named.contains(name))
                        && !excluded.contains(name)) {
                    candidates.add(name);
                }
            }
        }
        return candidates;
    }

    private static int ceilDiv(int a, int b) {
        return -Math.floorDiv(-a, b);
    }
}
