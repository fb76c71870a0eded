package io.gantry.scheduling;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

import io.gantry.accounting.AccountingService;
import io.gantry.accounting.AccountingViews.EngineLimits;
import io.gantry.accounting.QuotaMarks;
import io.gantry.cluster.ClusterService;
import io.gantry.cluster.ClusterService.NodeUse;
import io.gantry.engine.Engine;
import io.gantry.engine.Hostlist;
import io.gantry.engine.JobId;
import io.gantry.engine.NodeAllocation;
import io.gantry.engine.PendingJob;
import io.gantry.engine.PendingReason;
import io.gantry.engine.Plan;
import io.gantry.engine.Policy;
import io.gantry.engine.RunningJob;
import io.gantry.engine.Snapshot;
import io.gantry.engine.Start;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.EngineRequests;
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

    private static final Logger log = LoggerFactory.getLogger(SchedulingCycle.class);

    /** Changed expected starts written after one cycle; the rest after the next ones. */
    static final int MAX_EXPECTED_START_WRITES = 5_000;

    private final SchedulerJobs jobs;
    private final ClusterService cluster;
    private final AccountingService accounting;
    private final GpuLedger gpus;
    private final TransactionTemplate transaction;
    private final ApplicationEventPublisher events;
    private final Clock clock;
    private final Engine engine = new Engine();
    private final Policy policy;
    private final LiveJobs live;
    private final SchedulerProperties properties;
    private final JobCompletion completion;
    /** Expected starts of the waiting jobs, estimated beside the cycles. */
    private final ExpectedStarts expectedStarts;
    /** Keeps the latest snapshots, against which a job's start is tried without writing anything. */
    private final TrialStarts trials;
    private final PriorityBoard priorities;
    private final QuotaReclaims reclaims;
    private final QuotaMarks marks;
    private final QuotaProperties quotaProperties;
    /** The advance reservations not yet over; the reservations feature supplies them. */
    private final ReservationSource reservations;
    /** The last full pass's waiting jobs, highest priority first, and those it reserved for. */
    private List<Long> ranked = List.of();
    private List<Long> reserved = List.of();
    private Instant lastPriorityWrite;
    /** The last full pass not yet given expected starts: its snapshot, plan and jobs. */
    private FullPass lastFull;
    /** Cycles planned so far: each decision is stamped with its cycle's number. */
    private long cycles;
    /** The cycle whose full pass the running (or last finished) estimate pass works from. */
    private long estimatedFrom;
    /**
     * Expected starts of the last finished pass not yet compared with the store, in queue order, and the
     * cycle that pass was planned from: at most {@link #MAX_EXPECTED_START_WRITES} changed rows are
     * written after a cycle, so that a pass that changes the whole queue (the first after a start, with
     * 100,000 jobs pending) does not hold the scheduler for seconds.
     */
    private Iterator<Map.Entry<Long, Instant>> unwritten;
    private long unwrittenFrom;

    private record FullPass(Snapshot snapshot, Plan plan, Map<JobId, ActiveJob> byEngineId, long cycle) {
    }

    private volatile boolean outsideChange;
    /** When the rules by which time ends jobs were last asked: at most once a second, a query each. */
    private Instant clockRulesAsked;

    SchedulingCycle(SchedulerJobs jobs, ClusterService cluster, AccountingService accounting, GpuLedger gpus,
            TransactionTemplate transaction, ApplicationEventPublisher events, Clock clock,
            SchedulerProperties properties, LiveJobs live, JobCompletion completion, ExpectedStarts expectedStarts,
            TrialStarts trials, PriorityBoard priorities, QuotaReclaims reclaims, QuotaMarks marks,
            QuotaProperties quotaProperties, ReservationSource reservations) {
        this.live = live;
        this.properties = properties;
        this.jobs = jobs;
        this.cluster = cluster;
        this.accounting = accounting;
        this.gpus = gpus;
        this.transaction = transaction;
        this.events = events;
        this.clock = clock;
        this.policy = Policy.named(properties.policy())
                .withTresWeights(io.gantry.engine.TresPriorityWeights.parse(properties.priorityWeightTres()));
        this.completion = completion;
        this.expectedStarts = expectedStarts;
        this.trials = trials;
        this.priorities = priorities;
        this.reclaims = reclaims;
        this.marks = marks;
        this.quotaProperties = quotaProperties;
        this.reservations = reservations;
    }

    /**
     * This controller has just become the leader and loaded the running jobs: which of them borrow,
     * and at which account, is read back from the store ({@code quota_jobs}, as the old leader wrote
     * it each cycle), so that the first plan places them as the old leader's last plan did. Where the
     * store does not say (rows from before it did), the borrowed marker counts, unless a reclaim
     * stopped the job's current run; one whose reclaim ended an earlier run (requeued, started again)
     * counts too: a job that borrows and is not known to is never reclaimed, one known to borrow that
     * does not is only placed last. Victims of a reclaim still in their grace time are read back too
     * (the store got them in the transaction of the decision): they are stopped at the same deadline,
     * not warned again, and their GPUs count as coming back, so no other job is chosen in their place.
     */
    void leaderStarted(Collection<ActiveJob> running) {
        if (running.isEmpty()) {
            reclaims.seed(Set.of(), Map.of(), Map.of());
            return;
        }
        Map<QuotaMarks.Key, ActiveJob> byKey = new HashMap<>();
        for (ActiveJob j : running) {
            byKey.put(new QuotaMarks.Key(j.jobId(), j.arrayTaskId()), j);
        }
        Set<JobId> borrowing = new java.util.HashSet<>();
        Map<JobId, Map<String, String>> at = new HashMap<>();
        Map<JobId, Map<String, String>> inStore = new HashMap<>();
        Map<QuotaMarks.Key, QuotaMarks.Mark> found = marks.of(byKey.keySet());
        found.forEach((key, mark) -> {
            ActiveJob job = byKey.get(key);
            if (job == null) {
                // Another task of a running array's job id.
                return;
            }
            JobId id = JobId.of(key.jobId(), key.arrayTaskId());
            if (mark.borrowingNow() != null) {
                if (!mark.borrowingNow().isEmpty()) {
                    borrowing.add(id);
                    at.put(id, mark.borrowingNow());
                    inStore.put(id, mark.borrowingNow());
                }
            } else if (mark.reclaimedAt() == null || job.startTime() == null
                    || mark.reclaimedAt().isBefore(job.startTime())) {
                borrowing.add(id);
                inStore.put(id, QuotaReclaims.UNKNOWN);
            }
        });
        reclaims.seed(borrowing, at, inStore);
        found.forEach((key, mark) -> {
            ActiveJob job = byKey.get(key);
            QuotaMarks.Grace grace = mark.grace();
            // A grace that started before the current run is an earlier run's (it ended another way).
            if (job != null && grace != null && job.state() == JobState.RUNNING && job.startTime() != null
                    && !grace.from().isBefore(job.startTime())) {
                reclaims.stop(new QuotaReclaims.Stopping(job.row(), JobId.of(key.jobId(), key.arrayTaskId()),
                        grace.until(), io.gantry.engine.Preemption.Mode.valueOf(grace.mode()), grace.detail(),
                        grace.forJob()));
            }
        });
    }

    /**
     * Where running jobs' borrowing differs from what the store says: the plan's accounts for those
     * that borrow, an empty map for those that no longer do (or no longer run).
     */
    private Map<JobId, Map<String, String>> borrowingChanges(Planned planned) {
        Map<JobId, Map<String, String>> desired = planned.plan().borrowedAt();
        Map<JobId, Map<String, String>> stored = reclaims.stored();
        if (desired.isEmpty() && stored.isEmpty()) {
            return Map.of();
        }
        Map<JobId, Map<String, String>> changes = new HashMap<>();
        desired.forEach((id, levels) -> {
            if (planned.runningByEngineId().containsKey(id) && !levels.equals(stored.get(id))) {
                changes.put(id, levels);
            }
        });
        stored.forEach((id, levels) -> {
            if (!desired.containsKey(id) || !planned.runningByEngineId().containsKey(id)) {
                changes.put(id, Map.of());
            }
        });
        return changes;
    }

    /** This controller is no longer the leader: what it had not yet written is another leader's to decide. */
    void leaderLost() {
        reclaims.forget();
        unwritten = null;
    }

    record Outcome(int started, int backfilled, int pending, int running) {
    }

    /** What one cycle decided, before it is applied. */
    record Planned(Instant now, Plan plan, Map<JobId, ActiveJob> byEngineId, Map<Long, Waiting> decided,
            int pending, int running, Map<JobId, ActiveJob> runningByEngineId, boolean full,
            Map<String, Long> graceSeconds, long cycle, List<ActiveJob> resuming) {
    }

    /** Runs a full pass: every job that may start is planned, with backfill and reservations. */
    Outcome run() {
        return run(true);
    }

    /**
     * Runs a cycle: a full pass, or a quick one over the jobs that just became eligible, the jobs
     * that hold a reservation and the highest-priority ones (the engine still sees every running
     * job, so a quick cycle's backfill never delays a reservation it knows of). A quick cycle with
     * nothing changed since the last one is skipped: empty then.
     */
    Outcome run(boolean full) {
        Planned planned = plan(full);
        return planned == null ? null : apply(planned);
    }

    /** Reads what changed and asks the engine; writes nothing. Null for a quick cycle with nothing to do. */
    Planned plan() {
        return plan(true);
    }

    Planned plan(boolean full) {
        Instant now = clock.instant();
        if (!live.loaded()) {
            live.load(now);
            full = true;
        }
        endByTheClock(now);
        boolean changed = live.refresh(now);
        if (!full && !changed && !outsideChange && !reclaims.anyDue(now)) {
            return null;
        }
        outsideChange = false;
        Map<Long, Waiting> decided = new HashMap<>();
        live.judgeDependencies(full, now).forEach((row, reason) -> decide(decided, live.get(row), reason.slurmName(), null));

        List<RunningJob> running = new ArrayList<>();
        Map<JobId, ActiveJob> runningByEngineId = new HashMap<>();
        List<ActiveJob> suspended = new ArrayList<>();
        List<ActiveJob> holding = new ArrayList<>();
        for (LiveJobs.Entry e : live.running()) {
            if (e.job.suspendedForPreemptor()) {
                // It holds nothing: what it held is its preemptor's until it resumes (one an operator suspended holds it all).
                suspended.add(e.job);
                continue;
            }
            holding.add(e.job);
        }
        // Those whose resources are free again resume in this cycle: the engine sees them run.
        List<ActiveJob> resuming = Resumable.of(suspended, holding, cluster.layout().nodes());
        holding.addAll(resuming);
        for (ActiveJob job : holding) {
            LiveJobs.Entry e = live.get(job.row());
            RunningJob engineJob = EngineRequests.running(e.job);
            running.add(engineJob);
            if (e.job.state() == JobState.RUNNING || e.job.suspendedForPreemptor()) {
                runningByEngineId.put(engineJob.id(), e.job);
            }
        }

        Set<Long> fresh = live.takeFresh();
        Collection<LiveJobs.Entry> candidates = full || live.eligible().size() <= properties.quickDepth()
                ? live.eligible() : quickCandidates(fresh);
        List<PendingJob> schedulable = new ArrayList<>(candidates.size());
        Map<JobId, ActiveJob> byEngineId = new HashMap<>();
        Map<Long, List<LiveJobs.Entry>> limitedArrays = new HashMap<>();
        for (LiveJobs.Entry e : candidates) {
            if (e.job.arrayMaxRunning() != null && e.job.arrayTaskId() >= 0) {
                limitedArrays.computeIfAbsent(e.job.jobId(), k -> new ArrayList<>()).add(e);
                continue;
            }
            PendingJob engineJob = e.engineJob();
            schedulable.add(engineJob);
            byEngineId.put(engineJob.id(), e.job);
        }
        for (List<LiveJobs.Entry> tasks : limitedArrays.values()) {
            tasks.sort(Comparator.comparingInt(e -> e.job.arrayTaskId()));
            int left = tasks.get(0).job.arrayMaxRunning() - live.runningInArray(tasks.get(0).job.jobId());
            for (LiveJobs.Entry e : tasks) {
                if (left-- > 0) {
                    PendingJob engineJob = e.engineJob();
                    schedulable.add(engineJob);
                    byEngineId.put(engineJob.id(), e.job);
                } else {
                    decide(decided, e, PendingReason.JOB_ARRAY_TASK_LIMIT.slurmName(), null);
                }
            }
        }

        EngineLimits limits = accounting.engineLimits();
        ClusterService.EngineLayout layout = cluster.engineLayout();
        Snapshot snapshot = Snapshot.builder().now(now.getEpochSecond()).nodes(layout.nodes())
                .partitions(layout.partitions()).switches(cluster.engineSwitches()).running(running)
                .pending(schedulable).qos(limits.qos()).associations(limits.associations()).policy(policy)
                .reservations(reservations.current()).budgets(accounting.engineBudgets()).preemptType(layout.preemptType())
                .quotas(new io.gantry.engine.QuotaTree(limits.quotas(), quotaProperties.minRuntime().toSeconds(),
                        reclaims.stoppingIds(), reclaims.borrowing(), reclaims.borrowedAt())).build();
        Plan plan = engine.plan(snapshot);
        trials.planned(snapshot, full);
        reclaims.retainRunning(runningByEngineId.keySet());
        reclaims.planned(snapshot, plan.borrowing(), plan.borrowedAt());
        boolean writePriorities = false;
        if (full) {
            lastFull = new FullPass(snapshot, plan, byEngineId, cycles + 1);
            priorities.record(now, policy.weights(), plan, byEngineId);
            rank(plan, byEngineId);
            if (lastPriorityWrite == null || !now.isBefore(lastPriorityWrite.plus(properties.priorityWriteInterval()))) {
                writePriorities = true;
                lastPriorityWrite = now;
            }
        }
        for (io.gantry.engine.Waiting w : plan.waiting()) {
            ActiveJob job = byEngineId.get(w.job());
            LiveJobs.Entry e = live.get(job.row());
            // A reservation's start, else the last estimate pass's until the next one (estimateStarts).
            Instant expected = w.expectedStart().isPresent() ? Instant.ofEpochSecond(w.expectedStart().getAsLong())
                    : e == null ? null : e.recorded.expectedStart();
            Waiting decision = new Waiting(w.reason().slurmName(), w.priority().value(), expected);
            if (e != null && (!Objects.equals(e.recorded.reason(), decision.reason())
                    || !Objects.equals(e.recorded.expectedStart(), decision.expectedStart())
                    || writePriorities && e.recorded.priority() != decision.priority())) {
                decided.put(job.row(), decision);
            }
        }
        return new Planned(now, plan, byEngineId, decided, live.size() - live.running().size(), running.size(),
                runningByEngineId, full, limits.graceSeconds(), ++cycles, resuming);
    }

    /**
     * Ends and stops the jobs time alone has ended ({@link io.gantry.jobs.JobClockRule}; at most once a second) before
     * the live state is refreshed: the change notes of what they ended take them out of this cycle's plan.
     */
    private void endByTheClock(Instant now) {
        if (clockRulesAsked != null && now.isBefore(clockRulesAsked.plusSeconds(1))) {
            return;
        }
        clockRulesAsked = now;
        transaction.executeWithoutResult(status -> {
            for (io.gantry.jobs.JobClockRule.Ended ended : jobs.endByTheClock(now)) {
                ended.jobIds().forEach(id -> events.publishEvent(new io.gantry.jobs.JobsChanged(id, ended.change())));
                if (!ended.stopping().isEmpty()) {
                    events.publishEvent(new io.gantry.jobs.JobCancelRequested(ended.stopping()));
                }
            }
        });
    }

    /** A decision for a job the engine did not see; recorded only when it differs from the store's. */
    private static void decide(Map<Long, Waiting> decided, LiveJobs.Entry e, String reason, Instant expected) {
        if (e != null && (!Objects.equals(e.recorded.reason(), reason) || !Objects.equals(e.recorded.expectedStart(), expected))) {
            decided.put(e.job.row(), new Waiting(reason, e.recorded.priority(), expected));
        }
    }

    /**
     * Writes the expected starts of the last finished estimate pass that changed, then hands the
     * last full pass (its snapshot, with the jobs waiting for their begin time added, and its plan)
     * to {@link ExpectedStarts}: run after a cycle is applied, so neither delays a start. Returns
     * how many rows it wrote.
     */
    int estimateStarts() {
        int written = writeExpectedStarts();
        FullPass pass = lastFull;
        lastFull = null;
        if (pass != null) {
            Map<JobId, ActiveJob> rows = new HashMap<>(pass.byEngineId());
            List<PendingJob> pending = new ArrayList<>(pass.snapshot().pending());
            for (LiveJobs.Entry e : live.waitingForBegin()) {
                PendingJob engineJob = e.engineJob();
                if (rows.putIfAbsent(engineJob.id(), e.job) == null) {
                    pending.add(engineJob);
                }
            }
            if (expectedStarts.start(pass.snapshot().toBuilder().pending(pending).build(), pass.plan(), rows)) {
                estimatedFrom = pass.cycle();
            }
        }
        return written;
    }

    private int writeExpectedStarts() {
        Map<Long, Instant> finished = expectedStarts.takeFinished();
        if (finished != null) {
            // A newer pass replaces what is left of the last one; rows written already compare equal.
            unwritten = finished.entrySet().iterator();
            unwrittenFrom = estimatedFrom;
        }
        if (unwritten == null) {
            return 0;
        }
        Map<Long, Waiting> changed = new HashMap<>();
        while (unwritten.hasNext() && changed.size() < MAX_EXPECTED_START_WRITES) {
            Map.Entry<Long, Instant> next = unwritten.next();
            LiveJobs.Entry e = live.get(next.getKey());
            Instant expected = next.getValue();
            // A cycle after the pass's own decided this job's start (a reservation of a newer plan):
            // the pass, planned from what was before, would set it back until the next pass.
            if (e != null && e.job.state() == JobState.PENDING && e.decidedIn <= unwrittenFrom
                    && !Objects.equals(e.recorded.expectedStart(), expected)) {
                changed.put(next.getKey(), new Waiting(e.recorded.reason(), e.recorded.priority(), expected));
            }
        }
        if (!unwritten.hasNext()) {
            unwritten = null;
        }
        if (changed.isEmpty()) {
            return 0;
        }
        List<LiveJobs.Entry> told = new ArrayList<>();
        long begin = System.nanoTime();
        transaction.executeWithoutResult(status -> {
            jobs.recordWaiting(changed);
            told.addAll(announce(changed));
        });
        changed.forEach((row, w) -> live.get(row).recorded = w);
        told.forEach(e -> e.announced = e.recorded);
        log.debug("Expected starts written: {} rows, {} told, in {} ms{}", changed.size(), told.size(),
                (System.nanoTime() - begin) / 1_000_000, unwritten == null ? "" : "; more after the next cycle");
        return changed.size();
    }

    /** The rows a quick cycle plans: fresh ones, reserved ones and the highest-ranked ones still eligible. */
    private Collection<LiveJobs.Entry> quickCandidates(Set<Long> fresh) {
        Map<Long, LiveJobs.Entry> chosen = new LinkedHashMap<>();
        for (Long row : ranked) {
            if (chosen.size() >= properties.quickDepth()) {
                break;
            }
            LiveJobs.Entry e = live.get(row);
            if (e != null && e.wait == LiveJobs.Wait.ENGINE) {
                chosen.put(row, e);
            }
        }
        for (Long row : reserved) {
            LiveJobs.Entry e = live.get(row);
            if (e != null && e.wait == LiveJobs.Wait.ENGINE) {
                chosen.put(row, e);
            }
        }
        for (Long row : fresh) {
            LiveJobs.Entry e = live.get(row);
            if (e != null && e.wait == LiveJobs.Wait.ENGINE) {
                chosen.put(row, e);
            }
        }
        return chosen.values();
    }

    /** Remembers the full pass's order of waiting jobs and which of them hold reservations. */
    private void rank(Plan plan, Map<JobId, ActiveJob> byEngineId) {
        List<io.gantry.engine.Waiting> waiting = new ArrayList<>(plan.waiting());
        waiting.sort(Comparator.comparingLong((io.gantry.engine.Waiting w) -> w.priority() == null ? Long.MIN_VALUE
                : -w.priority().value()));
        List<Long> order = new ArrayList<>(waiting.size());
        List<Long> withReservation = new ArrayList<>();
        for (io.gantry.engine.Waiting w : waiting) {
            ActiveJob job = byEngineId.get(w.job());
            order.add(job.row());
            if (w.expectedStart().isPresent()) {
                withReservation.add(job.row());
            }
        }
        ranked = order;
        reserved = withReservation;
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
        Map<JobId, Map<String, String>> borrowingChanges = new HashMap<>(borrowingChanges(planned));
        if (decided.isEmpty() && planned.plan().starts().isEmpty() && planned.plan().preemptions().isEmpty()
                && !reclaims.anyDue(now) && borrowingChanges.isEmpty() && planned.resuming().isEmpty()) {
            // Nothing to write: no transaction at all.
            return new Outcome(0, 0, planned.pending(), planned.running());
        }
        // Reclaimed jobs whose grace time is over stop now; their owners start in a later cycle.
        List<QuotaReclaims.Stopping> due = reclaims.takeDue(now);
        Written written;
        try {
            written = transaction.execute(status -> write(planned, now, decided, borrowingChanges, due));
        } catch (RuntimeException e) {
            // Rolled back: the victims whose grace was over are still to be stopped; none started one.
            due.forEach(reclaims::stop);
            throw e;
        }
        // Committed: the store now holds these decisions.
        written.graceStarted().forEach(reclaims::stop);
        reclaims.written(written.borrowing());
        decided.forEach((row, w) -> {
            LiveJobs.Entry e = live.get(row);
            if (e != null) {
                e.recorded = w;
                e.decidedIn = planned.cycle();
            }
        });
        written.told().forEach(e -> e.announced = e.recorded);
        int started = written.started().size();
        return new Outcome(started, written.backfilled(), planned.pending() - started, planned.running() + started);
    }

    /**
     * What one cycle's transaction wrote: the jobs it started ({@code backfilled} of them by backfill),
     * the entries whose decisions live views were told of, the reclaims whose grace time it started,
     * and where running jobs borrow as the store now says.
     */
    private record Written(List<ActiveJob> started, int backfilled, List<LiveJobs.Entry> told,
            List<QuotaReclaims.Stopping> graceStarted, Map<JobId, Map<String, String>> borrowing) {
    }

    /**
     * The plan's writes, inside the cycle's transaction: stops the reclaims that are {@code due},
     * the preemptions and the starts, and records the decisions; {@code borrowingChanges} gains the
     * borrowing of the jobs it starts.
     */
    private Written write(Planned planned, Instant now, Map<Long, Waiting> decided,
            Map<JobId, Map<String, String>> borrowingChanges, List<QuotaReclaims.Stopping> due) {
        // Resumed first: a job the plan preempts again in this cycle is stopped as it now runs.
        List<JobsSuspended.Target> resumed = resume(planned, now);
        List<JobsSuspended.Target> suspended = new ArrayList<>();
        List<QuotaReclaims.Stopping> graceStarted = stop(planned, now, due, suspended);
        if (!resumed.isEmpty() || !suspended.isEmpty()) {
            events.publishEvent(new JobsSuspended(suspended, resumed));
        }
        Started started = start(planned, now, borrowingChanges);
        if (!borrowingChanges.isEmpty()) {
            // Marks the jobs that start borrowing, and says where running jobs borrow now for a new leader.
            Map<QuotaMarks.Key, Map<String, String>> byKey = new HashMap<>();
            borrowingChanges.forEach((id, levels) -> byKey.put(new QuotaMarks.Key(id.id(), id.arrayTask()), levels));
            marks.borrowingNow(byKey, now);
        }
        jobs.recordStarts(started.history());
        jobs.recordWaiting(decided);
        List<LiveJobs.Entry> told = announce(decided);
        if (!started.jobs().isEmpty()) {
            events.publishEvent(new JobStarted(List.copyOf(started.jobs())));
        }
        return new Written(started.jobs(), started.backfilled(), told, graceStarted, borrowingChanges);
    }

    /**
     * Stops the reclaims that are {@code due} and the plan's preemptions, so that the jobs they stop
     * give back what they hold first, in this transaction, for the jobs that start in their place.
     * A reclaim whose QOS gives a grace time is only warned; returns those, to be stopped when it is over.
     */
    private List<QuotaReclaims.Stopping> stop(Planned planned, Instant now, List<QuotaReclaims.Stopping> due,
            List<JobsSuspended.Target> suspended) {
        List<JobsPreempted.Victim> victims = new ArrayList<>();
        List<io.gantry.jobs.JobSignalRequested.Target> graceSignals = new ArrayList<>();
        List<QuotaReclaims.Stopping> graceStarted = new ArrayList<>();
        for (QuotaReclaims.Stopping s : due) {
            reclaim(s, now).ifPresent(victims::add);
        }
        for (io.gantry.engine.Preemption p : planned.plan().preemptions()) {
            ActiveJob victim = planned.runningByEngineId().get(p.victim());
            ActiveJob by = planned.byEngineId().get(p.by());
            if (victim == null || by == null) {
                continue;
            }
            if (p.reclaim()) {
                // Requeued when the job allows it, else ended PREEMPTED; after its QOS's grace time.
                io.gantry.engine.Preemption.Mode mode = victim.requeue() ? io.gantry.engine.Preemption.Mode.REQUEUE
                        : io.gantry.engine.Preemption.Mode.CANCEL;
                long grace = planned.graceSeconds().getOrDefault(victim.qos(), 0L);
                String why = "reclaimed: account " + by.account() + " needs its guaranteed GPUs back for job "
                        + by.displayId();
                QuotaReclaims.Stopping stop = new QuotaReclaims.Stopping(victim.row(), p.victim(),
                        now.plusSeconds(grace), mode, why, by.displayId());
                if (grace <= 0) {
                    jobs.recordEvent(victim.row(), now, "RECLAIM", why);
                    reclaim(stop, now).ifPresent(victims::add);
                } else {
                    // Known to the store in this transaction, to this leader once committed.
                    graceStarted.add(stop);
                    marks.graceStarted(new QuotaMarks.Key(victim.jobId(), victim.arrayTaskId()),
                            new QuotaMarks.Grace(now, stop.deadline(), mode.name(), why, by.displayId()));
                    jobs.recordEvent(victim.row(), now, "RECLAIM", why + "; stopped after its QOS's grace time of "
                            + grace + " s");
                    // Warned as its grace starts, as Slurm's GraceTime does, so it can checkpoint.
                    jobs.graceSignal(victim.row()).ifPresent(signal -> {
                        graceSignals.add(signal);
                        jobs.recordEvent(victim.row(), now, "SIGNALLED", GraceSignals.describe(signal, grace));
                    });
                }
                continue;
            }
            String detail = "preempted by job " + by.displayId() + " (" + (p.cause() != null ? p.cause()
                    : "QOS " + by.qos() + " may preempt QOS " + victim.qos()) + ")";
            if (p.mode() == io.gantry.engine.Preemption.Mode.SUSPEND) {
                // Frozen on its nodes; what it holds goes to the preemptor, which starts in this transaction.
                completion.suspend(victim.row(), now, detail + "; suspended until what it held is free again")
                        .ifPresent(j -> suspended.add(target(j)));
                continue;
            }
            long grace = p.cause() != null ? 0 : planned.graceSeconds().getOrDefault(victim.qos(), 0L); // partition: none
            if (grace > 0) {
                // Slurm's GraceTime: warned now so it can checkpoint, stopped when its grace is over; the
                // preemptor waits for it (the engine holds the victim's resources for it meanwhile).
                QuotaReclaims.Stopping stop = new QuotaReclaims.Stopping(victim.row(), p.victim(),
                        now.plusSeconds(grace), p.mode(), detail, by.displayId(), false);
                graceStarted.add(stop);
                jobs.recordEvent(victim.row(), now, "PREEMPTING", detail + "; stopped ("
                        + (p.mode() == io.gantry.engine.Preemption.Mode.CANCEL ? "ended PREEMPTED" : "requeued")
                        + ") after its QOS's grace time of " + grace + " s");
                jobs.graceSignal(victim.row()).ifPresent(signal -> {
                    graceSignals.add(signal);
                    jobs.recordEvent(victim.row(), now, "SIGNALLED", GraceSignals.describe(signal, grace));
                });
                continue;
            }
            if (completion.preempt(victim.row(), p.mode(), now, detail)) {
                victims.add(new JobsPreempted.Victim(victim.row(), victim.displayId(),
                        victim.allocation().isEmpty() ? null : victim.allocation().get(0).node(), detail));
            }
        }
        if (!victims.isEmpty()) {
            events.publishEvent(new JobsPreempted(List.copyOf(victims)));
        }
        if (!graceSignals.isEmpty()) {
            events.publishEvent(new io.gantry.jobs.JobSignalRequested(graceSignals));
        }
        return graceStarted;
    }

    /** Resumes the suspended jobs the plan counts as running again, where the store agrees that all they held is free. */
    private List<JobsSuspended.Target> resume(Planned planned, Instant now) {
        List<JobsSuspended.Target> resumed = new ArrayList<>();
        for (ActiveJob job : planned.resuming()) {
            if (completion.resume(job, now, "resumed: what it held before it was suspended is free again")) {
                resumed.add(target(job));
            }
        }
        return resumed;
    }

    private static JobsSuspended.Target target(ActiveJob job) {
        return new JobsSuspended.Target(job.row(), job.displayId(),
                job.allocation().stream().map(JobAllocation::node).distinct().toList());
    }

    /** The jobs one cycle started, {@code backfilled} of them by backfill, and their history rows. */
    private record Started(List<ActiveJob> jobs, int backfilled, List<SchedulerJobs.StartedEvent> history) {
    }

    /**
     * Starts the plan's jobs whose nodes can still take them and whose rows did not change since they
     * were read, holding their CPUs, memory and GPUs; {@code borrowingChanges} gains where those that
     * borrow do.
     */
    private Started start(Planned planned, Instant now, Map<JobId, Map<String, String>> borrowingChanges) {
        List<ActiveJob> started = new ArrayList<>();
        int backfilled = 0;
        Map<String, NodeUse> free = planned.plan().starts().isEmpty() ? Map.of() : new HashMap<>(cluster.free());
        List<NodeUse> taken = new ArrayList<>();
        Map<Long, List<JobAllocation>> gpusTaken = new HashMap<>();
        List<SchedulerJobs.StartedEvent> history = new ArrayList<>();
        jobs.prefetch(planned.plan().starts().stream().map(st -> planned.byEngineId().get(st.job()).row()).toList());
        for (Start start : planned.plan().starts()) {
            ActiveJob job = planned.byEngineId().get(start.job());
            List<JobAllocation> allocation = start.allocation().stream()
                    .map(a -> new JobAllocation(a.node(), a.cpus(), a.memoryMb(), a.gpuIndices(), a.migIndices(),
                            a.shards() > 0 ? a.shardGpu() : null, a.shards(), gpuMillis(a))).toList();
            List<NodeUse> uses = allocation.stream()
                    .map(JobAllocation::use).toList();
            if (!fits(uses, free)) {
                // A node was drained, downed or filled since the snapshot: this job waits for the next cycle.
                continue;
            }
            String nodes = Hostlist.of(start.nodeNames()).compressed();
            if (!jobs.start(job.row(), job.version(), start.partition(), now, allocation, nodes,
                    start.priority().value(), start.backfilled(), start.expectedEnd() - start.startTime())) {
                continue;
            }
            for (NodeUse use : uses) {
                NodeUse f = free.get(use.node());
                free.put(use.node(), new NodeUse(use.node(), f.cpus() - use.cpus(), f.memoryMb() - use.memoryMb(),
                        f.gpus() - use.gpus()));
            }
            taken.addAll(uses);
            gpusTaken.put(job.row(), allocation);
            Map<String, String> borrowsAt = planned.plan().borrowedAt().get(start.job());
            if (borrowsAt != null) {
                borrowingChanges.put(start.job(), borrowsAt);
            }
            history.add(new SchedulerJobs.StartedEvent(job.row(), now, nodes, start.partition(), start.backfilled()));
            started.add(jobs.activeJob(job.row()).orElseThrow());
            if (start.backfilled()) {
                backfilled++;
            }
        }
        cluster.takeChecked(taken);
        gpus.hold(gpusTaken);
        return new Started(started, backfilled, history);
    }

    /**
     * Publishes, inside the write-back's transaction (so live views hear of it after the commit, and
     * not at all should it roll back), which of these decisions live views should hear of: those
     * that change a pending job's reason or its expected start {@link #noticeable noticeably} from
     * what they were last told. Returns their entries, to be marked told once committed.
     */
    private List<LiveJobs.Entry> announce(Map<Long, Waiting> written) {
        Instant now = clock.instant();
        List<LiveJobs.Entry> told = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        written.forEach((row, w) -> {
            LiveJobs.Entry e = live.get(row);
            if (e != null && e.job.state() == JobState.PENDING && JobsReplanned.noticeable(e.announced, w, now)) {
                told.add(e);
                ids.add(e.job.displayId());
            }
        });
        if (!ids.isEmpty()) {
            events.publishEvent(new JobsReplanned(List.copyOf(ids)));
        }
        return told;
    }

    /**
     * Stops a job whose grace time is over (requeued or PREEMPTED) and, for a reclaim, marks it for sacct;
     * empty when it no longer runs.
     */
    private Optional<JobsPreempted.Victim> reclaim(QuotaReclaims.Stopping s, Instant now) {
        Optional<ActiveJob> job = jobs.activeJob(s.row());
        if (job.isEmpty() || job.get().state() != JobState.RUNNING) {
            return Optional.empty();
        }
        ActiveJob victim = job.get();
        if (!completion.preempt(s.row(), s.mode(), now, s.detail())) {
            return Optional.empty();
        }
        if (!s.reclaim()) {
            return Optional.of(new JobsPreempted.Victim(victim.row(), victim.displayId(),
                    victim.allocation().isEmpty() ? null : victim.allocation().get(0).node(), s.detail()));
        }
        marks.reclaimed(new QuotaMarks.Key(victim.jobId(), victim.arrayTaskId()), now, s.forJob());
        return Optional.of(new JobsPreempted.Victim(victim.row(), victim.displayId(),
                victim.allocation().isEmpty() ? null : victim.allocation().get(0).node(), s.detail()));
    }

    /** A node, partition, limit or reservation changed: the next cycle runs even if no job did. */
    void outsideChange() {
        outsideChange = true;
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

    /** What a start's MIG instances and shards are worth, in thousandths of a GPU (0 for whole GPUs). */
    private int gpuMillis(NodeAllocation a) {
        if (!a.sharesGpus()) {
            return 0;
        }
        io.gantry.cluster.ClusterLayout.NodeSpec spec = cluster.layout().nodes().get(a.node());
        return spec == null ? 0 : spec.gpuMillis(a.migIndices(), a.shards());
    }
}
