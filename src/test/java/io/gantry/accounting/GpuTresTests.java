package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.gantry.gpus.GpuUsage;

/** GPU use in sacct's TRESUsageInAve/Max as Slurm writes it: gres/gpumem with units, gres/gpuutil whole percent. */
class GpuTresTests {

    private static JobAccountingRecord line() {
        return new JobAccountingRecord("42", "j", "alice", "a", "p", "normal", null, null, null, null, null, 0, 0,
                null, 0, 0, null, null, null, null, null, null, null, null);
    }

    @Test
    void averageAndPeakOfMemoryAndUtilisation() {
        JobAccountingRecord r = line().withGpuUsage(new GpuUsage(40.4, 80.0, 30512L, 20480L, 16, 8, 32,
                Instant.parse("2026-12-05T10:00:00Z")));
        assertThat(r.tresUsageInAve()).isEqualTo("gres/gpumem=20G,gres/gpuutil=40");
        assertThat(r.tresUsageInMax()).isEqualTo("gres/gpumem=30512M,gres/gpuutil=80");
    }

    @Test
    void whatWasNotReportedIsLeftOut() {
        JobAccountingRecord r = line().withGpuUsage(new GpuUsage(null, null, 1000L, 1000L, 16, 0, 2, null));
        assertThat(r.tresUsageInAve()).isEqualTo("gres/gpumem=1000M");
        assertThat(line().withGpuUsage(null).tresUsageInMax()).isNull();
    }
}
