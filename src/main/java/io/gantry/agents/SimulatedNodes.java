package io.gantry.agents;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.ClusterService;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobCancelRequested;
import io.gantry.jobs.JobState;
import io.gantry.jobs.SchedulerJobs;
import io.gantry.scheduling.JobCompletion;
import io.gantry.scheduling.JobStarted;

/**
 * In-controller stand-ins for node agents: a job started on simulated nodes "runs" for its
 * {@code simulatedRunSeconds} (default half its time limit, at most 60 s) and ends with its
 * {@code simulatedExitCode} (default 0); one that would outlive its time limit ends TIMEOUT at the
 * limit; a cancelled one stops at once, as a real node confirming the kill would.
 */
@Component
class SimulatedNodes {

    private static final Logger log = LoggerFactory.getLogger(SimulatedNodes.class);
    private static final long DEFAULT_MAX_RUN_SECONDS = 60;

    private final ClusterLayout layout;
    private final SchedulerJobs jobs;
    private final JobCompletion completion;
    private final Clock clock;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gantry-simulated-nodes");
        t.setDaemon(true);
        return t;
    });
    private final Map<Long, ScheduledFuture<?>> runs = new ConcurrentHashMap<>();

    SimulatedNodes(ClusterService cluster, SchedulerJobs jobs, JobCompletion completion, Clock clock) {
        this.layout = cluster.layout();
        this.jobs = jobs;
        this.completion = completion;
        this.clock = clock;
    }

    /** After a restart, jobs the store says run on simulated nodes carry on where they were. */
    @EventListener(ApplicationReadyEvent.class)
    void resume() {
        for (ActiveJob job : jobs.activeJobs()) {
            if (job.state() == JobState.RUNNING && simulated(job)) {
                run(job);
            } else if (job.state() == JobState.COMPLETING && simulated(job)) {
                stop(job.row());
            }
        }
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobStarted event) {
        event.jobs().stream().filter(this::simulated).forEach(this::run);
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobCancelRequested event) {
        for (long row : event.jobRows()) {
            ScheduledFuture<?> run = runs.remove(row);
            if (run != null) {
                run.cancel(false);
            }
            timer.execute(() -> stop(row));
        }
    }

    private void run(ActiveJob job) {
        long limit = job.timeLimitSeconds();
        long runSeconds = job.simulatedRunSeconds() != null ? job.simulatedRunSeconds()
                : Math.min(Math.max(limit / 2, 1), DEFAULT_MAX_RUN_SECONDS);
        boolean timesOut = runSeconds > limit;
        Instant end = job.startTime().plusSeconds(timesOut ? limit : runSeconds);
        long delayMillis = Math.max(0, Duration.between(clock.instant(), end).toMillis());
        int exitCode = job.simulatedExitCode() == null ? 0 : job.simulatedExitCode();
        runs.put(job.row(), timer.schedule(() -> finish(job, end, timesOut, exitCode), delayMillis,
                TimeUnit.MILLISECONDS));
    }

    private void finish(ActiveJob job, Instant end, boolean timedOut, int exitCode) {
        runs.remove(job.row());
        try {
            if (timedOut) {
                completion.end(job.row(), JobState.TIMEOUT, null, end, "time limit reached on simulated node");
            } else {
                completion.end(job.row(), exitCode == 0 ? JobState.COMPLETED : JobState.FAILED, exitCode, end,
                        "exited with code " + exitCode + " on simulated node");
            }
        } catch (RuntimeException e) {
            log.warn("Could not end job {} on its simulated node; retrying: {}", job.displayId(), e.toString());
            runs.put(job.row(), timer.schedule(() -> finish(job, end, timedOut, exitCode), 1, TimeUnit.SECONDS));
        }
    }

    private void stop(long row) {
        try {
            completion.end(row, JobState.CANCELLED, null, clock.instant(), "stopped on simulated node");
        } catch (RuntimeException e) {
            log.warn("Could not stop job row {} on its simulated node; retrying: {}", row, e.toString());
            timer.schedule(() -> stop(row), 1, TimeUnit.SECONDS);
        }
    }

    private boolean simulated(ActiveJob job) {
        return !job.allocation().isEmpty() && job.allocation().stream().allMatch(a -> {
            ClusterLayout.NodeSpec node = layout.nodes().get(a.node());
            return node != null && node.simulated();
        });
    }
}
