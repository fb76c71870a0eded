package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import io.gantry.noded.protocol.AgentProtocol.GpuSample;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** nvidia-smi's readings parsed, and {@link GpuSampler}'s attribution, weighting and queue. */
class GpuReadingsTests {

    @Test
    void readsEveryFieldOfAGpuLine() {
        List<GpuReadings.Reading> r = GpuReadings.parse("0, GPU-aaa, 87, 30512, 81559, 312.45, 61, 0\n");
        assertThat(r).containsExactly(new GpuReadings.Reading(0, "GPU-aaa", 87.0, 30512L, 81559L, 312.45, 61.0, 0L));
    }

    @Test
    void notAvailableValuesAreAbsentNotZero() {
        // a GPU split into MIG instances reports no utilisation; power and ECC may be unsupported
        List<GpuReadings.Reading> r = GpuReadings.parse(
                "1, GPU-bbb, [N/A], 1024, 40960, [Not Supported], 40, [N/A]\n"
                + "2, GPU-ccc, [Unknown Error], [N/A], [N/A], [N/A], [N/A], [N/A]\n");
        assertThat(r).hasSize(2);
        assertThat(r.get(0).utilization()).isNull();
        assertThat(r.get(0).memoryUsedMb()).isEqualTo(1024L);
        assertThat(r.get(0).powerWatts()).isNull();
        assertThat(r.get(0).eccUncorrected()).isNull();
        assertThat(r.get(1)).isEqualTo(new GpuReadings.Reading(2, "GPU-ccc", null, null, null, null, null, null));
    }

    @Test
    void skipsLinesThatAreNotGpus() {
        List<GpuReadings.Reading> r = GpuReadings.parse("""
                index, uuid, utilization.gpu [%], memory.used [MiB]
                WARNING: infoROM is corrupted at gpu 0000:3B:00.0
                0, GPU-aaa, 5, 10
                x, GPU-aaa, 5, 10, 20, 30, 40, 0
                3, , 5, 10, 20, 30, 40, 0
                4, [GPU is lost], 5, 10, 20, 30, 40, 0
                5, GPU-eee, 150, -1, 20, 30, 40, 0

                """);
        assertThat(r).hasSize(1);
        assertThat(r.get(0).index()).isEqualTo(5);
        assertThat(r.get(0).utilization()).as("clamped to 100").isEqualTo(100.0);
        assertThat(r.get(0).memoryUsedMb()).as("a negative is no reading").isNull();
        assertThat(GpuReadings.parse("")).isEmpty();
        assertThat(GpuReadings.parse(null)).isEmpty();
    }

    @Test
    void samplesNameTheJobHoldingEachGpuAndStandForTheTimeSinceTheGpusPreviousReading() {
        GpuSampler sampler = new GpuSampler("nvidia-smi", Map::of, java.time.Clock.systemUTC());
        Instant t0 = Instant.parse("2026-12-05T10:00:00Z");
        Duration interval = Duration.ofSeconds(10);
        List<GpuReadings.Reading> both = GpuReadings.parse("0, GPU-a, 80, 1, 2, 3, 4, 0\n1, GPU-b, 0, 1, 2, 3, 4, 0");
        sampler.add(both, Map.of(0, "42"), t0, interval);
        sampler.add(both, Map.of(0, "42", 1, "43_7"), t0.plusSeconds(9), interval);
        sampler.add(both, Map.of(), t0.plusSeconds(600), interval); // the agent was stopped meanwhile

        List<GpuSample> taken = sampler.drain(4);
        assertThat(taken).extracting(GpuSample::jobId).containsExactly("42", null, "42", "43_7");
        assertThat(taken).extracting(GpuSample::seconds).containsExactly(10.0, 10.0, 9.0, 9.0);
        List<GpuSample> rest = sampler.drain(100);
        assertThat(rest).extracting(GpuSample::seconds).as("at most three intervals").containsExactly(30.0, 30.0);

        sampler.putBack(rest);
        sampler.putBack(taken.subList(2, 4));
        assertThat(sampler.drain(100)).as("given back oldest first").containsExactly(taken.get(2), taken.get(3),
                rest.get(0), rest.get(1));
        assertThat(sampler.history()).hasSize(6);
    }

    @Test
    void thePendingQueueKeepsTheNewestWhenTheControllerIsOutOfReach() {
        GpuSampler sampler = new GpuSampler("nvidia-smi", Map::of, java.time.Clock.systemUTC());
        List<GpuReadings.Reading> one = GpuReadings.parse("0, GPU-a, 80, 1, 2, 3, 4, 0");
        Instant t = Instant.parse("2026-12-05T10:00:00Z");
        for (int i = 0; i < GpuSampler.MAX_PENDING + 5; i++) {
            sampler.add(one, Map.of(), t.plusSeconds(i), Duration.ofSeconds(1));
        }
        List<GpuSample> all = sampler.drain(Integer.MAX_VALUE);
        assertThat(all).hasSize(GpuSampler.MAX_PENDING);
        assertThat(all.get(0).time()).isEqualTo(t.plusSeconds(5));
        assertThat(sampler.history()).hasSize(GpuSampler.HISTORY);
    }
}
