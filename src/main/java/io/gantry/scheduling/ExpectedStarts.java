package io.gantry.scheduling;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import io.gantry.engine.Engine;
import io.gantry.engine.JobId;
import io.gantry.engine.Plan;
import io.gantry.engine.Snapshot;
import io.gantry.engine.StartEstimate;
import io.gantry.engine.StartEstimates;
import io.gantry.engine.StartEstimator;
import io.gantry.jobs.ActiveJob;

/**
 * Works out every pending job's expected start on a thread of its own, from a full pass's
 * snapshot and plan, so that the pass (within {@code gantry.scheduler.estimate-time-budget}) never
 * holds up the scheduler's next cycle: the scheduler hands a pass in and, at a later cycle, takes
 * the finished result (row to expected start, null for none) to write. One pass at a time; a pass
 * handed in while one runs is dropped, the next full pass brings a newer one. Each pass goes on
 * where the one before stopped, when the budget cut that one short, so that every job is searched for
 * within a few passes; until then it has a rough time (see {@link StartEstimator}). Its own engine, so
 * that nothing the engine caches is shared between threads.
 */
@Component
class ExpectedStarts {

    private static final Logger log = LoggerFactory.getLogger(ExpectedStarts.class);

    private final Engine engine = new Engine();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "gantry-expected-starts");
        t.setDaemon(true);
        return t;
    });
    private final StartEstimator.Budget budget;
    private Future<Map<Long, Instant>> running;
    /** The last finished pass; read and written only on the estimator's thread. */
    private StartEstimates last;

    private final io.gantry.cluster.PowerStates power;

    ExpectedStarts(SchedulerProperties properties, io.gantry.cluster.PowerStates power) {
        this.power = power;
        this.budget = new StartEstimator.Budget(properties.estimateMaxJobs(), properties.estimateTimeBudget().toNanos());
    }

    /**
     * Starts a pass over {@code snapshot} after {@code plan}; {@code rows} names each job's row.
     * False when a pass is still running (this one is dropped).
     */
    boolean start(Snapshot snapshot, Plan plan, Map<JobId, ActiveJob> rows) {
        if (running != null) {
            return false;
        }
        // Powered-down nodes are usable once they have come up: a start on them counts their resume delay.
        Map<String, Long> readyAt = power.readyAt(snapshot.now());
        running = thread.submit(() -> {
            StartEstimates estimates = engine.estimateStarts(snapshot, plan, budget, last);
            last = estimates;
            if (estimates.cutShort()) {
                log.debug("Expected starts: budget reached; {} of {} jobs have a time, {} of them kept from an earlier"
                        + " pass and {} rough; the next goes on at {}", estimates.estimated(), estimates.estimates().size(),
                        estimates.carried(), estimates.rough(), estimates.resumeAt());
            }
            // In queue order: what is written first, when not all of it is written at once.
            Map<Long, Instant> byRow = new LinkedHashMap<>(estimates.estimates().size() * 2);
            for (StartEstimate e : estimates.estimates()) {
                java.util.OptionalLong start = io.gantry.engine.NodeReadiness.delayed(e, readyAt);
                byRow.put(rows.get(e.job()).row(), start.isPresent() ? Instant.ofEpochSecond(start.getAsLong()) : null);
            }
            return byRow;
        });
        return true;
    }

    /** The finished pass's expected starts by row (null values: none), once; null while none is finished. */
    Map<Long, Instant> takeFinished() {
        if (running == null || !running.isDone()) {
            return null;
        }
        Future<Map<Long, Instant>> done = running;
        running = null;
        try {
            return done.get();
        } catch (ExecutionException e) {
            log.warn("Expected starts failed: {}", e.getCause().toString());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @jakarta.annotation.PreDestroy
    void stop() {
        thread.shutdownNow();
    }
}
