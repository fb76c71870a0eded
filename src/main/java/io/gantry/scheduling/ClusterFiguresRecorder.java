package io.gantry.scheduling;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.gantry.cluster.ClusterService;
import io.gantry.engine.Node;
import io.gantry.engine.Partition;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.Hold;
import io.gantry.jobs.JobAllocation;
import io.gantry.metrics.ClusterCollector;
import io.gantry.metrics.ClusterFigures;
import io.gantry.metrics.MetricsProperties;

/**
 * Works out the cluster's figures for {@code /metrics} at the end of a scheduling cycle, on the
 * scheduler's thread, from what the scheduler already holds: its live jobs (with the pending reasons
 * it decided) and the nodes and partitions it planned with. A scrape then reads them without a query;
 * the jobs table is never scanned for metrics. At most once per {@code gantry.metrics.refresh-interval},
 * and only when something scraped since the last time (else once a minute): every submission wakes a
 * cycle, and the figures are a pass over every active job, which was most of the scheduler thread's
 * profile under a stream of held submissions when it ran every second for nobody. A scrape that finds them stale
 * waits for the next cycle's ({@code ClusterCollector}). A job started
 * by a cycle counts as running from the next one (within the scheduler's interval, 1 s by default).
 */
@Component
class ClusterFiguresRecorder {

    private static final Logger log = LoggerFactory.getLogger(ClusterFiguresRecorder.class);
    /** With nobody scraping, the figures are still worked out this often, so a first scrape rarely waits. */
    private static final long UNWATCHED_NANOS = 60_000_000_000L;

    private final ClusterService cluster;
    private final SchedulerStats stats;
    private final ClusterCollector collector;
    private final long refreshNanos;
    private boolean recorded;
    private long lastRecorded;
    private int backfillDepth;

    ClusterFiguresRecorder(ClusterService cluster, SchedulerStats stats, ClusterCollector collector,
            MetricsProperties properties) {
        this.cluster = cluster;
        this.stats = stats;
        this.collector = collector;
        this.refreshNanos = properties.refreshInterval().toNanos();
    }

    /** After a cycle (full: one that planned every eligible job, with backfill), on the scheduler's thread. */
    void afterCycle(LiveJobs live, boolean full) {
        if (full) {
            backfillDepth = live.eligible().size();
        }
        long now = System.nanoTime();
        if (recorded && (now - lastRecorded < refreshNanos
                || !collector.scrapedSince(lastRecorded) && now - lastRecorded < UNWATCHED_NANOS)) {
            return;
        }
        try {
            SchedulerStats.Figures s = stats.figures();
            ClusterFigures.Scheduler scheduler = new ClusterFigures.Scheduler(s.cycles(),
                    Math.round(s.lastCycleMs() * 1000), Math.round(s.maxCycleMs() * 1000),
                    Math.round(s.meanCycleMs() * 1000), live.eligible().size(), backfillDepth, s.jobsBackfilled());
            ClusterService.EngineLayout layout = cluster.engineLayout();
            collector.publish(figures(live.all(), layout.nodes(), layout.partitions(), scheduler));
            recorded = true;
            lastRecorded = now;
        } catch (RuntimeException e) {
            // Metrics never stop scheduling: the last figures stay until the next cycle manages.
            log.warn("Could not work out the cluster's figures for /metrics: {}", e.toString());
        }
    }

    /** This controller no longer schedules: it has no figures to show. */
    void leaderLost() {
        recorded = false;
        collector.publish(ClusterFigures.notLeader());
    }

