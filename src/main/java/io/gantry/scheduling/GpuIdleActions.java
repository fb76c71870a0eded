package io.gantry.scheduling;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.cluster.GpuIdlePolicy;
import io.gantry.engine.Preemption;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobSignalRequested;
import io.gantry.jobs.JobState;
import io.gantry.jobs.SchedulerJobs;

import io.gantry.gpus.GpuIdleDecision;

/**
 * What the GPU idle policy does to a job, each step in one transaction: what users see is the job's history
 * (its events say why, so {@code scontrol show job} and the job page answer "why was my job cancelled"), and
 * the signal, ending and requeue go through the paths scancel, preemption and {@code --signal} use, so the
 * agents are told only once the store agrees.
 */
@Service
class GpuIdleActions {

    /**
     * The warning's signal when the job names none with {@code --signal}: one a job can trap to checkpoint or
     * let go of its GPUs; it reaches what the batch shell started, never the shell itself.
     */
    static final String SIGNAL = "USR1";

    private final SchedulerJobs jobs;
    private final JobCompletion completion;
    private final ApplicationEventPublisher events;

    GpuIdleActions(SchedulerJobs jobs, JobCompletion completion, ApplicationEventPublisher events) {
        this.jobs = jobs;
        this.completion = completion;
        this.events = events;
    }

    /** The warning: an event saying what happens when, and the signal. */
    @Transactional
    public void warn(long row, String partition, GpuIdlePolicy policy, double threshold, long idleSeconds, Instant now) {
        String then = policy.action() == GpuIdlePolicy.Action.WARN ? "a warning only"
                : policy.action() + " in " + policy.graceSeconds() + " s unless they get busy";
        jobs.recordEvent(row, now, "GPU_IDLE", idle(idleSeconds, threshold) + ": " + then + " (partition "
                + partition + "'s GPU idle policy)");
        Optional<JobSignalRequested.Target> signal = jobs.warningSignal(row, SIGNAL);
        signal.ifPresent(s -> {
            String name = s.signal().chars().allMatch(Character::isDigit) ? "signal " + s.signal() : "SIG" + s.signal();
            String whom = s.scope() == JobSignalRequested.Scope.BATCH ? "its batch shell"
                    : "its processes but the batch shell";
            jobs.recordEvent(row, now, "SIGNALLED", name + " sent to " + whom + " as its GPUs are idle");
            events.publishEvent(new JobSignalRequested(List.of(s)));
        });
    }

    /** A warned job whose GPUs got busy: its countdown starts again. */
    @Transactional
    public void busyAgain(long row, Instant now) {
        jobs.recordEvent(row, now, "GPU_BUSY", "GPUs busy again: the GPU idle countdown starts again");
    }

    /** The grace is over and the job is still idle: the policy's action. */
    @Transactional
    public void act(long row, String jobId, String partition, GpuIdlePolicy policy, double threshold,
            long idleSeconds, Instant now) {
        String why = idle(idleSeconds, threshold) + " (partition " + partition + "'s GPU idle policy, grace "
                + policy.graceSeconds() + " s)";
        Optional<ActiveJob> job = jobs.activeJob(row).filter(j -> j.state() == JobState.RUNNING);
        if (job.isEmpty()) {
            return;
        }
        String host = job.get().allocation().isEmpty() ? null : job.get().allocation().get(0).node();
        switch (policy.action()) {
            case WARN -> jobs.recordEvent(row, now, "GPU_IDLE", "still idle: " + why + "; the policy only warns");
            case CANCEL -> {
                String detail = "cancelled: " + why;
                if (completion.end(row, JobState.CANCELLED, null, now, detail)) {
                    events.publishEvent(new JobsPreempted(List.of(new JobsPreempted.Victim(row, jobId, host, detail,
                            JobState.CANCELLED.name()))));
                }
            }
            case REQUEUE -> {
                String detail = "requeued: " + why;
                if (completion.preempt(row, Preemption.Mode.REQUEUE, now, detail)) {
                    events.publishEvent(new JobsPreempted(List.of(new JobsPreempted.Victim(row, jobId, host, detail))));
                }
            }
        }
    }

    private static String idle(long idleSeconds, double threshold) {
        return "GPUs idle for " + idleSeconds + " s below " + GpuIdleDecision.percent(threshold) + " %";
    }
}
