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

    /**
     * The two-level day: vision borrows nlp's idle quarter inside research and research borrows prod's
     * idle quarter at the root; nlp at noon and prod at 18:00 each get their guarantee back within one
     * reclaim round (the victims' grace plus the cycles around it), not two.
     */
    @Test
    void inATwoLevelTreeBothLevelsLendAndEachOwnerIsWholeAfterOneGraceTime() {
        long cycle = 30;
        long grace = 120;
        QuotaDay.Result lending = QuotaDay.simulateTree(16, cycle, grace, 0, 1, true);
        QuotaDay.Result capped = QuotaDay.simulateTree(16, cycle, grace, 0, 1, false);

        assertThat(capped.morning()).as("without lending nlp's and half of prod's GPUs idle").isLessThan(0.55);
        assertThat(lending.morning()).isGreaterThan(0.9);
        assertThat(lending.utilisation()).isGreaterThan(capped.utilisation());
        assertThat(lending.borrowedMorning().get("research")).as("vision on nlp's idle 32").isGreaterThan(25.0);
        assertThat(lending.borrowedMorning().get("root")).as("research on prod's idle 32").isGreaterThan(25.0);
        assertThat(capped.borrowedMorning()).isEmpty();
        assertThat(capped.reclaims()).isZero();
        assertThat(lending.reclaims()).isPositive();
        assertThat(lending.returnSeconds().get("nlp@12h")).as("nlp whole after noon").isBetween(0L, 2 * cycle + grace);
        assertThat(lending.returnSeconds().get("prod@18h")).as("prod whole after 18:00")
                .isBetween(0L, 2 * cycle + grace);
        assertThat(lending.peaks().get("nlp")).isGreaterThanOrEqualTo(32);
        assertThat(lending.peaks().get("prod")).isGreaterThanOrEqualTo(64);
    }
}
