package io.gantry.scheduling;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.cluster.ClusterService;
import io.gantry.cluster.ClusterService.NodeUse;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobAllocation;
import io.gantry.jobs.JobState;
import io.gantry.jobs.MeasuredUsage;
import io.gantry.jobs.SchedulerJobs;

/**
 * Ends jobs as their nodes report them, giving back their CPUs, memory and GPUs in the same
 * transaction; the freed resources wake the scheduler.
 */
@Service
public class JobCompletion {

    private final SchedulerJobs jobs;
    private final ClusterService cluster;
    private final GpuLedger gpus;
    private final ApplicationEventPublisher events;

    JobCompletion(SchedulerJobs jobs, ClusterService cluster, GpuLedger gpus, ApplicationEventPublisher events) {
        this.jobs = jobs;
        this.cluster = cluster;
        this.gpus = gpus;
        this.events = events;
    }

    /** Ends a running job; false when it had already ended (a late or repeated report). */
    @Transactional
    public boolean end(long row, JobState state, Integer exitCode, Instant at, String detail) {
        return end(row, state, exitCode, at, detail, MeasuredUsage.UNKNOWN);
    }

    /**
     * Ends a running job with what its run used as its node measured it (kept for sacct's MaxRSS and
     * TotalCPU); false when it had already ended (a late or repeated report).
     */
    @Transactional
    public boolean end(long row, JobState state, Integer exitCode, Instant at, String detail, MeasuredUsage usage) {
        Optional<ActiveJob> ended = jobs.end(row, state, exitCode, at, detail, usage);
        ended.ifPresent(job -> {
            if (!job.suspendedForPreemptor()) {
                // A job suspended for its preemptor gave what it held to it already.
                release(job);
            }
            events.publishEvent(JobEnded.of(job, state));
        });
        return ended.isPresent();
    }

    /** One job's end as its node reports it. */
    public record Ending(long row, JobState state, Integer exitCode, Instant at, String detail) {
    }

    /**
     * Ends many jobs in one transaction (nodes report in batches under load); returns how many had
     * not already ended.
     */
    @Transactional
    public int endAll(List<Ending> endings) {
        List<ActiveJob> ended = new java.util.ArrayList<>();
        for (Ending e : endings) {
            jobs.end(e.row(), e.state(), e.exitCode(), e.at(), e.detail()).ifPresent(job -> {
                ended.add(job);
                events.publishEvent(JobEnded.of(job, e.state()));
            });
        }
        ended.removeIf(ActiveJob::suspendedForPreemptor);
        gpus.release(ended.stream().map(ActiveJob::row).toList());
        cluster.give(ended.stream().flatMap(job -> job.allocation().stream())
                .map(JobAllocation::use).toList());
        return ended.size();
    }

    /**
     * A running job preempted for another: back to the queue (REQUEUE) or ended PREEMPTED (CANCEL),
     * its resources given back in the caller's transaction; false when it no longer runs.
     */
    @Transactional
    public boolean preempt(long row, io.gantry.engine.Preemption.Mode mode, Instant at, String detail) {
        Optional<ActiveJob> job = jobs.activeJob(row);
        if (job.isEmpty() || job.get().state() != JobState.RUNNING) {
            return false;
        }
        if (mode == io.gantry.engine.Preemption.Mode.REQUEUE) {
            release(job.get());
            jobs.requeueAfterFailure(row, at, detail);
            events.publishEvent(JobEnded.of(job.get(), JobState.PENDING));
            return true;
        }
        return end(row, JobState.PREEMPTED, null, at, detail);
    }

    /**
     * Suspends a running job for its preemptor (PreemptMode SUSPEND), giving what it holds to the jobs
     * that start in this transaction; empty when it no longer runs.
     */
    @Transactional
    public Optional<ActiveJob> suspend(long row, Instant at, String detail) {
        Optional<ActiveJob> job = jobs.suspend(row, at, detail);
        job.ifPresent(this::release);
        return job;
    }

    /**
     * Resumes a suspended job on what it held, when all of it (the same GPUs) is free again in the
     * store; false, with nothing written, when it is not.
     */
    @Transactional
    public boolean resume(ActiveJob job, Instant at, String detail) {
        List<NodeUse> uses = job.allocation().stream().map(JobAllocation::use).toList();
        Map<String, NodeUse> free = cluster.free();
        for (NodeUse use : uses) {
            NodeUse f = free.get(use.node());
            if (f == null || use.cpus() > f.cpus() || use.memoryMb() > f.memoryMb() || use.gpus() > f.gpus()) {
                return false;
            }
        }
        if (!gpus.free(job.allocation()) || !jobs.resume(job.row(), at, detail)) {
            return false;
        }
        cluster.takeChecked(uses);
        gpus.hold(Map.of(job.row(), job.allocation()));
        return true;
    }

    /** A job whose node failed: back to the queue when it allows requeue, else NODE_FAIL. */
    @Transactional
    public void nodeFailed(long row, Instant at, String detail) {
        Optional<ActiveJob> job = jobs.activeJob(row);
        if (job.isEmpty() || job.get().state() == JobState.PENDING) {
            return;
        }
        if (job.get().suspendedForPreemptor()) {
            // It held nothing while suspended: end() gives nothing back.
            end(row, JobState.NODE_FAIL, null, at, detail);
            return;
        }
        if (job.get().requeue()) {
            release(job.get());
            jobs.requeueAfterFailure(row, at, detail);
            events.publishEvent(JobEnded.of(job.get(), JobState.PENDING));
        } else {
            end(row, JobState.NODE_FAIL, null, at, detail);
        }
    }

    private void release(ActiveJob job) {
        gpus.release(List.of(job.row()));
        List<NodeUse> uses = job.allocation().stream()
                .map(JobAllocation::use).toList();
        cluster.give(uses);
    }
}
