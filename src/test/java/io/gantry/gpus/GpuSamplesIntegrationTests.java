package io.gantry.gpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import io.gantry.noded.protocol.AgentProtocol.GpuSample;
import io.gantry.support.GantryIntegrationTest;

/**
 * A job's GPU figures from its stored readings on PostgreSQL: averages weighted by the time each reading
 * stands for, readings without a value left out of the average (not counted as 0), peaks, idle time
 * below the threshold, readings of GPUs no job held not stored, and the series raw or merged.
 */
@GantryIntegrationTest
class GpuSamplesIntegrationTests {

    private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");

    @Autowired
    GpuSamples samples;

    private static GpuSample reading(int gpu, String job, int atSecond, Double util, Long memMb, double seconds) {
        return new GpuSample(T0.plusSeconds(atSecond), gpu, "GPU-" + gpu, job, util, memMb, 16384L, 100.0, 50.0, 0L,
                seconds);
    }

    @Test
    void averagesAreWeightedByTimeAndMissingValuesAreNotZeros() {
        String job = Long.toString(ThreadLocalRandom.current().nextLong(1_000_000_000L, 2_000_000_000L));
        samples.record("n1", List.of(
                reading(0, job, 0, 80.0, 1000L, 30),   // 30 s at 80 %
                reading(0, job, 10, 0.0, 10L, 10),     // 10 s at 0 %: idle
                reading(1, job, 10, null, null, 10),   // GPU 1 reports nothing: not in the averages
                reading(2, null, 10, 99.0, 9999L, 10)));  // held by no job: not the job's
        samples.record("n2", List.of(reading(0, job, 20, 4.9, 500L, 20))); // below 5 %: idle

        GpuUsage u = samples.usage(job);
        assertThat(u.averageUtilization()).isCloseTo((80.0 * 30 + 0 + 4.9 * 20) / 60, within(1e-9));
        assertThat(u.peakUtilization()).isEqualTo(80.0);
        assertThat(u.peakMemoryMb()).isEqualTo(1000L);
        assertThat(u.averageMemoryMb()).isEqualTo(Math.round((1000.0 * 30 + 10 * 10 + 500 * 20) / 60));
        assertThat(u.gpuSeconds()).isEqualTo(70.0);
        assertThat(u.idleGpuSeconds()).isEqualTo(30.0);
        assertThat(u.samples()).isEqualTo(4);
        assertThat(u.lastSample()).isEqualTo(T0.plusSeconds(20));
        assertThat(samples.usage(List.of(job, job + "_1", "not-a-job"))).containsOnlyKeys(job);

        GpuUsageSeries raw = samples.series(job, 100);
        assertThat(raw.bucketSeconds()).isNull();
        assertThat(raw.points()).extracting(GpuUsageSeries.Point::node, GpuUsageSeries.Point::gpu,
                GpuUsageSeries.Point::utilization).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("n1", 0, 80.0),
                        org.assertj.core.groups.Tuple.tuple("n1", 0, 0.0),
                        org.assertj.core.groups.Tuple.tuple("n1", 1, null),
                        org.assertj.core.groups.Tuple.tuple("n2", 0, 4.9));
    }

    @Test
    void aLongSeriesIsMergedIntoBucketsWithinMaxPoints() {
        String job = ThreadLocalRandom.current().nextLong(2_000_000_000L, 3_000_000_000L) + "_3";
        List<GpuSample> many = new ArrayList<>();
        for (int s = 0; s < 600; s++) {
            many.add(reading(0, job, s, s < 300 ? 80.0 : 0.0, 100L, 1));
            many.add(reading(1, job, s, 50.0, 200L + s, 1));
        }
        samples.record("n1", many);
        GpuUsageSeries merged = samples.series(job, 20);
        assertThat(merged.points()).hasSizeLessThanOrEqualTo(20);
        assertThat(merged.bucketSeconds()).isPositive();
        assertThat(merged.points().get(0).utilization()).isEqualTo(80.0);
        assertThat(merged.points().get(0).time()).isEqualTo(T0);
        Map<Integer, Long> lastMemory = new java.util.HashMap<>();
        merged.points().forEach(p -> lastMemory.put(p.gpu(), p.memoryUsedMb()));
        assertThat(lastMemory.get(1)).as("a bucket's memory is its peak").isEqualTo(799L);
        assertThat(samples.usage(job).averageUtilization()).isCloseTo((80.0 * 300 + 50.0 * 600) / 1200, within(1e-9));
    }
}
