package io.gantry.jobs;

import java.time.Instant;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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

    private static final EnumSet<JobState> ACTIVE = EnumSet.of(JobState.PENDING, JobState.RUNNING,
            JobState.COMPLETING);

    private final JobRepository jobs;
    private final JobEventRepository events;
    private final org.springframework.jdbc.core.JdbcTemplate jdbc;

    SchedulerJobs(JobRepository jobs, JobEventRepository events, org.springframework.jdbc.core.JdbcTemplate jdbc) {
        this.jobs = jobs;
        this.events = events;
        this.jdbc = jdbc;
    }

    @Transactional(readOnly = true)
    public List<ActiveJob> activeJobs() {
        return jobs.findByStateIn(ACTIVE).stream().map(SchedulerJobs::active).toList();
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
            String allocatedNodes, long priority, boolean backfilled) {
        JobEntity job = jobs.findById(row).orElse(null);
        if (job == null || job.version() != version || job.state() != JobState.PENDING || job.hold() != Hold.NONE) {
            return false;
        }
        job.start(partition, at, allocatedNodes, JobAllocation.encode(allocation), priority);
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

    /** Records why pending jobs wait; writes only the rows whose reason, priority or expected start changed. */
    @Transactional(propagation = Propagation.MANDATORY)
    public int recordWaiting(Map<Long, Waiting> decisions) {
        if (decisions.isEmpty()) {
            return 0;
        }
        int changed = 0;
        for (JobEntity job : jobs.findAllById(decisions.keySet())) {
            Waiting w = decisions.get(job.id());
            if (job.state() != JobState.PENDING) {
                continue;
            }
            if (!Objects.equals(job.reason(), w.reason()) || job.priority() != w.priority()
                    || !Objects.equals(job.expectedStartTime(), w.expectedStart())) {
                job.schedulingDecision(w.reason(), w.priority(), w.expectedStart());
                changed++;
            }
        }
        return changed;
    }

    /** Ends a running or completing job; empty if it had already ended. */
    @Transactional(propagation = Propagation.MANDATORY)
    public Optional<ActiveJob> end(long row, JobState state, Integer exitCode, Instant at, String detail) {
        JobEntity job = jobs.findById(row).orElse(null);
        if (job == null || !job.state().isActive()) {
            return Optional.empty();
        }
        ActiveJob before = active(job);
        job.end(state, exitCode, at);
        events.save(new JobEventEntity(row, at, job.state().name(), detail));
        return Optional.of(before);
    }

    /** Puts a job that lost its node back in the queue (it allows requeue). */
    @Transactional(propagation = Propagation.MANDATORY)
    public void requeueAfterFailure(long row, Instant at, String detail) {
        jobs.findById(row).ifPresent(job -> {
            job.requeue(at);
            events.save(new JobEventEntity(row, at, "REQUEUED", detail));
        });
    }

    /** Why a pending job waits, as the scheduler decided. */
    public record Waiting(String reason, long priority, Instant expectedStart) {
    }

    private static ActiveJob active(JobEntity j) {
        return new ActiveJob(j.id(), j.version(), j.jobId(), j.arrayTaskId(), j.name(), j.user(), j.account(),
                j.qos(), j.partitions(), j.state(), j.hold(), j.submitTime(), j.eligibleTime(), j.timeLimitSeconds(),
                j.nice(), j.minNodes(), j.tasks(), j.cpusPerTask(), j.memoryMb(), j.gpus(), j.gpusPerNode(),
                j.gpuType(), j.constraints(), j.exclusive(), j.dependency(), j.arrayMaxRunning(), j.partition(),
                j.startTime(), JobAllocation.decode(j.allocation()), j.requeue(), j.simulatedRunSeconds(),
                j.simulatedExitCode(), j.reason(), j.priority(), j.expectedStartTime(), j.reservation());
    }
}
