package io.gantry.simulation;

import io.gantry.engine.Engine;
import io.gantry.engine.JobId;
import io.gantry.engine.NodeAllocation;
import io.gantry.engine.PendingJob;
import io.gantry.engine.Plan;
import io.gantry.engine.Policy;
import io.gantry.engine.Request;
import io.gantry.engine.RunningJob;
import io.gantry.engine.Snapshot;
import io.gantry.engine.Start;
import io.gantry.engine.StartEstimate;
import io.gantry.engine.StartEstimator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Replays a trace through the production engine on a virtual clock. A cycle runs at every
 * instant something is submitted or completes (Slurm's event-triggered scheduling); jobs run for
 * their trace run time, while the engine only knows their time limit and, once they run, the
 * run-time guess they were submitted with (as their predicted end, for policies that use it).
 */
public final class Replay {

    /** One job as it ran. */
    public record Scheduled(long id, long submit, long start, long end, int procs, List<String> nodes) {
        public long waitSeconds() {
            return start - submit;
        }
    }

    /** The schedule and how long the engine took. */
    public record Result(List<Scheduled> schedule, long cycles, double totalCycleMs, double maxCycleMs,
            int neverFit, EstimateErrors estimates) {
    }

    private final SimulatedCluster cluster;
    private final Policy policy;
    private final Engine engine = new Engine();
    private boolean estimates;

    public Replay(int nodes, int cpusPerNode, int gpusPerNode, Policy policy) {
        this.cluster = SimulatedCluster.of(nodes, cpusPerNode, gpusPerNode);
        this.policy = policy;
    }

    /**
     * Also gives every job still pending after the cycle that first saw it an expected start (a
     * {@link StartEstimator} pass after that cycle, not timed with it) and reports their error.
     */
    public Replay withEstimates() {
        estimates = true;
        return this;
    }

    public long totalProcs() {
        return cluster.totalProcs();
    }

    private record Completion(long time, long id) {
    }

    /**
     * What a controller would know from accounting: each user's last two finished run times. Their
     * mean is the run-time guess for the user's next job (Tsafrir et al.'s EASY++ predictor).
     */
    private static final class RunHistory {
        private final Map<Long, long[]> lastTwo = new HashMap<>();

        void record(SwfJob j) {
            if (j.user() < 0) {
                return;
            }
            long[] runs = lastTwo.computeIfAbsent(j.user(), u -> new long[] {-1, -1});
            runs[1] = runs[0];
            runs[0] = j.runTime();
        }

        long guess(SwfJob j) {
            long[] runs = lastTwo.get(j.user());
            if (runs == null || runs[0] < 0) {
                return 0;
            }
            return runs[1] < 0 ? runs[0] : (runs[0] + runs[1] + 1) / 2;
        }
    }

    public Result run(List<SwfJob> trace) {
        Map<Long, SwfJob> byId = new HashMap<>();
        List<SwfJob> jobs = new ArrayList<>();
        int neverFit = 0;
        for (SwfJob j : trace) {
            if (j.procs() > cluster.totalProcs() || byId.containsKey(j.id())) {
                neverFit++;
                continue;
            }
            byId.put(j.id(), j);
            jobs.add(j);
        }
        Map<JobId, PendingJob> pending = new LinkedHashMap<>();
        Map<JobId, RunningJob> running = new LinkedHashMap<>();
        PriorityQueue<Completion> completions = new PriorityQueue<>((a, b) -> a.time != b.time
                ? Long.compare(a.time, b.time) : Long.compare(a.id, b.id));
        List<Scheduled> schedule = new ArrayList<>(jobs.size());
        RunHistory history = new RunHistory();
        int next = 0;
        long cycles = 0;
        double totalMs = 0;
        double maxMs = 0;
        EstimateErrors errors = estimates ? new EstimateErrors() : null;
        // What is free, and the smallest request waiting: a cycle in which nothing waiting fits in what is free
        // starts nothing and changes nothing (the engine is pure, and a replay has no preemption), so it is not run.
        long free = cluster.totalProcs();
        java.util.TreeMap<Integer, Integer> waitingSizes = new java.util.TreeMap<>();
        while (next < jobs.size() || !completions.isEmpty()) {
            long now = Long.MAX_VALUE;
            if (next < jobs.size()) {
                now = jobs.get(next).submit();
            }
            if (!completions.isEmpty()) {
                now = Math.min(now, completions.peek().time);
            }
            while (!completions.isEmpty() && completions.peek().time <= now) {
                long done = completions.poll().id;
                running.remove(JobId.of(done));
                history.record(byId.get(done));
                free += byId.get(done).procs();
            }
            while (next < jobs.size() && jobs.get(next).submit() <= now) {
                SwfJob j = jobs.get(next++);
                pending.put(JobId.of(j.id()), pendingJob(j, history.guess(j)));
                waitingSizes.merge(j.procs(), 1, Integer::sum);
            }
            if (pending.isEmpty() || (errors == null && free < waitingSizes.firstKey())) {
                continue;
            }
            Snapshot snapshot = new Snapshot(now, cluster.nodes(), cluster.partitions(), List.of(),
                    new ArrayList<>(running.values()), new ArrayList<>(pending.values()), List.of(), List.of(), policy);
            long t0 = System.nanoTime();
            Plan plan = engine.plan(snapshot);
            double ms = (System.nanoTime() - t0) / 1e6;
            cycles++;
            totalMs += ms;
            maxMs = Math.max(maxMs, ms);
            for (Start s : plan.starts()) {
                if (errors != null) {
                    if (errors.seen(s.job().id())) {
                        errors.started(s.job().id(), now);
                    } else {
                        errors.startedAtOnce();
                    }
                }
                PendingJob p = pending.remove(s.job());
                SwfJob j = byId.get(s.job().id());
                long end = Math.addExact(now, j.runTime());
                long predictedEnd = p.expectedRunSeconds() > 0 ? Math.addExact(now, p.runEstimate()) : 0;
                running.put(s.job(), new RunningJob(s.job(), p.user(), p.account(), p.qos(), s.partition(),
                        s.allocation(), now, s.expectedEnd(), predictedEnd));
                completions.add(new Completion(end, j.id()));
                free -= j.procs();
                waitingSizes.computeIfPresent(j.procs(), (k, n) -> n == 1 ? null : n - 1);
                schedule.add(new Scheduled(j.id(), j.submit(), now, end, j.procs(),
                        s.allocation().stream().map(NodeAllocation::node).toList()));
            }
            if (errors != null) {
                estimateNew(snapshot, plan, pending, errors);
            }
        }
        if (!pending.isEmpty()) {
            throw new IllegalStateException(pending.size() + " jobs never started: the engine left them "
                    + "waiting with nothing running");
        }
        return new Result(schedule, cycles, totalMs, maxMs, neverFit, errors);
    }

    /** Records the expected start of each job this cycle saw pending for the first time. */
    private void estimateNew(Snapshot snapshot, Plan plan, Map<JobId, PendingJob> pending, EstimateErrors errors) {
        List<JobId> fresh = new ArrayList<>();
        for (JobId id : pending.keySet()) {
            if (!errors.seen(id.id())) {
                fresh.add(id);
            }
        }
        if (fresh.isEmpty()) {
            return;
        }
        long t0 = System.nanoTime();
        Map<JobId, StartEstimate> byJob = engine.estimateStarts(snapshot, plan, StartEstimator.Budget.UNLIMITED).byJob();
        errors.passTook((System.nanoTime() - t0) / 1e6);
        for (JobId id : fresh) {
            StartEstimate e = byJob.get(id);
            errors.firstSeenPending(id.id(), e.start().isPresent() ? e.start().getAsLong() : EstimateErrors.NONE);
        }
    }

    private PendingJob pendingJob(SwfJob j, long guess) {
        Request request = cluster.gpusPerNode() > 0
                ? Request.builder().gpus(j.procs()).build()
                : Request.builder().tasks(j.procs()).build();
        return new PendingJob(JobId.of(j.id()), "user", "trace", "normal", List.of("batch"), request, j.timeLimit(),
                j.submit(), 0, 0, null, guess);
    }
}
