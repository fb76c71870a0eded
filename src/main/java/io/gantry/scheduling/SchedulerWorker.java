package io.gantry.scheduling;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

import io.gantry.accounting.AccountingChanged;
import io.gantry.cluster.NodeStateChanged;
import io.gantry.control.LeaderLock;
import io.gantry.jobs.JobsChanged;

/**
 * The scheduler's one thread: runs a cycle when woken by a submission, an ended job or a node
 * change, and at least every {@code gantry.scheduler.interval}; only while this process holds
 * leadership.
 */
@Component
class SchedulerWorker implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(SchedulerWorker.class);

    private final SchedulingCycle cycle;
    private final SchedulerStats stats;
    private final LeaderLock leader;
    private final SchedulerProperties properties;
    private final SchedulerRecovery recovery;
    private final LiveJobs live;
    private final ClusterFiguresRecorder figures;
    private final io.gantry.control.LeaderDirectory directory;
    private final org.springframework.context.ApplicationEventPublisher events;
    private boolean advertised;
    private final java.time.Clock clock;
    private long lastFullPass = System.nanoTime() - Long.MAX_VALUE / 2;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition woken = lock.newCondition();
    private boolean wakeRequested;
    private volatile boolean running;
    private Thread thread;

    SchedulerWorker(SchedulingCycle cycle, SchedulerStats stats, LeaderLock leader, SchedulerProperties properties,
            SchedulerRecovery recovery, LiveJobs live, io.gantry.control.LeaderDirectory directory,
            org.springframework.context.ApplicationEventPublisher events, java.time.Clock clock,
            ClusterFiguresRecorder figures) {
        this.figures = figures;
        this.clock = clock;
        this.directory = directory;
        this.events = events;
        this.recovery = recovery;
        this.live = live;
        this.cycle = cycle;
        this.stats = stats;
        this.leader = leader;
        this.properties = properties;
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobsChanged event) {
        if ("SUBMITTED".equals(event.change())) {
            stats.submitted();
        }
        live.touchJobs(java.util.List.of(event.jobId()));
        wake();
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobStarted event) {
        live.touchRows(event.jobs().stream().map(io.gantry.jobs.ActiveJob::row).toList());
    }

    /** Suspended and resumed jobs are read again: their state says whether they hold what they were given. */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobsSuspended event) {
        java.util.List<Long> rows = new java.util.ArrayList<>();
        event.suspended().forEach(t -> rows.add(t.row()));
        event.resumed().forEach(t -> rows.add(t.row()));
        live.touchRows(rows);
        wake();
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(NodeStateChanged event) {
        cycle.outsideChange();
        wake();
    }

    /** A partition set UP may start its pending jobs; one set DOWN starts nothing more. */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(io.gantry.cluster.PartitionStateChanged event) {
        cycle.outsideChange();
        wake();
    }

    /** A limit raised or an association added may let pending jobs start. */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(AccountingChanged event) {
        cycle.outsideChange();
        wake();
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobEnded event) {
        stats.completed();
        live.touchRows(java.util.List.of(event.row()));
        wake();
    }

    void wake() {
        lock.lock();
        try {
            wakeRequested = true;
            woken.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Runs one full pass now, on the caller's thread (tests drive cycles this way). */
    synchronized SchedulingCycle.Outcome runOnce() {
        return runCycle(true);
    }

    private SchedulingCycle.Outcome runCycle(boolean full) {
        long begin = System.nanoTime();
        SchedulingCycle.Outcome outcome = cycle.run(full);
        if (outcome != null) {
            stats.cycle(System.nanoTime() - begin, outcome);
        }
        if (full) {
            lastFullPass = System.nanoTime();
        }
        // Even after a cycle with nothing to do: it re-read what changed (a start, an end) into the live jobs.
        figures.afterCycle(live, full);
        // Off the start path: expected starts are worked out on their own thread from the last full
        // pass; each cycle writes those of a finished one.
        cycle.estimateStarts();
        return outcome;
    }

    private void loop() {
        boolean recovered = false;
        while (running) {
            try {
                if (leader.isLeader()) {
                    synchronized (this) {
                        if (!recovered) {
                            // A new leader trusts the store, not what an earlier leader left in node counters,
                            // and reads the active jobs once; from then on it keeps them up to date.
                            // The active jobs are read once: recovery and simulated nodes use what was loaded.
                            live.load(clock.instant());
                            recovery.recover(live.runningJobs());
                            cycle.leaderStarted(live.runningJobs());
                            recovered = true;
                            advertised = false;
                            events.publishEvent(new LeadershipAcquired(live.runningJobs()));
                        }
                        if (!advertised) {
                            // Followers forward writes and send agents to the URL this writes.
                            advertised = directory.advertise();
                        }
                        boolean full = System.nanoTime() - lastFullPass >= properties.fullPassInterval().toNanos();
                        runCycle(full);
                    }
                } else {
                    if (recovered) {
                        live.clear();
                        cycle.leaderLost();
                        figures.leaderLost();
                    }
                    recovered = false;
                }
            } catch (RuntimeException e) {
                // A conflicting change (a job cancelled, a node drained) rolls the cycle back; the next one
                // replans, from the store: what the rolled-back cycle read may be what conflicted.
                log.warn("Scheduling cycle failed and was rolled back: {}", e.toString());
                live.clear();
            }
            awaitWake();
        }
    }

    private void awaitWake() {
        lock.lock();
        try {
            long nanos = properties.interval().toNanos();
            while (!wakeRequested && running && nanos > 0) {
                nanos = woken.awaitNanos(nanos);
            }
            wakeRequested = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void start() {
        if (!properties.enabled()) {
            log.info("Scheduling is disabled on this controller (gantry.scheduler.enabled=false)");
            return;
        }
        running = true;
        leader.resume();
        thread = new Thread(this::loop, "gantry-scheduler");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void stop() {
        running = false;
        wake();
        if (thread != null) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        leader.resign();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
