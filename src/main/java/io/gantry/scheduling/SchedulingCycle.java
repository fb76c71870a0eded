package io.gantry.scheduling;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

import io.gantry.accounting.AccountingService;
import io.gantry.accounting.AccountingViews.EngineLimits;
import io.gantry.cluster.ClusterService;
import io.gantry.cluster.ClusterService.NodeUse;
import io.gantry.engine.Constraint;
import io.gantry.engine.Engine;
import io.gantry.engine.Hostlist;
import io.gantry.engine.JobId;
import io.gantry.engine.NodeAllocation;
import io.gantry.engine.PendingJob;
import io.gantry.engine.Plan;
import io.gantry.engine.Policy;
import io.gantry.engine.Request;
import io.gantry.engine.RunningJob;
import io.gantry.engine.Snapshot;
import io.gantry.engine.Start;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.Hold;
import io.gantry.jobs.JobAllocation;
import io.gantry.jobs.JobState;
import io.gantry.jobs.SchedulerJobs;
import io.gantry.jobs.SchedulerJobs.Waiting;

/**
 * One scheduling cycle: read the store, ask the engine for a plan, apply it in one transaction.
 * Jobs the engine need not see (held, waiting on a dependency or a begin time, over their array's
 * running limit) get their reason here; every start is re-checked against the store before it is
 * written, so a job cancelled or a node drained during the cycle is never started on.
 */
@Component
class SchedulingCycle {

    private final SchedulerJobs jobs;
    private final ClusterService cluster;
    private final AccountingService accounting;
    private final GpuLedger gpus;
    private final TransactionTemplate transaction;
    private final ApplicationEventPublisher events;
    private final Clock clock;
    private final Engine engine = new Engine();
    private final Policy policy;

    SchedulingCycle(SchedulerJobs jobs, ClusterService cluster, AccountingService accounting, GpuLedger gpus,
            TransactionTemplate transaction, ApplicationEventPublisher events, Clock clock,
            SchedulerProperties properties) {
        this.jobs = jobs;
        this.cluster = cluster;
        this.accounting = accounting;
        this.gpus = gpus;
        this.transaction = transaction;
        this.events = events;
        this.clock = clock;
        this.policy = Policy.named(properties.policy());
    }

    private PriorityBoard priorities = new PriorityBoard();
    private JobCompletion completion;

    @org.springframework.beans.factory.annotation.Autowired
    void jobCompletion(JobCompletion completion) {
        this.completion = completion;
    }

    @org.springframework.beans.factory.annotation.Autowired
    void priorityBoard(PriorityBoard board) {
        this.priorities = board;
    }

    /** The advance reservations not yet over; the reservations feature supplies them. */
    private ReservationSource reservations = List::of;

    @org.springframework.beans.factory.annotation.Autowired
    void reservationSource(ReservationSource source) {
        this.reservations = source;
    }

    record Outcome(int started, int backfilled, int pending, int running) {
    }

    /** What one cycle decided, before it is applied. */
    record Planned(Instant now, Plan plan, Map<JobId, ActiveJob> byEngineId, Map<Long, Waiting> decided,
            int pending, int running, Map<JobId, ActiveJob> runningByEngineId) {
    }

    Outcome run() {
        return apply(plan());
    }

