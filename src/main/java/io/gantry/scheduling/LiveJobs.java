package io.gantry.scheduling;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import io.gantry.engine.PendingJob;
import io.gantry.engine.PendingReason;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.EngineRequests;
import io.gantry.jobs.Hold;
import io.gantry.jobs.JobState;
import io.gantry.jobs.SchedulerJobs;
import io.gantry.jobs.SchedulerJobs.Waiting;

/**
 * The leader's live state of every active job, as slurmctld keeps it: loaded from the store once
 * when this controller becomes the leader, then kept up to date by the changes it is told about
 * (a committed submission, cancel, hold or release names its job id; a start or an end names its
 * rows), re-reading only those rows. Jobs are kept sorted by what they wait for, so that held
 * jobs, jobs waiting on a dependency and jobs waiting for their begin time cost nothing per cycle:
 * only the jobs that may start now are handed to the engine.
 *
 * <p>Only the scheduler's thread reads and changes the state; the change notes ({@link #touchJobs},
 * {@link #touchRows}) may come from any thread. The store stays the truth: a start planned from a
 * state that is one change behind is re-checked against the store before it is written.
 */
@org.springframework.stereotype.Component
final class LiveJobs {

    /** What a pending job waits for before the engine may consider it. */
    enum Wait { ENGINE, HELD, DEPENDENCY, BEGIN_TIME, NEVER }

    /** One active job, with what the scheduler derived from it. */
    static final class Entry {
        final ActiveJob job;
        Wait wait;
        PendingJob engineJob;
        /** The reason, priority and expected start the store holds, as last read or written. */
        Waiting recorded;
        /**
         * The reason and expected start live views last heard of: as read (a client that reads the
         * job then sees these), else as last announced by a {@link JobsReplanned}. Small moves of
         * the expected start add up against this until they are worth announcing.
         */
        Waiting announced;
        /** The cycle that last wrote {@link #recorded} (0: read from the store since). */
        long decidedIn;

        Entry(ActiveJob job) {
            this.job = job;
            this.recorded = new Waiting(job.reason(), job.priority(), job.expectedStartTime());
            this.announced = recorded;
        }

        PendingJob engineJob() {
            if (engineJob == null) {
                engineJob = EngineRequests.pending(job);
            }
            return engineJob;
        }
    }

    private static final Comparator<Entry> BY_BEGIN = Comparator
            .comparing((Entry e) -> e.job.eligibleTime()).thenComparingLong(e -> e.job.row());

    private final SchedulerJobs store;
    private final Set<Long> dirtyJobIds = ConcurrentHashMap.newKeySet();
    private final Set<Long> dirtyRows = ConcurrentHashMap.newKeySet();

    private final Map<Long, Entry> byRow = new HashMap<>();
    private final Map<Long, Set<Long>> rowsByJobId = new HashMap<>();
    private final Map<Long, Entry> running = new HashMap<>();
    private final Map<Long, Entry> eligible = new HashMap<>();
    private final Map<Long, Entry> dependent = new HashMap<>();
    private final TreeSet<Entry> beginTimes = new TreeSet<>(BY_BEGIN);
    private final Map<Long, Integer> runningPerArray = new HashMap<>();
    /** Eligible rows that became so since the last cycle took them. */
    private final Set<Long> fresh = new HashSet<>();
    /** Dependent rows not judged since they were (re-)read. */
    private final Set<Long> unjudged = new HashSet<>();
    /** Job ids whose rows changed since the dependent jobs were last judged. */
    private final Set<Long> changedJobIds = new HashSet<>();
    private boolean loaded;

    /** Slurm's DependencyParameters=kill_invalid_depend: what a job that did not say is told. */
    private final boolean killInvalidDepend;

    LiveJobs(SchedulerJobs store, SchedulerProperties properties) {
        this.store = store;
        this.killInvalidDepend = properties.killInvalidDepend();
    }

    /** A committed change to these jobs (every task of an array). */
    void touchJobs(Collection<Long> jobIds) {
        dirtyJobIds.addAll(jobIds);
    }

    /** A committed change to these rows (a start, an end). */
    void touchRows(Collection<Long> rows) {
        dirtyRows.addAll(rows);
    }

    boolean loaded() {
        return loaded;
    }

