package io.gantry.jobs;

import java.time.Instant;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * What the scheduler (and only the scheduler) does to jobs: read the active ones, start them,
 * record why the others wait, and end them. Every method joins the caller's transaction, so a
 * plan is applied all at once or not at all.
 */
@Service
public class SchedulerJobs {

    private static final EnumSet<JobState> ACTIVE = EnumSet.of(JobState.PENDING, JobState.RUNNING, JobState.SUSPENDED,
            JobState.COMPLETING);

    private final JobRepository jobs;
    private final JobEventRepository events;
    private final org.springframework.jdbc.core.JdbcTemplate jdbc;
    private final List<JobClockRule> clockRules;

    SchedulerJobs(JobRepository jobs, JobEventRepository events, org.springframework.jdbc.core.JdbcTemplate jdbc,
            List<JobClockRule> clockRules) {
        this.jobs = jobs;
        this.events = events;
        this.jdbc = jdbc;
        this.clockRules = List.copyOf(clockRules);
    }

    /**
     * Every pending, running and completing job, read once by a new leader (and by views that need
     * them all); read with plain JDBC and without the script, environment or other text a scheduler
     * never needs, so that 100,000 queued jobs load in well under a second.
     */
    @Transactional(readOnly = true)
    public List<ActiveJob> activeJobs() {
        return jdbc.query(SELECT_ACTIVE + " WHERE state IN ('PENDING', 'RUNNING', 'COMPLETING', 'SUSPENDED')", SchedulerJobs::row);
    }

    /** The active rows of these job ids (every task of an array), as {@link #activeJobs()} reads them. */
    @Transactional(readOnly = true)
    public List<ActiveJob> activeJobsOf(Collection<Long> jobIds) {
        return inChunks(jobIds, "job_id");
    }

    /** These rows if they are still active. */
    @Transactional(readOnly = true)
    public List<ActiveJob> activeRows(Collection<Long> rows) {
        return inChunks(rows, "id");
    }

    private List<ActiveJob> inChunks(Collection<Long> keys, String column) {
        List<Long> all = List.copyOf(keys);
        List<ActiveJob> found = new java.util.ArrayList<>();
        for (int from = 0; from < all.size(); from += 1000) {
            List<Long> chunk = all.subList(from, Math.min(from + 1000, all.size()));
            String marks = String.join(",", java.util.Collections.nCopies(chunk.size(), "?"));
            found.addAll(jdbc.query(SELECT_ACTIVE + " WHERE " + column + " IN (" + marks
                    + ") AND " + ACTIVE_STATE_FILTER, SchedulerJobs::row, chunk.toArray()));
        }
        return found;
    }

    /**
     * The state test of a lookup by key, written so that it cannot use the index on {@code state}:
     * with statistics taken before a burst of submissions (PENDING "rare"), PostgreSQL's generic plan
     * for {@code id = ? AND state = 'PENDING'} walked every pending row per update (a 10,000-row
     * write-back took minutes) instead of the primary key.
     */
    private static final String ACTIVE_STATE_FILTER = "state || '' IN ('PENDING', 'RUNNING', 'COMPLETING', 'SUSPENDED')";

    private static final String SELECT_ACTIVE = "SELECT id, version, job_id, array_task_id, name, user_name, account,"
            + " qos, partitions, state, hold, submit_time, eligible_time, time_limit_seconds, nice, min_nodes, tasks,"
            + " cpus_per_task, memory_mb, gpus, gpus_per_node, gpu_type, constraints, exclusive, dependency,"
            + " array_max_running, partition, start_time, allocation, requeue, simulated_run_seconds,"
            + " simulated_exit_code, reason, priority, expected_start_time, reservation, nodelist, exclude,"
            + " switches_spec, max_nodes, time_min_seconds, segment_size, exclusive_mode, shards, suspended_by,"
            + " kill_on_invalid_dep FROM jobs";

