package io.gantry.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The simulated day of issue 16 ("Done when" 2): with lending, team a uses team b's idle half in
 * the morning, and b has its whole guarantee back within a cycle plus the grace time (plus the
 * cycle that sees the reclaimed jobs gone) of its jobs arriving at noon.
 */
class QuotaDayTests {

    @Test
    void lendingUsesTheIdleTeamsGpusAndGivesThemBackWithinTheGraceTime() {
        long cycle = 30;
        long grace = 120;
        QuotaDay.Day lending = QuotaDay.simulate(16, cycle, grace, 0, 1, true);
        QuotaDay.Day capped = QuotaDay.simulate(16, cycle, grace, 0, 1, false);

        assertThat(capped.morning()).as("without lending the idle half idles").isLessThan(0.55);
        assertThat(lending.morning()).as("with lending a uses it").isGreaterThan(0.9);
        assertThat(lending.utilisation()).isGreaterThan(capped.utilisation());
        assertThat(lending.reclaims()).isPositive();
        assertThat(capped.reclaims()).isZero();
        assertThat(lending.returnSeconds()).as("b at its guarantee after noon").isBetween(0L, 2 * cycle + grace);
        assertThat(lending.bPeak()).isGreaterThanOrEqualTo(8L * 16 / 2);
    }
}
