package io.gantry.scheduling;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.stereotype.Component;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.engine.Engine;
import io.gantry.engine.Hostlist;
import io.gantry.engine.Node;
import io.gantry.engine.NodeAllocation;
import io.gantry.engine.PendingJob;
import io.gantry.engine.Plan;
import io.gantry.engine.Snapshot;
import io.gantry.engine.Start;
import io.gantry.engine.StartEstimate;
import io.gantry.engine.StartEstimator;
import io.gantry.engine.Waiting;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.EngineRequests;

/**
 * When and where a job that is not submitted would start (sbatch --test-only, Slurm's will_run):
 * the latest cycle's snapshot (nodes, running jobs, limits) with the last full pass's queue (every
 * eligible pending job), brought to now, with the job added, planned by an engine of its own and then walked by the same {@link StartEstimator} that
 * gives pending jobs their expected starts. The job takes its place by priority among the pending
 * ones; nothing is written. Its hold and dependencies are not weighed (the time is when it would start
 * if they let it), its begin time is.
 */
@Component
class TrialStarts {

    /** The job id a trial carries, as Slurm's "Job 0 to start at ...". */
    static final long TRIAL_JOB_ID = 0;

    private final Engine engine = new Engine();
    private final StartEstimator.Budget budget;
    private final Clock clock;
    /** The latest cycle's snapshot: nodes, running jobs and limits as they are now. */
    private volatile Snapshot latest;
    /** The last full pass's snapshot: the only one that holds every eligible pending job. */
    private volatile Snapshot latestFull;

    TrialStarts(SchedulerProperties properties, Clock clock) {
        this.budget = new StartEstimator.Budget(properties.estimateMaxJobs(), properties.estimateTimeBudget().toNanos());
        this.clock = clock;
    }

    /**
     * Where and when it would start, or why no time can be given. A time with no nodes is rough: the
     * queue ahead of the job is longer than the estimator searches ({@link io.gantry.engine.StartEstimate#rough()}).
     */
    record Estimate(Instant start, String partition, List<String> nodes, long processors, String reason) {

        static final String ROUGH = "the start time is rough: the queue ahead of it is longer than the estimator "
                + "searches (gantry.scheduler.estimate-max-jobs, estimate-time-budget), so it counts the free "
                + "resources of the partition's nodes together and chooses no nodes";

        boolean rough() {
            return start != null && nodes.isEmpty();
        }
    }

    /** The snapshot of a cycle the scheduler just planned; {@code full} for a full pass. */
    void planned(Snapshot snapshot, boolean full) {
        latest = snapshot;
        if (full) {
            latestFull = snapshot;
        }
    }

    /**
     * The latest cycle's snapshot with the queue of the last full pass (a quick cycle sees only part of
     * it), less the jobs that have started since.
     */
    private static Snapshot current(Snapshot latest, Snapshot full) {
        if (full == latest) {
            return latest;
        }
        java.util.Set<io.gantry.engine.JobId> started = new java.util.HashSet<>();
        latest.running().forEach(r -> started.add(r.id()));
        return latest.toBuilder().pending(full.pending().stream().filter(p -> !started.contains(p.id())).toList())
                .build();
    }

    synchronized Estimate estimate(ActiveJob job) {
        Snapshot full = latestFull;
        if (full == null) {
            throw new GantryException(ProblemType.UNAVAILABLE, "The scheduler has not planned yet; retry shortly");
        }
        Snapshot base = current(latest, full);
        PendingJob trial = EngineRequests.pending(job);
        List<PendingJob> pending = new ArrayList<>(base.pending().size() + 1);
        pending.addAll(base.pending());
        pending.add(trial);
        Snapshot snapshot = base.toBuilder().now(Math.max(base.now(), clock.instant().getEpochSecond()))
                .pending(pending).build();
        Plan plan = engine.plan(snapshot);
        for (Start start : plan.starts()) {
            if (start.job().equals(trial.id())) {
                return new Estimate(Instant.ofEpochSecond(snapshot.now()), start.partition(), start.nodeNames(),
                        start.allocation().stream().mapToLong(NodeAllocation::cpus).sum(), null);
            }
        }
        StartEstimate estimate = engine.estimateStarts(snapshot, plan, budget).of(trial.id()).orElseThrow();
        if (estimate.start().isPresent()) {
            return new Estimate(Instant.ofEpochSecond(estimate.start().getAsLong()), estimate.partition(),
                    estimate.nodes(), processors(job, estimate.nodes(), snapshot), null);
        }
        String reason = plan.waiting().stream().filter(w -> w.job().equals(trial.id())).map(Waiting::reason)
                .map(r -> r.slurmName()).findFirst().orElse(null);
        return new Estimate(null, null, List.of(), 0, why(estimate.missing(), reason));
    }

    /** What a job placed on {@code nodes} holds: their CPUs when it has them to itself, else what it asks. */
    private static long processors(ActiveJob job, List<String> nodes, Snapshot snapshot) {
        if (!job.exclusive() || nodes.isEmpty()) {
            // A rough time names no nodes: what the job asks for.
            return (long) job.tasks() * job.cpusPerTask();
        }
        Map<String, Integer> cpus = new HashMap<>();
        for (Node node : snapshot.nodes()) {
            cpus.put(node.name(), node.cpus());
        }
        return nodes.stream().mapToLong(n -> cpus.getOrDefault(n, 0)).sum();
    }

    private static String why(StartEstimate.Missing missing, String reason) {
        String as = reason == null ? "" : " (" + reason + ")";
        return switch (missing) {
            case LIMIT -> "a QOS or association limit keeps it waiting until other jobs end" + as;
            case NEVER_FITS -> "it cannot run on the cluster as it is now" + as;
            case OVER_BUDGET -> "the queue ahead of it is longer than the estimator looks (gantry.scheduler."
                    + "estimate-max-jobs, estimate-time-budget)";
            case HELD, DEPENDENCY -> "it waits" + as;
        };
    }

    static String hostlist(List<String> nodes) {
        return nodes.isEmpty() ? null : Hostlist.of(nodes).compressed();
    }
}
