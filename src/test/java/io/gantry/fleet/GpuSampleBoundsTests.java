package io.gantry.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.gantry.noded.protocol.AgentProtocol.GpuSample;
import io.gantry.api.GantryException;

/** A poll's GPU readings are refused (400 naming the field) before any is stored when one is out of bounds. */
class GpuSampleBoundsTests {

    private static GpuSample ok() {
        return new GpuSample(Instant.parse("2026-12-05T10:00:00Z"), 0, "GPU-a", "42_7", 80.0, 1L, 2L, 3.0, 4.0, 0L, 10);
    }

    private static String field(List<GpuSample> samples) {
        try {
            GpuSampleBounds.check(samples);
            return null;
        } catch (GantryException e) {
            return e.getMessage();
        }
    }

    @Test
    void namesTheFieldOfTheFirstBadReading() {
        GpuSample s = ok();
        assertThat(field(List.of(s))).isNull();
        assertThat(field(null)).isNull();
        assertThat(field(List.of(s, new GpuSample(null, 0, "u", null, null, null, null, null, null, null, 1))))
                .contains("gpuSamples[1].time");
        assertThat(field(List.of(new GpuSample(s.time(), 1024, "u", null, null, null, null, null, null, null, 1))))
                .contains("gpuSamples[0].index");
        assertThat(field(List.of(new GpuSample(s.time(), 0, "u", "42.batch", null, null, null, null, null, null, 1))))
                .contains("gpuSamples[0].jobId");
        assertThat(field(List.of(new GpuSample(s.time(), 0, "u", null, 101.0, null, null, null, null, null, 1))))
                .contains("gpuSamples[0].utilization");
        assertThat(field(List.of(new GpuSample(s.time(), 0, "u", null, Double.NaN, null, null, null, null, null, 1))))
                .contains("gpuSamples[0].utilization");
        assertThat(field(List.of(new GpuSample(s.time(), 0, "u", null, null, null, null, null, null, null, -1))))
                .contains("gpuSamples[0].seconds");
        assertThat(field(List.of(new GpuSample(s.time(), 0, "u", null, null, -5L, null, null, null, null, 1))))
                .contains("gpuSamples[0].memoryUsedMb");
        List<GpuSample> withNull = new ArrayList<>(List.of(s));
        withNull.add(null);
        assertThat(field(withNull)).contains("gpuSamples[1]");
    }

    @Test
    void refusesMoreThanOnePollHolds() {
        assertThatThrownBy(() -> GpuSampleBounds.check(Collections.nCopies(GpuSample.MAX_PER_POLL + 1, ok())))
                .isInstanceOf(GantryException.class).hasMessageContaining("gpuSamples");
    }
}
