package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

/** PriorityUsageResetPeriod: usage is cleared when a period starts (00:00 UTC), and only then. */
class UsageResetPeriodTests {

    private static Instant at(String text) {
        return Instant.parse(text);
    }

    @Test
    void aMonthlyResetHappensWhenAccrualCrossesTheFirstOfTheMonthAndNotWithinAMonth() {
        assertThat(UsageResetPeriod.MONTHLY.crossed(at("2026-01-31T23:59:50Z"), at("2026-02-01T00:00:20Z"))).isTrue();
        assertThat(UsageResetPeriod.MONTHLY.crossed(at("2026-02-01T00:00:20Z"), at("2026-02-28T23:59:59Z"))).isFalse();
    }

    @Test
    void aWeeklyResetHappensOnSundayAndAQuarterlyOneOnTheFirstOfAQuarter() {
        // 2026-12-05 is a Saturday.
        assertThat(UsageResetPeriod.WEEKLY.crossed(at("2026-12-05T23:59:40Z"), at("2026-12-06T00:00:10Z"))).isTrue();
        assertThat(UsageResetPeriod.WEEKLY.crossed(at("2026-12-06T00:00:10Z"), at("2026-12-12T23:59:59Z"))).isFalse();
        assertThat(UsageResetPeriod.QUARTERLY.crossed(at("2026-03-31T23:59:40Z"), at("2026-04-01T00:00:10Z"))).isTrue();
        assertThat(UsageResetPeriod.QUARTERLY.crossed(at("2026-04-01T00:00:10Z"), at("2026-06-30T23:59:59Z"))).isFalse();
    }

    @Test
    void withoutAPeriodUsageIsNeverResetAndDailyEveryMidnight() {
        assertThat(UsageResetPeriod.NONE.crossed(at("2026-01-01T00:00:00Z"), at("2027-06-01T00:00:00Z"))).isFalse();
        assertThat(UsageResetPeriod.DAILY.crossed(at("2026-12-05T23:59:59Z"), at("2026-12-06T00:00:00Z"))).isTrue();
        assertThat(UsageResetPeriod.YEARLY.crossed(at("2026-06-01T00:00:00Z"), at("2026-12-31T23:59:59Z"))).isFalse();
    }

    @Test
    void aPeriodStartsAndTheNextOneStartsAtMidnightUtcOfItsFirstDay() {
        Instant saturday = at("2026-12-05T15:30:00Z");
        assertThat(UsageResetPeriod.WEEKLY.periodStart(saturday)).isEqualTo(at("2026-11-29T00:00:00Z"));
        assertThat(UsageResetPeriod.WEEKLY.nextStart(saturday)).isEqualTo(at("2026-12-06T00:00:00Z"));
        assertThat(UsageResetPeriod.QUARTERLY.periodStart(saturday)).isEqualTo(at("2026-10-01T00:00:00Z"));
        assertThat(UsageResetPeriod.QUARTERLY.nextStart(saturday)).isEqualTo(at("2027-01-01T00:00:00Z"));
        assertThat(UsageResetPeriod.DAILY.nextStart(saturday)).isEqualTo(at("2026-12-06T00:00:00Z"));
        assertThat(UsageResetPeriod.NONE.periodStart(saturday)).isNull();
        assertThat(UsageResetPeriod.NONE.nextStart(saturday)).isNull();
    }
}
