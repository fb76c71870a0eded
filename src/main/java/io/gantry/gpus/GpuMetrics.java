package io.gantry.gpus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

import io.gantry.noded.protocol.AgentProtocol.GpuSample;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * Each GPU's latest reading as Prometheus gauges, labelled {@code node} and {@code gpu} (its
 * nvidia-smi index): {@code gantry_gpu_utilization_ratio} (0-1), {@code gantry_gpu_memory_used_bytes},
 * {@code gantry_gpu_memory_total_bytes}, {@code gantry_gpu_power_watts},
 * {@code gantry_gpu_temperature_celsius}. Slurm 25.11's metrics have no per-GPU use, hence Gantry's own
 * names. A value the GPU does not report, or a reading older than {@link #STALE}, is NaN (no sample).
 * At most {@code gantry.metrics.max-gpu-series} GPUs get series (label cardinality is what hurts a
 * Prometheus); the rest are counted in {@code gantry_gpu_series_dropped}.
 */
@Component
public class GpuMetrics {

    /** A reading this old says nothing about the GPU now (its agent is gone or stopped sampling). */
    static final Duration STALE = Duration.ofMinutes(5);
    private static final Logger log = LoggerFactory.getLogger(GpuMetrics.class);

    private record Key(String node, int gpu) {
    }

    private final MeterRegistry registry;
    private final Clock clock;
    private final int maxGpus;
    private final Map<Key, GpuSample> latest = new ConcurrentHashMap<>();
    private final AtomicLong dropped = new AtomicLong();

    GpuMetrics(MeterRegistry registry, Clock clock, @Value("${gantry.metrics.max-gpu-series:4096}") int maxGpus) {
        this.registry = registry;
        this.clock = clock;
        this.maxGpus = Math.max(0, maxGpus);
        Gauge.builder("gantry.gpu.series.dropped", dropped, AtomicLong::get)
                .description("GPUs read but given no series: more than gantry.metrics.max-gpu-series").register(registry);
    }

    /** Takes a node's readings: each GPU's newest becomes its gauges' value. */
    void update(String node, List<GpuSample> samples) {
        for (GpuSample s : samples) {
            Key key = new Key(node, s.index());
            GpuSample before = latest.get(key);
            if (before == null) {
                if (latest.size() >= maxGpus) {
                    if (dropped.getAndIncrement() == 0) {
                        log.warn("more GPUs than gantry.metrics.max-gpu-series ({}): the rest get no metrics", maxGpus);
                    }
                    continue;
                }
                if (latest.putIfAbsent(key, s) == null) {
                    register(key);
                }
            } else if (s.time() != null && (before.time() == null || !s.time().isBefore(before.time()))) {
                latest.put(key, s);
            }
        }
    }

    private void register(Key key) {
        Tags tags = Tags.of("node", key.node(), "gpu", Integer.toString(key.gpu()));
        gauge("gantry.gpu.utilization.ratio", "GPU utilisation (nvidia-smi utilization.gpu), 0 to 1", key, tags,
                s -> s.utilization() == null ? Double.NaN : s.utilization() / 100.0);
        gauge("gantry.gpu.memory.used.bytes", "GPU memory in use", key, tags,
                s -> s.memoryUsedMb() == null ? Double.NaN : s.memoryUsedMb() * 1024.0 * 1024.0);
        gauge("gantry.gpu.memory.total.bytes", "GPU memory in all", key, tags,
                s -> s.memoryTotalMb() == null ? Double.NaN : s.memoryTotalMb() * 1024.0 * 1024.0);
        gauge("gantry.gpu.power.watts", "GPU power draw", key, tags,
                s -> s.powerWatts() == null ? Double.NaN : s.powerWatts());
        gauge("gantry.gpu.temperature.celsius", "GPU temperature", key, tags,
                s -> s.temperatureC() == null ? Double.NaN : s.temperatureC());
    }

    private void gauge(String name, String description, Key key, Tags tags, ToDoubleFunction<GpuSample> value) {
        Gauge.builder(name, latest, m -> {
            GpuSample s = m.get(key);
            Instant now = clock.instant();
            if (s == null || s.time() == null || s.time().isBefore(now.minus(STALE))) {
                return Double.NaN;
            }
            return value.applyAsDouble(s);
        }).description(description).tags(tags).register(registry);
    }

    /** How many GPUs have series now. */
    int gpusWithSeries() {
        return latest.size();
    }
}