    /** Reads the store and asks the engine; writes nothing. */
    Planned plan() {
        Instant now = clock.instant();
        List<ActiveJob> active = jobs.activeJobs();
        List<RunningJob> running = new ArrayList<>();
        Map<Long, Integer> runningPerArray = new HashMap<>();
        List<ActiveJob> pending = new ArrayList<>();
        Map<JobId, ActiveJob> runningByEngineId = new HashMap<>();
        for (ActiveJob job : active) {
            if (job.state() == JobState.PENDING) {
                pending.add(job);
            } else {
                RunningJob engineJob = runningJob(job);
                running.add(engineJob);
                if (job.state() == JobState.RUNNING) {
                    runningByEngineId.put(engineJob.id(), job);
                }
                if (job.arrayTaskId() >= 0) {
                    runningPerArray.merge(job.jobId(), 1, Integer::sum);
                }
            }
        }

        Dependencies dependencies = new Dependencies(jobs.outcomes(Dependencies.referencedIds(pending)), active, now);
        Map<Long, Waiting> decided = new HashMap<>();
        List<PendingJob> schedulable = new ArrayList<>();
        Map<JobId, ActiveJob> byEngineId = new HashMap<>();
        Map<Long, Integer> arrayStartsLeft = new HashMap<>();
        pending.sort((a, b) -> Integer.compare(a.arrayTaskId(), b.arrayTaskId()));
        for (ActiveJob job : pending) {
            String reason = callerReason(job, dependencies, now, runningPerArray, arrayStartsLeft);
            if (reason != null) {
                decided.put(job.row(), new Waiting(reason, job.priority(), null));
                continue;
            }
            PendingJob engineJob = pendingJob(job, now);
            schedulable.add(engineJob);
            byEngineId.put(engineJob.id(), job);
        }

        EngineLimits limits = accounting.engineLimits();
        Snapshot snapshot = Snapshot.builder().now(now.getEpochSecond()).nodes(cluster.engineNodes())
                .partitions(cluster.enginePartitions()).switches(cluster.engineSwitches()).running(running)
                .pending(schedulable).qos(limits.qos()).associations(limits.associations()).policy(policy)
                .reservations(reservations.current()).build();
        Plan plan = engine.plan(snapshot);
        priorities.record(now, policy.weights(), plan, byEngineId);
        return new Planned(now, plan, byEngineId, decided, pending.size(), running.size(), runningByEngineId);
    }

    /**
     * Applies a plan in one transaction. A start whose job changed since it was read (cancelled,
     * held, updated) is skipped; if a node can no longer take what the plan gives it, the whole
     * cycle rolls back and the next one plans again.
     */
    Outcome apply(Planned planned) {
        // Jobs start when the plan is written, not when the snapshot was read: a job that ended in
        // between (and freed what the plan gives) must be seen to end before its successor starts.
        Instant now = clock.instant();
        Map<Long, Waiting> decided = new HashMap<>(planned.decided());
        List<ActiveJob> started = new ArrayList<>();
        int[] backfilled = {0};
        List<JobsPreempted.Victim> victims = new ArrayList<>();
        transaction.executeWithoutResult(status -> {
            // Preempted jobs give back what they hold first, in this transaction, for the jobs that stop them.
            for (io.gantry.engine.Preemption p : planned.plan().preemptions()) {
                ActiveJob victim = planned.runningByEngineId().get(p.victim());
                ActiveJob by = planned.byEngineId().get(p.by());
                if (victim == null || by == null) {
                    continue;
                }
                String detail = "preempted by job " + by.displayId() + " (QOS " + by.qos() + ")";
                if (completion.preempt(victim.row(), p.mode(), now, detail)) {
                    victims.add(new JobsPreempted.Victim(victim.row(), victim.displayId(),
                            victim.allocation().isEmpty() ? null : victim.allocation().get(0).node(), detail));
                }
            }
            if (!victims.isEmpty()) {
                events.publishEvent(new JobsPreempted(List.copyOf(victims)));
            }
            Map<String, NodeUse> free = new HashMap<>(cluster.free());
            List<NodeUse> taken = new ArrayList<>();
            Map<Long, List<JobAllocation>> gpusTaken = new HashMap<>();
            List<SchedulerJobs.StartedEvent> history = new ArrayList<>();
            jobs.prefetch(planned.plan().starts().stream().map(st -> planned.byEngineId().get(st.job()).row()).toList());
            for (Start start : planned.plan().starts()) {
                ActiveJob job = planned.byEngineId().get(start.job());
                List<JobAllocation> allocation = start.allocation().stream()
                        .map(a -> new JobAllocation(a.node(), a.cpus(), a.memoryMb(), a.gpuIndices())).toList();
                List<NodeUse> uses = allocation.stream()
                        .map(JobAllocation::use).toList();
                if (!fits(uses, free)) {
                    // A node was drained, downed or filled since the snapshot: this job waits for the next cycle.
                    continue;
                }
                String nodes = Hostlist.of(start.nodeNames()).compressed();
                if (!jobs.start(job.row(), job.version(), start.partition(), now, allocation, nodes,
                        start.priority().value(), start.backfilled())) {
                    continue;
                }
                for (NodeUse use : uses) {
                    NodeUse f = free.get(use.node());
                    free.put(use.node(), new NodeUse(use.node(), f.cpus() - use.cpus(), f.memoryMb() - use.memoryMb(),
                            f.gpus() - use.gpus()));
                }
                taken.addAll(uses);
                gpusTaken.put(job.row(), allocation);
                history.add(new SchedulerJobs.StartedEvent(job.row(), now, nodes, start.partition(), start.backfilled()));
                started.add(jobs.activeJob(job.row()).orElseThrow());
                if (start.backfilled()) {
                    backfilled[0]++;
                }
            }
            cluster.takeChecked(taken);
            gpus.hold(gpusTaken);
            jobs.recordStarts(history);
            for (io.gantry.engine.Waiting w : planned.plan().waiting()) {
                ActiveJob job = planned.byEngineId().get(w.job());
                Instant expected = w.expectedStart().isPresent()
                        ? Instant.ofEpochSecond(w.expectedStart().getAsLong()) : null;
                decided.put(job.row(), new Waiting(w.reason().slurmName(), w.priority().value(), expected));
            }
            jobs.recordWaiting(decided);
            if (!started.isEmpty()) {
                events.publishEvent(new JobStarted(List.copyOf(started)));
            }
        });
        return new Outcome(started.size(), backfilled[0], planned.pending() - started.size(),
                planned.running() + started.size());
    }