    private static ActiveJob row(java.sql.ResultSet rs, int n) throws java.sql.SQLException {
        long simulatedRun = rs.getLong("simulated_run_seconds");
        Long simulatedRunSeconds = rs.wasNull() ? null : simulatedRun;
        int simulatedExit = rs.getInt("simulated_exit_code");
        Integer simulatedExitCode = rs.wasNull() ? null : simulatedExit;
        int maxRunning = rs.getInt("array_max_running");
        Integer arrayMaxRunning = rs.wasNull() ? null : maxRunning;
        return new ActiveJob(rs.getLong("id"), rs.getLong("version"), rs.getLong("job_id"), rs.getInt("array_task_id"),
                rs.getString("name"), rs.getString("user_name"), rs.getString("account"), rs.getString("qos"),
                java.util.Arrays.asList(rs.getString("partitions").split(",")), JobState.valueOf(rs.getString("state")),
                Hold.valueOf(rs.getString("hold")), instant(rs, "submit_time"), instant(rs, "eligible_time"),
                rs.getLong("time_limit_seconds"), rs.getInt("nice"), rs.getInt("min_nodes"), rs.getInt("tasks"),
                rs.getInt("cpus_per_task"), rs.getLong("memory_mb"), rs.getInt("gpus"), rs.getInt("gpus_per_node"),
                rs.getString("gpu_type"), rs.getString("constraints"), rs.getBoolean("exclusive"),
                rs.getString("dependency"), arrayMaxRunning, rs.getString("partition"), instant(rs, "start_time"),
                JobAllocation.decode(rs.getString("allocation")), rs.getBoolean("requeue"), simulatedRunSeconds,
                simulatedExitCode, rs.getString("reason"), rs.getLong("priority"), instant(rs, "expected_start_time"),
                rs.getString("reservation"), rs.getString("nodelist"), rs.getString("exclude"),
                rs.getString("switches_spec"), (Integer) rs.getObject("max_nodes", Integer.class),
                (Long) rs.getObject("time_min_seconds", Long.class), (Integer) rs.getObject("segment_size", Integer.class),
                rs.getString("exclusive_mode"), (Integer) rs.getObject("shards", Integer.class),
                rs.getString("suspended_by"), (Boolean) rs.getObject("kill_on_invalid_dep", Boolean.class));
    }