    /** Reads every active job from the store: once, when this controller becomes the leader. */
    int load(Instant now) {
        clear();
        // Changes that commit while the rows are read are noted and re-read on the next refresh.
        dirtyJobIds.clear();
        dirtyRows.clear();
        for (ActiveJob job : store.activeJobs()) {
            put(new Entry(job), now);
        }
        loaded = true;
        return byRow.size();
    }

    /** Forgets everything: this controller is no longer the leader. */
    void clear() {
        byRow.clear();
        rowsByJobId.clear();
        running.clear();
        eligible.clear();
        dependent.clear();
        beginTimes.clear();
        runningPerArray.clear();
        fresh.clear();
        changedJobIds.clear();
        unjudged.clear();
        loaded = false;
    }

    /**
     * Re-reads the rows changed since the last refresh and moves begin-time jobs whose time has come
     * into the queue; true when anything changed.
     */
    boolean refresh(Instant now) {
        planningChanged = false;
        if (!dirtyJobIds.isEmpty()) {
            List<Long> ids = drain(dirtyJobIds);
            Set<Long> before = new HashSet<>();
            for (Long id : ids) {
                before.addAll(rowsByJobId.getOrDefault(id, Set.of()));
            }
            replace(before, store.activeJobsOf(ids), now);
            changedJobIds.addAll(ids);
        }
        if (!dirtyRows.isEmpty()) {
            List<Long> rows = drain(dirtyRows);
            for (Long row : rows) {
                Entry e = byRow.get(row);
                if (e != null) {
                    changedJobIds.add(e.job.jobId());
                }
            }
            replace(new HashSet<>(rows), store.activeRows(rows), now);
        }
        while (!beginTimes.isEmpty() && !beginTimes.first().job.eligibleTime().isAfter(now)) {
            Entry e = beginTimes.pollFirst();
            remove(e);
            put(e, now);
        }
        if (dependent.isEmpty()) {
            changedJobIds.clear();
        }
        return planningChanged || !unjudged.isEmpty() || !changedJobIds.isEmpty();
    }

    /**
     * Whether the last refresh changed what a plan sees (a job that may start, a running job, a
     * dependency to judge); a burst of held submissions changes nothing a plan sees.
     */
    private boolean planningChanged;

    private static List<Long> drain(Set<Long> set) {
        List<Long> taken = new ArrayList<>(set);
        set.removeAll(taken);
        return taken;
    }

    private void replace(Set<Long> rows, List<ActiveJob> found, Instant now) {
        for (Long row : rows) {
            Entry e = byRow.get(row);
            if (e != null) {
                remove(e);
            }
        }
        for (ActiveJob job : found) {
            Entry old = byRow.get(job.row());
            if (old != null) {
                remove(old);
            }
            put(new Entry(job), now);
        }
    }

    private void put(Entry e, Instant now) {
        ActiveJob job = e.job;
        byRow.put(job.row(), e);
        rowsByJobId.computeIfAbsent(job.jobId(), k -> new HashSet<>()).add(job.row());
        if (job.state() != JobState.PENDING) {
            planningChanged = true;
            running.put(job.row(), e);
            if (job.arrayTaskId() >= 0) {
                runningPerArray.merge(job.jobId(), 1, Integer::sum);
            }
            return;
        }
        if (job.hold() != Hold.NONE) {
            e.wait = Wait.HELD;
        } else if (job.dependency() != null) {
            e.wait = Wait.DEPENDENCY;
            dependent.put(job.row(), e);
            unjudged.add(job.row());
        } else if (job.eligibleTime() != null && job.eligibleTime().isAfter(now)) {
            e.wait = Wait.BEGIN_TIME;
            beginTimes.add(e);
        } else {
            e.wait = Wait.ENGINE;
            eligible.put(job.row(), e);
            fresh.add(job.row());
            planningChanged = true;
        }
    }

    private void remove(Entry e) {
        ActiveJob job = e.job;
        byRow.remove(job.row());
        Set<Long> siblings = rowsByJobId.get(job.jobId());
        if (siblings != null) {
            siblings.remove(job.row());
            if (siblings.isEmpty()) {
                rowsByJobId.remove(job.jobId());
            }
        }
        if (running.remove(job.row()) != null) {
            planningChanged = true;
            if (job.arrayTaskId() >= 0) {
                runningPerArray.computeIfPresent(job.jobId(), (k, n) -> n <= 1 ? null : n - 1);
            }
        }
        if (eligible.containsKey(job.row())) {
            planningChanged = true;
        }
        eligible.remove(job.row());
        dependent.remove(job.row());
        unjudged.remove(job.row());
        beginTimes.remove(e);
        fresh.remove(job.row());
    }

