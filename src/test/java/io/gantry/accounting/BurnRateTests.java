package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

/** A budget's burn rate and the day it runs out at that rate, as the dashboard's budgets show them. */
class BurnRateTests {

    private static final Instant NOON = Instant.parse("2026-03-11T12:00:00Z");
    private static final Duration NO_DECAY = Duration.ZERO;
    private static final Duration WEEK = Duration.ofDays(7);

    @Test
    void theRateIsMeasuredOverTheLastDayOrSinceTheCurrentUsagePeriodBegan() {
        assertThat(BurnRate.windowStart(NOON, UsageResetPeriod.NONE)).isEqualTo(NOON.minus(Duration.ofDays(1)));
        assertThat(BurnRate.windowStart(NOON, UsageResetPeriod.DAILY)).isEqualTo(Instant.parse("2026-03-11T00:00:00Z"));
        // A month that began ten days ago: the last day is the shorter window.
        assertThat(BurnRate.windowStart(NOON, UsageResetPeriod.MONTHLY)).isEqualTo(NOON.minus(Duration.ofDays(1)));
    }

    @Test
    void oneGpuForSixHoursOfAHalfDayWindowBurnsSevenHundredTwentyGpuMinutesADay() {
        double gpuSeconds = 6 * 3600;
        assertThat(BurnRate.perDay(gpuSeconds, NOON.minus(Duration.ofHours(12)), NOON)).isEqualTo(720.0);
        assertThat(BurnRate.perDay(gpuSeconds, NOON, NOON)).isZero();
    }

    @Test
    void withoutDecayTheRestOfTheBudgetLastsLeftOverRate() {
        assertThat(BurnRate.runsOut(6000, 4000, 500, NOON, NO_DECAY, UsageResetPeriod.NONE))
                .isEqualTo(NOON.plus(Duration.ofDays(4)));
    }

    @Test
    void aBudgetWithNothingLeftHasRunOutNowAndOneNobodyUsesNeverDoes() {
        assertThat(BurnRate.runsOut(60, 60, 100, NOON, WEEK, UsageResetPeriod.NONE)).isEqualTo(NOON);
        assertThat(BurnRate.runsOut(60, 10, 0, NOON, WEEK, UsageResetPeriod.NONE)).isNull();
    }

    @Test
    void withDecayItRunsOutWhenAMinuteByMinuteReplayOfDecayAndUseSaysItDoes() {
        long limit = 6000;
        double used = 4000;
        double perDay = 1200;
        Instant at = BurnRate.runsOut(limit, used, perDay, NOON, WEEK, UsageResetPeriod.NONE);
        // Later than the straight line's 1 2/3 days: the usage decays meanwhile.
        assertThat(at).isAfter(NOON.plus(Duration.ofHours(41)));
        double u = used;
        double perMinuteDecay = Math.pow(0.5, 60.0 / WEEK.toSeconds());
        long minutes = 0;
        while (u < limit) {
            u = u * perMinuteDecay + perDay / 1440;
            minutes++;
        }
        assertThat((double) Duration.between(NOON, at).toMinutes()).isCloseTo(minutes, within(2.0));
    }

    @Test
    void aRateThatDecayHoldsBelowTheLimitNeverRunsItOut() {
        // 100 a day decays to a level of 100 x 7 / ln 2 = 1,009.9 TRES-minutes at most.
        assertThat(BurnRate.runsOut(1000, 0, 100, NOON, WEEK, UsageResetPeriod.NONE)).isNotNull();
        assertThat(BurnRate.runsOut(1010, 0, 100, NOON, WEEK, UsageResetPeriod.NONE)).isNull();
    }

    @Test
    void aDailyResetBeforeTheRunOutMovesItIntoTheNextPeriodOrNowhere() {
        // 1,500 a day from noon: 16 hours, past midnight's reset; from nothing at midnight, 16:00 tomorrow.
        assertThat(BurnRate.runsOut(1000, 0, 1500, NOON, NO_DECAY, UsageResetPeriod.DAILY))
                .isEqualTo(Instant.parse("2026-03-12T16:00:00Z"));
        // 800 a day needs 30 hours: no day is long enough.
        assertThat(BurnRate.runsOut(1000, 0, 800, NOON, NO_DECAY, UsageResetPeriod.DAILY)).isNull();
        // 3,000 a day runs out at 20:00, before the reset.
        assertThat(BurnRate.runsOut(1000, 0, 3000, NOON, NO_DECAY, UsageResetPeriod.DAILY))
                .isEqualTo(Instant.parse("2026-03-11T20:00:00Z"));
    }

    @Test
    void aRunOutCenturiesAheadIsNotAtThisRate() {
        assertThat(BurnRate.runsOut(Long.MAX_VALUE / 2, 0, 0.1, NOON, NO_DECAY, UsageResetPeriod.NONE)).isNull();
    }
}