    private static Instant instant(java.sql.ResultSet rs, String column) throws java.sql.SQLException {
        java.time.OffsetDateTime t = rs.getObject(column, java.time.OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    @Transactional(readOnly = true)
    public Optional<ActiveJob> activeJob(long row) {
        return jobs.findById(row).filter(j -> ACTIVE.contains(j.state())).map(SchedulerJobs::active);
    }

    /** Every task of the given job ids, in any state: what dependencies are judged on. */
    @Transactional(readOnly = true)
    public List<JobOutcome> outcomes(Collection<Long> jobIds) {
        if (jobIds.isEmpty()) {
            return List.of();
        }
        return jobs.findByJobIdIn(jobIds).stream()
                .map(j -> new JobOutcome(j.jobId(), j.arrayTaskId(), j.name(), j.user(), j.state(), j.startTime(),
                        j.submitTime()))
                .toList();
    }

    /**
     * Loads the rows a plan is about to start into this transaction in a few queries, so that
     * {@link #start} and {@link #activeJob} find them without a query each.
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public void prefetch(List<Long> rows) {
        for (int from = 0; from < rows.size(); from += 1000) {
            jobs.findAllById(rows.subList(from, Math.min(from + 1000, rows.size())));
        }
    }

    /** Starts a job if it is still the pending job the plan was made for; false when it changed meanwhile. */
    @Transactional(propagation = Propagation.MANDATORY)
    public boolean start(long row, long version, String partition, Instant at, List<JobAllocation> allocation,
            String allocatedNodes, long priority, boolean backfilled, long timeLimitSeconds) {
        JobEntity job = jobs.findById(row).orElse(null);
        if (job == null || job.version() != version || job.state() != JobState.PENDING || job.hold() != Hold.NONE) {
            return false;
        }
        job.start(partition, at, allocatedNodes, JobAllocation.encode(allocation), priority, timeLimitSeconds);
        return true;
    }

    /** Records STARTED events for jobs started in this transaction, in one batch. */
    @Transactional(propagation = Propagation.MANDATORY)
    public void recordStarts(List<StartedEvent> started) {
        if (started.isEmpty()) {
            return;
        }
        jdbc.batchUpdate("INSERT INTO job_events (job_row, event_time, type, detail) VALUES (?, ?, 'STARTED', ?)",
                started, 500, (ps, e) -> {
                    ps.setLong(1, e.row());
                    ps.setObject(2, java.time.OffsetDateTime.ofInstant(e.at(), java.time.ZoneOffset.UTC));
                    ps.setString(3, "on " + e.nodes() + " in " + e.partition() + (e.backfilled() ? " (backfilled)" : ""));
                });
    }

    /** A job this cycle started, for its history. */
    public record StartedEvent(long row, Instant at, String nodes, String partition, boolean backfilled) {
    }

    /**
     * Records why pending jobs wait. The caller passes only the rows whose reason, priority or
     * expected start changed (the leader knows what it last wrote); they go in one JDBC batch. These
     * are the scheduler's own columns: the row's version is left alone, so a user's change to the
     * same job never fails on them, and a row that is no longer pending is not touched.
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public int recordWaiting(Map<Long, Waiting> decisions) {
        if (decisions.isEmpty()) {
            return 0;
        }
        List<Map.Entry<Long, Waiting>> rows = List.copyOf(decisions.entrySet());
        int[][] counts = jdbc.batchUpdate("UPDATE jobs SET reason = ?, priority = ?, expected_start_time = ?"
                + " WHERE id = ? AND state || '' = 'PENDING'", rows, 1000, (ps, e) -> {
                    ps.setString(1, e.getValue().reason());
                    ps.setLong(2, e.getValue().priority());
                    Instant expected = e.getValue().expectedStart();
                    if (expected == null) {
                        ps.setNull(3, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
                    } else {
                        ps.setObject(3, java.time.OffsetDateTime.ofInstant(expected, java.time.ZoneOffset.UTC));
                    }
                    ps.setLong(4, e.getKey());
                });
        int changed = 0;
        for (int[] batch : counts) {
            for (int c : batch) {
                changed += Math.max(c, 0);
            }
        }
        return changed;
    }

    /** Ends a running or completing job whose usage is not known; empty if it had already ended. */
    @Transactional(propagation = Propagation.MANDATORY)
    public Optional<ActiveJob> end(long row, JobState state, Integer exitCode, Instant at, String detail) {
        return end(row, state, exitCode, at, detail, MeasuredUsage.UNKNOWN);
    }

    /** Ends a running or completing job with what its run used; empty if it had already ended. */
    @Transactional(propagation = Propagation.MANDATORY)
    public Optional<ActiveJob> end(long row, JobState state, Integer exitCode, Instant at, String detail,
            MeasuredUsage usage) {
        JobEntity job = jobs.findById(row).orElse(null);
        if (job == null || !job.state().isActive()) {
            return Optional.empty();
        }
        ActiveJob before = active(job);
        job.end(state, exitCode, at, usage == null ? MeasuredUsage.UNKNOWN : usage);
        events.save(new JobEventEntity(row, at, job.state().name(), detail));
        return Optional.of(before);
    }

    /**
     * Asks every {@link JobClockRule} which jobs time alone has ended (the scheduler calls it once a
     * second, before it plans); what each did, those that did something.
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public List<JobClockRule.Ended> endByTheClock(Instant now) {
        return clockRules.stream().map(rule -> rule.apply(now)).filter(ended -> !ended.isEmpty()).toList();
    }

    /**
     * Suspends a running job for its preemptor (PreemptMode SUSPEND); empty, with nothing written, when
     * it no longer runs. Returns it as it was, with what it held.
     */
    @Transactional(propagation = Propagation.MANDATORY)
    public Optional<ActiveJob> suspend(long row, Instant at, String detail) {
        JobEntity job = jobs.findById(row).orElse(null);
        if (job == null || job.state() != JobState.RUNNING) {
            return Optional.empty();
        }
        ActiveJob before = active(job);
        job.suspend();
        events.save(new JobEventEntity(row, at, JobState.SUSPENDED.name(), detail));
        return Optional.of(before);
    }

    /** Resumes a suspended job on what it held; false when it is no longer suspended. */
    @Transactional(propagation = Propagation.MANDATORY)
    public boolean resume(long row, Instant at, String detail) {
        JobEntity job = jobs.findById(row).orElse(null);
        if (job == null || job.state() != JobState.SUSPENDED) {
            return false;
        }
        job.resume();
        events.save(new JobEventEntity(row, at, "RESUMED", detail));
        return true;
    }

    /**
     * Cancels the pending jobs whose dependency can never be satisfied and that are to be killed for it
     * (sbatch {@code --kill-on-invalid-dep=yes}, or the cluster's {@code kill_invalid_depend}), as slurmctld
     * does, in a transaction of its own; returns the rows it cancelled (those still pending).
     */
    @Transactional
    public List<Long> cancelForInvalidDependency(Collection<Long> rows, Instant at) {
        List<Long> cancelled = new java.util.ArrayList<>();
        for (JobEntity job : jobs.findAllById(rows)) {
            if (job.state() == JobState.PENDING) {
                job.cancelForInvalidDependency(at);
                events.save(new JobEventEntity(job.id(), at, JobState.CANCELLED.name(), "cancelled: its dependency "
                        + job.dependency() + " can never be satisfied (--kill-on-invalid-dep)"));
                cancelled.add(job.id());
            }
        }
        return cancelled;
    }

    /** Puts a job that lost its node back in the queue (it allows requeue). */
    @Transactional(propagation = Propagation.MANDATORY)
    public void requeueAfterFailure(long row, Instant at, String detail) {
        jobs.findById(row).ifPresent(job -> {
            job.requeue(at);
            events.save(new JobEventEntity(row, at, "REQUEUED", detail));
        });
    }

    /**
     * What a running job gets as a reclaim's grace time starts (Slurm's GraceTime), or empty when it
     * no longer runs on a node: see {@link JobSignal#atGraceStart}.
     */
    @Transactional(readOnly = true)
    public Optional<JobSignalRequested.Target> graceSignal(long row) {
        return warningSignal(row, "TERM");
    }

    /**
     * What a running job gets as a warning: its own {@code --signal}, else {@code otherwise} (see
     * {@link JobSignal#warning}); empty when it no longer runs on a node.
     */
    @Transactional(readOnly = true)
    public Optional<JobSignalRequested.Target> warningSignal(long row, String otherwise) {
        return jobs.findById(row).filter(j -> j.state() == JobState.RUNNING).flatMap(j -> {
            List<JobAllocation> allocation = JobAllocation.decode(j.allocation());
            if (allocation == null || allocation.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(JobSignal.warning(JobIds.format(j.jobId(), j.arrayTaskId()),
                    allocation.stream().map(JobAllocation::node).toList(), j.signal(), otherwise));
        });
    }

    /** Adds a line to a job's history (e.g. RECLAIM: a reclaim told it to stop after its grace time). */
    public void recordEvent(long row, Instant at, String kind, String detail) {
        events.save(new JobEventEntity(row, at, kind, detail));
    }

    /** Why a pending job waits, as the scheduler decided. */
    public record Waiting(String reason, long priority, Instant expectedStart) {
    }

    /** A submission's job as the scheduler would see it, never stored (sbatch --test-only): row 0, job id 0. */
    static ActiveJob trial(JobEntity j) {
        return active(j);
    }

    private static ActiveJob active(JobEntity j) {
        return new ActiveJob(j.id() == null ? 0 : j.id(), j.version(), j.jobId(), j.arrayTaskId(), j.name(), j.user(), j.account(),
                j.qos(), j.partitions(), j.state(), j.hold(), j.submitTime(), j.eligibleTime(), j.timeLimitSeconds(),
                j.nice(), j.minNodes(), j.tasks(), j.cpusPerTask(), j.memoryMb(), j.gpus(), j.gpusPerNode(),
                j.gpuType(), j.constraints(), j.exclusive(), j.dependency(), j.arrayMaxRunning(), j.partition(),
                j.startTime(), JobAllocation.decode(j.allocation()), j.requeue(), j.simulatedRunSeconds(),
                j.simulatedExitCode(), j.reason(), j.priority(), j.expectedStartTime(), j.reservation(),
                j.nodelist(), j.exclude(), j.switches(), j.maxNodes(), j.timeMinSeconds(), j.segment(),
                j.exclusiveMode(), j.shards(), j.suspendedBy(), j.options().killOnInvalidDep());
    }
}
