package io.gantry.gpus;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.gantry.noded.protocol.AgentProtocol.GpuSample;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** Per-GPU gauges: the latest reading, NaN when not reported or stale, and a cap on how many GPUs get series. */
class GpuMetricsTests {

    private static final Instant NOW = Instant.parse("2026-12-05T10:00:00Z");

    private static GpuSample sample(int gpu, Instant time, Double util, Double watts) {
        return new GpuSample(time, gpu, "GPU-" + gpu, null, util, 2000L, 16384L, watts, 50.0, 0L, 10);
    }

    @Test
    void eachGpusLatestReadingIsItsGaugesValueUpToTheCap() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GpuMetrics metrics = new GpuMetrics(registry, Clock.fixed(NOW, ZoneOffset.UTC), 2);
        metrics.update("n1", List.of(sample(0, NOW.minusSeconds(20), 10.0, 100.0), sample(0, NOW.minusSeconds(10), 80.0, null),
                sample(1, NOW.minusSeconds(10), null, 300.0)));
        metrics.update("n2", List.of(sample(0, NOW, 50.0, 1.0)));

        assertThat(registry.get("gantry.gpu.utilization.ratio").tags("node", "n1", "gpu", "0").gauge().value())
                .isEqualTo(0.8);
        assertThat(registry.get("gantry.gpu.power.watts").tags("node", "n1", "gpu", "0").gauge().value()).isNaN();
        assertThat(registry.get("gantry.gpu.utilization.ratio").tags("node", "n1", "gpu", "1").gauge().value()).isNaN();
        assertThat(registry.get("gantry.gpu.memory.used.bytes").tags("node", "n1", "gpu", "1").gauge().value())
                .isEqualTo(2000.0 * 1024 * 1024);
        assertThat(registry.find("gantry.gpu.utilization.ratio").tags("node", "n2").gauge()).as("over the cap").isNull();
        assertThat(registry.get("gantry.gpu.series.dropped").gauge().value()).isEqualTo(1);
        assertThat(metrics.gpusWithSeries()).isEqualTo(2);

        // an older reading arriving late does not replace a newer one
        metrics.update("n1", List.of(sample(0, NOW.minusSeconds(30), 5.0, 5.0)));
        assertThat(registry.get("gantry.gpu.utilization.ratio").tags("node", "n1", "gpu", "0").gauge().value())
                .isEqualTo(0.8);
    }

    @Test
    void aStaleReadingSaysNothing() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        GpuMetrics metrics = new GpuMetrics(registry, Clock.fixed(NOW, ZoneOffset.UTC), 10);
        metrics.update("n1", List.of(sample(0, NOW.minus(GpuMetrics.STALE).minusSeconds(1), 80.0, 1.0)));
        assertThat(registry.get("gantry.gpu.utilization.ratio").tags("node", "n1", "gpu", "0").gauge().value()).isNaN();
    }
}
