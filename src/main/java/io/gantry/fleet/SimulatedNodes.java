package io.gantry.fleet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.ClusterService;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobCancelRequested;
import io.gantry.jobs.JobState;
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
    private final JobCompletion completion;
    private final Clock clock;
    /** Jobs "running" on simulated nodes, by the time they end; one thread ends all that are due together. */
    private final PriorityQueue<Due> due = new PriorityQueue<>(Comparator.comparing(Due::at).thenComparingLong(Due::row));
    private final Map<Long, Due> byRow = new HashMap<>();
    /** Jobs an operator suspended: their end as it was due, and how much of their run was left. */
    private final Map<Long, Frozen> frozen = new HashMap<>();
    private final Thread runner = new Thread(this::loop, "gantry-simulated-nodes");

    /** A job's end on its simulated node, due at {@code at}; {@code failures}: attempts that failed so far. */
    private record Due(long row, Instant at, JobState state, Integer exitCode, String detail, String id, int failures) {

        Due(long row, Instant at, JobState state, Integer exitCode, String detail, String id) {
            this(row, at, state, exitCode, detail, id, 0);
        }

        /** The next attempt after one more failure: 1 s, 2 s, 4 s ... at most a minute later (a store that is down). */
        Due retried(Instant now) {
            long delaySeconds = Math.min(60, 1L << Math.min(failures, 6));
            return new Due(row, now.plusSeconds(delaySeconds), state, exitCode, detail, id, failures + 1);
        }
    }

    private record Frozen(Due end, Duration left) {
    }

    SimulatedNodes(ClusterService cluster, JobCompletion completion, Clock clock) {
        this.layout = cluster.layout();
        this.completion = completion;
        this.clock = clock;
        runner.setDaemon(true);
        runner.start();
    }

    /**
     * Simulated nodes live in the leader: when this controller becomes it (at start, or taking over
     * from one that died), the jobs the store says run on simulated nodes carry on where they were.
     */
    @EventListener
    void on(io.gantry.scheduling.LeadershipAcquired event) {
        for (ActiveJob job : event.running()) {
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
        event.jobRows().forEach(this::stopIfRunningHere);
    }

    /**
     * A job an operator suspended stops its simulated run's clock, and runs what was left of it once resumed,
     * as a frozen job's processes make no progress.
     */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    synchronized void on(io.gantry.jobs.JobsFrozen event) {
        Instant now = clock.instant();
        for (io.gantry.jobs.JobsFrozen.Target t : event.targets()) {
            if (event.frozen()) {
                Due end = byRow.remove(t.row());
                if (end != null) {
                    due.remove(end);
                    frozen.put(t.row(), new Frozen(end, Duration.between(now, end.at())));
                }
            } else {
                Frozen f = frozen.remove(t.row());
                if (f != null) {
                    Due end = f.end();
                    schedule(new Due(end.row(), now.plus(f.left()), end.state(), end.exitCode(), end.detail(), end.id()));
                }
            }
        }
    }

    /** Only jobs "running" here: a job on a real node ends when its agent confirms the kill. */
    private synchronized void stopIfRunningHere(long row) {
        if (byRow.containsKey(row) || frozen.remove(row) != null) {
            stop(row);
        }
    }

    private void run(ActiveJob job) {
        long limit = job.timeLimitSeconds();
        long runSeconds = job.simulatedRunSeconds() != null ? job.simulatedRunSeconds()
                : Math.min(Math.max(limit / 2, 1), DEFAULT_MAX_RUN_SECONDS);
        int exitCode = job.simulatedExitCode() == null ? 0 : job.simulatedExitCode();
        Due end = runSeconds > limit
                ? new Due(job.row(), job.startTime().plusSeconds(limit), JobState.TIMEOUT, null,
                        "time limit reached on simulated node", job.displayId())
                : new Due(job.row(), job.startTime().plusSeconds(runSeconds),
                        exitCode == 0 ? JobState.COMPLETED : JobState.FAILED, exitCode,
                        "exited with code " + exitCode + " on simulated node", job.displayId());
        schedule(end);
    }

    /** A cancelled job stops at once, as a real node confirming the kill would. */
    private void stop(long row) {
        schedule(new Due(row, clock.instant(), JobState.CANCELLED, null, "stopped on simulated node", "row " + row));
    }

    private synchronized void schedule(Due end) {
        Due earlier = byRow.put(end.row(), end);
        if (earlier != null) {
            due.remove(earlier);
        }
        due.add(end);
        notifyAll();
    }

    private synchronized List<Due> takeDue() throws InterruptedException {
        while (true) {
            Due first = due.peek();
            long waitMillis = first == null ? 60_000 : Duration.between(clock.instant(), first.at()).toMillis();
            if (first != null && waitMillis <= 0) {
                List<Due> batch = new ArrayList<>();
                while (!due.isEmpty() && !due.peek().at().isAfter(clock.instant()) && batch.size() < 1000) {
                    Due d = due.poll();
                    byRow.remove(d.row());
                    batch.add(d);
                }
                return batch;
            }
            wait(Math.max(1, waitMillis));
        }
    }

    private void loop() {
        while (!Thread.currentThread().isInterrupted()) {
            List<Due> batch;
            try {
                batch = takeDue();
            } catch (InterruptedException e) {
                return;
            }
            if (batch.isEmpty()) {
                continue; // the head was due within the millisecond the wait rounded away: nothing to end yet
            }
            try {
                completion.endAll(batch.stream()
                        .map(d -> new JobCompletion.Ending(d.row(), d.state(), d.exitCode(), d.at(), d.detail()))
                        .toList());
            } catch (RuntimeException e) {
                // A conflicting change (the user cancelled one of them meanwhile): retry each on its own shortly.
                log.warn("Could not end {} jobs on their simulated nodes together; retrying one by one: {}",
                        batch.size(), e.toString());
                for (Due d : batch) {
                    try {
                        completion.end(d.row(), d.state(), d.exitCode(), d.at(), d.detail());
                    } catch (RuntimeException again) {
                        Due next = d.retried(clock.instant());
                        log.warn("Could not end job {} on its simulated node (attempt {}); retrying at {}: {}", d.id(),
                                next.failures(), next.at(), again.toString());
                        schedule(next);
                    }
                }
            }
        }
    }

    private boolean simulated(ActiveJob job) {
        return !job.allocation().isEmpty() && job.allocation().stream().allMatch(a -> {
            ClusterLayout.NodeSpec node = layout.nodes().get(a.node());
            return node != null && node.simulated();
        });
    }
}