    /** What nodes, partitions, jobs, accounts and users look like, from the scheduler's live jobs. */
    static ClusterFigures figures(Collection<LiveJobs.Entry> entries, List<Node> nodes, List<Partition> partitions,
            ClusterFigures.Scheduler scheduler) {
        Map<String, long[]> held = new HashMap<>(); // per node: cpus, memory, GPUs
        Map<String, int[]> parts = new HashMap<>(); // per partition: running, pending, GPUs of its running jobs
        partitions.forEach(p -> parts.put(p.name(), new int[3]));
        Map<String, int[]> accounts = new HashMap<>();
        Map<String, int[]> users = new HashMap<>();
        Map<String, Integer> reasons = new HashMap<>();
        int running = 0;
        int pending = 0;
        int suspended = 0;
        int completing = 0;
        int holds = 0;
        int gpusAllocated = 0;
        for (LiveJobs.Entry e : entries) {
            ActiveJob job = e.job;
            int[] account = accounts.computeIfAbsent(String.valueOf(job.account()), k -> new int[3]);
            int[] user = users.computeIfAbsent(String.valueOf(job.user()), k -> new int[3]);
            switch (job.state()) {
                case PENDING -> {
                    pending++;
                    account[1]++;
                    user[1]++;
                    if (job.hold() != null && job.hold() != Hold.NONE) {
                        holds++;
                    }
                    String reason = e.recorded.reason();
                    reasons.merge(reason == null || reason.isBlank() ? "None" : reason, 1, Integer::sum);
                    List<String> wanted = job.partitions().isEmpty() && job.partition() != null
                            ? List.of(job.partition()) : job.partitions();
                    for (String p : wanted) {
                        int[] part = parts.get(p);
                        if (part != null) {
                            part[1]++;
                        }
                    }
                }
                case RUNNING, COMPLETING, SUSPENDED -> {
                    if (job.suspendedForPreemptor()) {
                        // What it held is its preemptor's; one an operator suspended still holds it all.
                        suspended++;
                        continue;
                    }
                    int gpus = 0;
                    for (JobAllocation a : job.allocation()) {
                        long[] use = held.computeIfAbsent(a.node(), k -> new long[3]);
                        use[0] += a.cpus();
                        use[1] += a.memoryMb();
                        use[2] += a.gpuIndices().size();
                        gpus += a.gpuIndices().size();
                    }
                    gpusAllocated += gpus;
                    account[2] += gpus;
                    user[2] += gpus;
                    int[] part = job.partition() == null ? null : parts.get(job.partition());
                    if (part != null) {
                        part[2] += gpus;
                    }
                    if (job.state() == io.gantry.jobs.JobState.RUNNING) {
                        running++;
                        account[0]++;
                        user[0]++;
                        if (part != null) {
                            part[0]++;
                        }
                    } else if (job.state() == io.gantry.jobs.JobState.SUSPENDED) {
                        suspended++;
                    } else {
                        completing++;
                    }
                }
                default -> {
                    // Ended: on its way out of the live jobs.
                }
            }
        }
        Map<String, String> stateOf = new HashMap<>();
        Map<String, Integer> nodesByState = new HashMap<>();
        Map<String, Node> byName = new HashMap<>();
        for (Node n : nodes) {
            String state = nodeState(n, held.get(n.name()));
            stateOf.put(n.name(), state);
            byName.put(n.name(), n);
            nodesByState.merge(state, 1, Integer::sum);
        }
        Map<String, ClusterFigures.Partition> partitionFigures = new HashMap<>();
        for (Partition p : partitions) {
            Map<String, Integer> states = new HashMap<>();
            int gpus = 0;
            int alloc = 0;
            int idle = 0;
            int down = 0;
            for (String name : p.nodes()) {
                Node n = byName.get(name);
                if (n == null) {
                    continue;
                }
                String state = stateOf.get(name);
                states.merge(state, 1, Integer::sum);
                long[] use = held.get(name);
                int taken = use == null ? 0 : (int) Math.min(use[2], n.gpus());
                gpus += n.gpus();
                alloc += taken;
                if (n.state() == io.gantry.engine.NodeState.UP) {
                    idle += n.gpus() - taken;
                } else {
                    down += n.gpus() - taken;
                }
            }
            int[] jobs = parts.get(p.name());
            partitionFigures.put(p.name(), new ClusterFigures.Partition(states, p.nodes().size(), gpus, alloc, idle,
                    down, jobs[0], jobs[1], jobs[2]));
        }
        return new ClusterFigures(true, scheduler,
                new ClusterFigures.Jobs(running, pending, suspended, completing, holds, gpusAllocated), nodesByState,
                partitionFigures, holders(accounts), holders(users), reasons);
    }

    private static Map<String, ClusterFigures.Holder> holders(Map<String, int[]> counts) {
        Map<String, ClusterFigures.Holder> out = new HashMap<>();
        counts.forEach((k, v) -> out.put(k, new ClusterFigures.Holder(v[0], v[1], v[2])));
        return out;
    }

    /** As sinfo says it ({@code NodeEntity.state()}'s rules), from the engine's state and what jobs hold there. */
    private static String nodeState(Node n, long[] use) {
        boolean allocated = use != null && (use[0] > 0 || use[1] > 0 || use[2] > 0);
        return switch (n.state()) {
            case DOWN -> "down";
            case DRAIN -> allocated ? "draining" : "drained";
            case UP -> !allocated ? "idle"
                    : use[0] >= n.cpus() || (n.gpus() > 0 && use[2] >= n.gpus()) ? "alloc" : "mixed";
        };
    }
}