    /**
     * Judges the jobs waiting on dependencies: all of them when {@code all}, else only those whose
     * named jobs changed since the last time. A satisfied one joins the queue; the others get their
     * reason. Returns the reasons decided.
     */
    Map<Long, PendingReason> judgeDependencies(boolean all, Instant now) {
        Map<Long, PendingReason> reasons = new HashMap<>();
        if (dependent.isEmpty()) {
            changedJobIds.clear();
            unjudged.clear();
            return reasons;
        }
        List<Entry> toJudge = new ArrayList<>();
        for (Entry e : dependent.values()) {
            if (all || unjudged.contains(e.job.row()) || namesAny(e.job, changedJobIds)) {
                toJudge.add(e);
            }
        }
        changedJobIds.clear();
        unjudged.clear();
        if (toJudge.isEmpty()) {
            return reasons;
        }
        List<ActiveJob> jobs = toJudge.stream().map(e -> e.job).toList();
        boolean singleton = jobs.stream().anyMatch(j -> j.dependency().contains("singleton"));
        Dependencies dependencies = new Dependencies(store.outcomes(Dependencies.referencedIds(jobs)),
                singleton ? byRow.values().stream().map(e -> e.job).toList() : List.of(), now);
        List<Long> cancelled = new ArrayList<>();
        for (Entry e : toJudge) {
            switch (dependencies.of(e.job)) {
                case WAITING -> reasons.put(e.job.row(), PendingReason.DEPENDENCY);
                case NEVER -> {
                    if (Dependencies.cancelledWhenNever(e.job, killInvalidDepend)) {
                        cancelled.add(e.job.row());
                    } else {
                        reasons.put(e.job.row(), PendingReason.DEPENDENCY_NEVER_SATISFIED);
                    }
                }
                default -> {
                    dependent.remove(e.job.row());
                    if (e.job.eligibleTime() != null && e.job.eligibleTime().isAfter(now)) {
                        e.wait = Wait.BEGIN_TIME;
                        beginTimes.add(e);
                    } else {
                        e.wait = Wait.ENGINE;
                        eligible.put(e.job.row(), e);
                        fresh.add(e.job.row());
                    }
                }
            }
        }
        if (!cancelled.isEmpty()) {
            // Re-read once committed: they leave the live state, and the jobs that depend on them are judged again.
            touchRows(store.cancelForInvalidDependency(cancelled, now));
        }
        return reasons;
    }

    private static boolean namesAny(ActiveJob job, Set<Long> jobIds) {
        if (jobIds.isEmpty()) {
            return false;
        }
        for (Long id : Dependencies.referencedIds(List.of(job))) {
            if (jobIds.contains(id)) {
                return true;
            }
        }
        // singleton: another job of the same user and name may have ended
        return job.dependency().contains("singleton");
    }

    /** The running and completing jobs, as loaded or last re-read. */
    List<ActiveJob> runningJobs() {
        return running.values().stream().map(e -> e.job).toList();
    }

    Collection<Entry> running() {
        return running.values();
    }

    /** Every active job: what the figures for {@code /metrics} are counted from. */
    Collection<Entry> all() {
        return byRow.values();
    }

    Collection<Entry> eligible() {
        return eligible.values();
    }

    /** The pending jobs waiting only for their begin time, soonest first. */
    Collection<Entry> waitingForBegin() {
        return beginTimes;
    }

    /** Takes the rows that became eligible since the last call. */
    Set<Long> takeFresh() {
        Set<Long> taken = new HashSet<>(fresh);
        fresh.clear();
        return taken;
    }

    int runningInArray(long jobId) {
        return runningPerArray.getOrDefault(jobId, 0);
    }

    Entry get(long row) {
        return byRow.get(row);
    }

    int size() {
        return byRow.size();
    }


    /**
     * Every job as this state holds it, row by row: its version, state, what it waits for and the
     * decision the store holds. Two states describe alike when they would plan alike.
     */
    Map<Long, String> describe() {
        Map<Long, String> all = new java.util.TreeMap<>();
        for (Entry e : byRow.values()) {
            all.put(e.job.row(), e.job.version() + " " + e.job.state() + " " + e.job.hold() + " "
                    + (e.job.state() == JobState.PENDING ? e.wait : "-") + " " + e.recorded);
        }
        return all;
    }
}
