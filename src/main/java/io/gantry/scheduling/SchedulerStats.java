package io.gantry.scheduling;

import java.util.concurrent.atomic.AtomicLong;

import org.springframework.stereotype.Component;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/** Scheduler figures like sdiag's, kept in memory and exported to Prometheus. */
@Component
class SchedulerStats {

    private final AtomicLong cycles = new AtomicLong();
    private final AtomicLong lastCycleMicros = new AtomicLong();
    private final AtomicLong totalCycleMicros = new AtomicLong();
    private final AtomicLong maxCycleMicros = new AtomicLong();
    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong started = new AtomicLong();
    private final AtomicLong backfilled = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong pending = new AtomicLong();
    private final AtomicLong running = new AtomicLong();
    private final Timer cycleTimer;
    private final Counter startedCounter;
    private final Counter backfilledCounter;

    SchedulerStats(MeterRegistry registry) {
        this.cycleTimer = Timer.builder("gantry.scheduler.cycle").description("Scheduling cycle duration")
                .register(registry);
        this.startedCounter = Counter.builder("gantry.jobs.started").register(registry);
        this.backfilledCounter = Counter.builder("gantry.jobs.backfilled").register(registry);
        Gauge.builder("gantry.jobs.pending", pending, AtomicLong::get).register(registry);
        Gauge.builder("gantry.jobs.running", running, AtomicLong::get).register(registry);
        Counter.builder("gantry.jobs.submitted").register(registry);
    }

    void cycle(long nanos, SchedulingCycle.Outcome outcome) {
        long micros = nanos / 1000;
        cycles.incrementAndGet();
        lastCycleMicros.set(micros);
        totalCycleMicros.addAndGet(micros);
        maxCycleMicros.accumulateAndGet(micros, Math::max);
        started.addAndGet(outcome.started());
        backfilled.addAndGet(outcome.backfilled());
        pending.set(outcome.pending());
        running.set(outcome.running());
        cycleTimer.record(java.time.Duration.ofNanos(nanos));
        startedCounter.increment(outcome.started());
        backfilledCounter.increment(outcome.backfilled());
    }

    void submitted() {
        submitted.incrementAndGet();
    }

    void completed() {
        completed.incrementAndGet();
    }

    record Figures(long cycles, double lastCycleMs, double meanCycleMs, double maxCycleMs, long jobsSubmitted,
            long jobsStarted, long jobsBackfilled, long jobsCompleted, long pending, long running) {
    }

    Figures figures() {
        long n = cycles.get();
        return new Figures(n, lastCycleMicros.get() / 1000.0, n == 0 ? 0 : totalCycleMicros.get() / 1000.0 / n,
                maxCycleMicros.get() / 1000.0, submitted.get(), started.get(), backfilled.get(), completed.get(),
                pending.get(), running.get());
    }
}
