package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol.GpuSample;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads this node's GPUs' use every {@code gantry.agents.gpu-sample-interval} with {@code nvidia-smi
 * --query-gpu=...} (utilisation, memory, power, temperature, uncorrectable ECC errors), names the job
 * holding each GPU then, and keeps the readings until a poll carries them to the controller (at most
 * {@link #MAX_PENDING}: a controller out of reach for long loses the oldest), plus a short history of
 * the node's latest readings. It exists because a GPU that is allocated and idle is invisible to the
 * scheduler: only the driver knows. Nodes whose GPUs were declared with {@code --gpus} have no
 * {@code nvidia-smi} to ask and never sample.
 */
final class GpuSampler implements AutoCloseable {

    /** Readings kept for the controller while polls fail: a day of 8 GPUs at 10 s is 69 120; this is ~2 h. */
    static final int MAX_PENDING = 8 * 6 * 60 * 2;
    /** Readings of the whole node kept as its recent history. */
    static final int HISTORY = 8 * 60;
    private static final Logger log = LoggerFactory.getLogger(GpuSampler.class);

    private final String nvidiaSmi;
    private final Supplier<Map<Integer, String>> holders;
    private final Clock clock;
    private final Deque<GpuSample> pending = new ArrayDeque<>();
    private final Deque<GpuSample> history = new ArrayDeque<>();
    private final Map<Integer, Instant> lastRead = new HashMap<>();
    private long intervalMillis;
    private ScheduledExecutorService timer;
    private boolean warned;

    /**
     * {@code nvidiaSmi} is the program to run; {@code holders} answers which job holds each GPU
     * (nvidia-smi index to display id) at the time of a reading.
     */
    GpuSampler(String nvidiaSmi, Supplier<Map<Integer, String>> holders, Clock clock) {
        this.nvidiaSmi = nvidiaSmi;
        this.holders = holders;
        this.clock = clock;
    }

    /** Samples every {@code millis} (0 or less: stops), on a fresh daemon timer when the interval changed. */
    synchronized void configure(long millis) {
        if (timer != null && millis == intervalMillis) {
            return;
        }
        stop();
        intervalMillis = millis;
        if (millis <= 0) {
            return;
        }
        log.info("GPU use read with nvidia-smi every {} ms", millis);
        timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("gpu-sampler"));
        Duration interval = Duration.ofMillis(millis);
        timer.scheduleWithFixedDelay(() -> sampleSafely(interval), 0, millis, TimeUnit.MILLISECONDS);
    }

    /** A reading that throws must not end the schedule (a scheduled task that throws is never run again). */
    private void sampleSafely(Duration interval) {
        try {
            sampleOnce(interval);
        } catch (RuntimeException e) {
            log.warn("reading the GPUs failed: {}", e.toString());
        }
    }

    /** One reading of every GPU, attributed and queued; nothing when nvidia-smi fails or says nothing usable. */
    void sampleOnce(Duration interval) {
        String out = NodeResources.run(nvidiaSmi, GpuReadings.QUERY, "--format=csv,noheader,nounits");
        List<GpuReadings.Reading> readings = GpuReadings.parse(out);
        if (readings.isEmpty()) {
            if (!warned) {
                log.warn("nvidia-smi gave no GPU readings: GPU use is not known until it does");
                warned = true;
            }
            return;
        }
        warned = false;
        add(readings, holders.get(), clock.instant(), interval);
    }

    /** Queues readings taken at {@code now}, each standing for the time since its GPU's previous one. */
    synchronized void add(List<GpuReadings.Reading> readings, Map<Integer, String> holding, Instant now,
            Duration interval) {
        double cap = interval.toMillis() * 3 / 1000.0;
        for (GpuReadings.Reading r : readings) {
            Instant last = lastRead.put(r.index(), now);
            double seconds = last == null ? interval.toMillis() / 1000.0
                    : Math.min(cap, Math.max(0, Duration.between(last, now).toMillis() / 1000.0));
            GpuSample sample = new GpuSample(now, r.index(), r.uuid(), holding.get(r.index()), r.utilization(),
                    r.memoryUsedMb(), r.memoryTotalMb(), r.powerWatts(), r.temperatureC(), r.eccUncorrected(),
                    seconds);
            push(pending, sample, MAX_PENDING);
            push(history, sample, HISTORY);
        }
    }

    private static void push(Deque<GpuSample> queue, GpuSample sample, int max) {
        queue.addLast(sample);
        while (queue.size() > max) {
            queue.removeFirst();
        }
    }

    /** Takes up to {@code max} of the oldest readings for a poll. */
    synchronized List<GpuSample> drain(int max) {
        List<GpuSample> out = new ArrayList<>(Math.min(max, pending.size()));
        while (out.size() < max && !pending.isEmpty()) {
            out.add(pending.removeFirst());
        }
        return out;
    }

    /** Gives back readings a poll failed to deliver, in front of any taken since (oldest stay first). */
    synchronized void putBack(List<GpuSample> samples) {
        for (int i = samples.size() - 1; i >= 0; i--) {
            pending.addFirst(samples.get(i));
        }
        while (pending.size() > MAX_PENDING) {
            pending.removeFirst();
        }
    }

    /** Which of {@code running} (display id to job) holds each whole GPU it names. */
    static Map<Integer, String> holders(Map<String, JobProcess> running) {
        Map<Integer, String> holders = new HashMap<>();
        running.forEach((id, job) -> java.util.Objects.requireNonNullElse(job.launch().gpuIndices(),
                List.<Integer>of()).forEach(gpu -> holders.put(gpu, id)));
        return holders;
    }

    /** The node's latest readings, oldest first. */
    synchronized List<GpuSample> history() {
        return List.copyOf(history);
    }

    private synchronized void stop() {
        ScheduledExecutorService t = timer;
        timer = null;
        if (t != null) {
            t.shutdownNow();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
