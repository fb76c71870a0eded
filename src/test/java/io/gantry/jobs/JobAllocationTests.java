package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.gantry.engine.Tres;

/** The one codec of the {@code jobs.allocation} text: what is written is read back, and summed alike. */
class JobAllocationTests {

    private static final List<JobAllocation> TWO_NODES = List.of(
            new JobAllocation("gpu001", 32, 131072, List.of(0, 1, 2, 3)),
            new JobAllocation("cpu-a.rack2", 4, 1000, List.of()));

    @Test
    void anAllocationIsWrittenOneEntryPerNodeAndReadBackAsItWas() {
        String text = JobAllocation.encode(TWO_NODES);
        assertThat(text).isEqualTo("gpu001:32:131072:0.1.2.3;cpu-a.rack2:4:1000:");
        assertThat(JobAllocation.decode(text)).isEqualTo(TWO_NODES);
    }

    @Test
    void totalsSumCpusMemoryAndGpusOverTheNodesAndCountTheNodes() {
        String text = JobAllocation.encode(TWO_NODES);
        assertThat(JobAllocation.totals(text)).isEqualTo(new Tres(36, 132072, 4, 2));
        assertThat(JobAllocation.totals("gpu007:8:64000:12")).isEqualTo(new Tres(8, 64000, 1, 1));
    }

    @Test
    void migInstancesAndShardsAreWrittenBesideTheGpusAndAreNoWholeGpusInTheTotals() {
        List<JobAllocation> shared = List.of(new JobAllocation("mig1", 2, 4000, List.of(), List.of(0, 3), null, 0, 571),
                new JobAllocation("sh1", 1, 1000, List.of(), List.of(), 1, 2, 500),
                new JobAllocation("gpu1", 1, 1000, List.of(2), List.of(), null, 0, 0));
        String text = JobAllocation.encode(shared);
        assertThat(text).isEqualTo("mig1:2:4000::0.3::571;sh1:1:1000:::1.2:500;gpu1:1:1000:2");
        assertThat(JobAllocation.decode(text)).isEqualTo(shared);
        assertThat(JobAllocation.totals(text)).isEqualTo(new Tres(4, 6000, 1, 3));
        // Accounting charges the shared devices as the GPUs they are worth, beside the whole one.
        assertThat(JobAllocation.sharedGpus(text)).isEqualTo(1.071);
        assertThat(JobAllocation.sharedGpus("gpu1:1:1000:2")).isZero();
    }

    @Test
    void aJobThatHoldsNothingHasNoEntriesAndZeroTotals() {
        assertThat(JobAllocation.decode(null)).isEmpty();
        assertThat(JobAllocation.decode("")).isEmpty();
        assertThat(JobAllocation.encode(List.of())).isEmpty();
        assertThat(JobAllocation.totals(null)).isEqualTo(Tres.ZERO);
        assertThat(JobAllocation.totals("")).isEqualTo(Tres.ZERO);
    }

    @Test
    void aDamagedEntryIsRefusedNotMisread() {
        assertThatThrownBy(() -> JobAllocation.totals("gpu001:32")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("gpu001:32");
        assertThatThrownBy(() -> JobAllocation.decode("gpu001:32:1000:0;gpu002"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("gpu002");
    }
}
