package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** MaxRSS and TotalCPU written as sacct writes them, and empty when not known. */
class SacctUsageTests {

    private static final long K = 1024;

    @Test
    void maxRssIsInKilobytesWhileThatIsExact() {
        assertThat(SacctUsage.maxRss(123456 * K)).isEqualTo("123456K");
        assertThat(SacctUsage.maxRss(9120 * K)).isEqualTo("9120K");
        assertThat(SacctUsage.maxRss(4096L)).isEqualTo("4K");
    }

    @Test
    void maxRssClimbsToTheLargestExactUnitAndKeepsHalves() {
        assertThat(SacctUsage.maxRss(1024 * K)).isEqualTo("1M");
        assertThat(SacctUsage.maxRss(3 * K * K * K)).isEqualTo("3G");
        assertThat(SacctUsage.maxRss(2560 * K * K)).isEqualTo("2.50G");
        assertThat(SacctUsage.maxRss(1536L)).isEqualTo("1.50K");
        assertThat(SacctUsage.maxRss(2 * K * K * K * K)).isEqualTo("2T");
        assertThat(SacctUsage.maxRss(5 * K * K * K * K * K)).isEqualTo("5P");
    }

    @Test
    void maxRssBelowAKilobyteOrNotAMultipleOf512StaysInBytes() {
        assertThat(SacctUsage.maxRss(1000L)).isEqualTo("1000");
        assertThat(SacctUsage.maxRss(123457L)).isEqualTo("123457");
        assertThat(SacctUsage.maxRss(0L)).isEqualTo("0");
    }

    @Test
    void maxRssNotKnownIsEmpty() {
        assertThat(SacctUsage.maxRss(null)).isNull();
    }

    @Test
    void totalCpuUnderAnHourShowsMilliseconds() {
        assertThat(SacctUsage.totalCpu(62_345L)).isEqualTo("01:02.345");
        assertThat(SacctUsage.totalCpu(5L)).isEqualTo("00:00.005");
        assertThat(SacctUsage.totalCpu(59 * 60_000L + 59_999L)).isEqualTo("59:59.999");
    }

    @Test
    void totalCpuInWholeSecondsUnderAnHourHasAZeroHourField() {
        assertThat(SacctUsage.totalCpu(62_000L)).isEqualTo("00:01:02");
        assertThat(SacctUsage.totalCpu(0L)).isEqualTo("00:00:00");
    }

    @Test
    void totalCpuFromAnHourOnIsInWholeSecondsWithDaysBeforeADash() {
        assertThat(SacctUsage.totalCpu(3_600_000L)).isEqualTo("01:00:00");
        assertThat(SacctUsage.totalCpu((2 * 3600 + 3 * 60 + 4) * 1000L + 567)).isEqualTo("02:03:04");
        assertThat(SacctUsage.totalCpu(((86400 + 2 * 3600 + 3 * 60 + 4) * 1000L))).isEqualTo("1-02:03:04");
        assertThat(SacctUsage.totalCpu(400L * 86400 * 1000)).isEqualTo("400-00:00:00");
    }

    @Test
    void totalCpuNotKnownIsEmpty() {
        assertThat(SacctUsage.totalCpu(null)).isNull();
    }
}
