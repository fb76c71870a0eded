package io.gantry.metrics;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code /metrics} shows of the cluster, worked out by the scheduler from what it holds in memory
 * (its live jobs and the nodes it plans with) and handed over whole: a scrape reads one consistent
 * picture and never the jobs table. Only the leader schedules, so only the leader has one; another
 * controller shows {@link #notLeader()}. Maps are keyed by label value, uncapped: the cap is the
 * exposition's to apply ({@link LabelCap}).
 */
public record ClusterFigures(boolean leader, Scheduler scheduler, Jobs jobs, Map<String, Integer> nodesByState,
        Map<String, Partition> partitions, Map<String, Holder> accounts, Map<String, Holder> users,
        Map<String, Integer> pendingByReason) {

    /** Node states as Slurm's metrics name them (slurm_nodes_idle, ...), in the order they are shown. */
    public static final List<String> NODE_STATES = List.of("idle", "mixed", "alloc", "draining", "drained", "down");

    public ClusterFigures {
        nodesByState = Map.copyOf(nodesByState);
        partitions = Map.copyOf(partitions);
        accounts = Map.copyOf(accounts);
        users = Map.copyOf(users);
        pendingByReason = Map.copyOf(pendingByReason);
    }

    /** A controller that does not schedule: it knows no live figures, only that it is not the leader. */
    public static ClusterFigures notLeader() {
        return new ClusterFigures(false, new Scheduler(0, 0, 0, 0, 0, 0, 0), new Jobs(0, 0, 0, 0, 0, 0), Map.of(),
                Map.of(), Map.of(), Map.of(), Map.of());
    }

    /**
     * sdiag's figures: cycles so far, the last, longest and mean cycle in microseconds (as Slurm's),
     * the jobs that may start now ({@code queueLength}), how many the last full pass with backfill
     * planned ({@code backfillDepth}) and the jobs started by backfill so far.
     */
    public record Scheduler(long cycles, long lastCycleMicros, long maxCycleMicros, long meanCycleMicros,
            int queueLength, int backfillDepth, long backfilledJobs) {
    }

    /** Active jobs by state, the pending ones that are held, and the GPUs the running ones hold. */
    public record Jobs(int running, int pending, int suspended, int completing, int held, int gpusAllocated) {
    }

    /**
     * One partition: its nodes by state, its GPUs (on its nodes: held by any job, free on usable
     * nodes, or on nodes that are down or draining and not held), and its own jobs (running in it,
     * pending for it) with the GPUs those running hold.
     */
    public record Partition(Map<String, Integer> nodesByState, int nodes, int gpus, int gpusAllocated, int gpusIdle,
            int gpusDown, int jobsRunning, int jobsPending, int jobsGpusAllocated) {

        public Partition {
            nodesByState = Map.copyOf(nodesByState);
        }

        /** Both summed: what partitions folded into {@value LabelCap#OTHER} show. */
        public Partition plus(Partition o) {
            Map<String, Integer> states = new HashMap<>(nodesByState);
            o.nodesByState.forEach((k, v) -> states.merge(k, v, Integer::sum));
            return new Partition(states, nodes + o.nodes, gpus + o.gpus, gpusAllocated + o.gpusAllocated,
                    gpusIdle + o.gpusIdle, gpusDown + o.gpusDown, jobsRunning + o.jobsRunning,
                    jobsPending + o.jobsPending, jobsGpusAllocated + o.jobsGpusAllocated);
        }

        /** Its size: the largest partitions keep their names under the cap. */
        public long weight() {
            return nodes;
        }
    }

    /** An account's or a user's jobs: running, pending, and the GPUs the running ones hold. */
    public record Holder(int running, int pending, int gpus) {

        public Holder plus(Holder o) {
            return new Holder(running + o.running, pending + o.pending, gpus + o.gpus);
        }

        /** The busiest accounts and users keep their names under the cap. */
        public long weight() {
            return (long) running + pending + gpus;
        }
    }
}