    private static boolean fits(List<NodeUse> uses, Map<String, NodeUse> free) {
        for (NodeUse use : uses) {
            NodeUse f = free.get(use.node());
            if (f == null || use.cpus() > f.cpus() || use.memoryMb() > f.memoryMb() || use.gpus() > f.gpus()) {
                return false;
            }
        }
        return true;
    }

    private static String callerReason(ActiveJob job, Dependencies dependencies, Instant now,
            Map<Long, Integer> runningPerArray, Map<Long, Integer> arrayStartsLeft) {
        if (job.hold() == Hold.USER) {
            return "JobHeldUser";
        }
        if (job.hold() == Hold.ADMIN) {
            return "JobHeldAdmin";
        }
        switch (dependencies.of(job)) {
            case WAITING:
                return "Dependency";
            case NEVER:
                return "DependencyNeverSatisfied";
            default:
                break;
        }
        if (job.eligibleTime() != null && job.eligibleTime().isAfter(now)) {
            return "BeginTime";
        }
        if (job.arrayMaxRunning() != null && job.arrayTaskId() >= 0) {
            int left = arrayStartsLeft.computeIfAbsent(job.jobId(),
                    id -> job.arrayMaxRunning() - runningPerArray.getOrDefault(id, 0));
            if (left <= 0) {
                return "JobArrayTaskLimit";
            }
            arrayStartsLeft.put(job.jobId(), left - 1);
        }
        return null;
    }

    private static RunningJob runningJob(ActiveJob job) {
        List<NodeAllocation> allocation = job.allocation().stream()
                .map(a -> new NodeAllocation(a.node(), a.cpus(), a.memoryMb(), a.gpuIndices())).toList();
        long start = job.startTime().getEpochSecond();
        return new RunningJob(JobId.of(job.jobId(), job.arrayTaskId()), job.user(), job.account(), job.qos(),
                job.partition(), allocation, start, start + job.timeLimitSeconds());
    }

    static PendingJob pendingJob(ActiveJob job, Instant now) {
        Request request = Request.builder().nodes(job.minNodes()).tasks(job.tasks()).cpusPerTask(job.cpusPerTask())
                .memoryMb(job.memoryMb()).gpus(job.gpus()).gpusPerNode(job.gpusPerNode()).gpuType(job.gpuType())
                .constraint(Constraint.parse(job.constraints())).exclusive(job.exclusive()).build();
        long eligible = job.eligibleTime() == null ? job.submitTime().getEpochSecond() : job.eligibleTime().getEpochSecond();
        return new PendingJob(JobId.of(job.jobId(), job.arrayTaskId()), job.user(), job.account(), job.qos(),
                job.partitions(), request, job.timeLimitSeconds(), job.submitTime().getEpochSecond(), eligible,
                job.nice(), null, 0, job.reservation());
    }
}
