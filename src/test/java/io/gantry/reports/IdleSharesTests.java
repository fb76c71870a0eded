package io.gantry.reports;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * A bucket's sampled causes become causes that add up exactly to the report's non-allocated
 * GPU-seconds: unchanged when sampling and exact allocations agree, shared in proportion when not.
 */
class IdleSharesTests {

    @Test
    void whenTheSamplesAgreeWithTheReportTheCausesAreTheSampledOnes() {
        IdleCauses sampled = new IdleCauses(100, 70, 30, 20, 10, 40, 60);
        // down 100 (60 down + 40 draining), reserved 50 advance (+20 held for jobs), idle 180.
        assertThat(IdleShares.reconcile(100, 50, 180, sampled)).isEqualTo(sampled);
    }

    @Test
    void idleTheSamplesMissedIsSharedInProportionAndAddsUpExactly() {
        IdleCauses sampled = new IdleCauses(1, 0, 1, 1, 0, 0, 0);
        IdleCauses c = IdleShares.reconcile(0, 0, 10, sampled);
        assertThat(c.total()).isEqualTo(10);
        assertThat(c.noDemand() + c.fragmented() + c.topology()).isEqualTo(10);
        assertThat(c.noDemand()).isBetween(3L, 4L);
        assertThat(c.limits()).isZero();
    }

    @Test
    void poweredDownHoursAreAnIdleCauseOfTheirOwn() {
        IdleCauses sampled = new IdleCauses(30, 0, 0, 0, 0, 0, 10, 60);
        // down 10, idle 90: of it, 60 powered down and 30 no demand, as sampled.
        assertThat(IdleShares.reconcile(10, 0, 90, sampled)).isEqualTo(sampled);
        IdleCauses halved = IdleShares.reconcile(10, 0, 45, sampled);
        assertThat(halved.poweredDown()).isEqualTo(30);
        assertThat(halved.noDemand()).isEqualTo(15);
    }

    @Test
    void idleNoSampleSawIsNoDemand() {
        assertThat(IdleShares.reconcile(30, 20, 50, IdleCauses.NONE))
                .isEqualTo(new IdleCauses(50, 20, 0, 0, 0, 0, 30));
    }

    @Test
    void theCausesAlwaysAddUpToDownPlusReservedPlusIdle() {
        Random random = new Random(27);
        for (int round = 0; round < 5_000; round++) {
            long scale = random.nextBoolean() ? 1_000 : 4_000_000_000_000L; // a year of 100,000 GPUs and more
            long down = (long) (random.nextDouble() * scale);
            long reserved = (long) (random.nextDouble() * scale);
            long idle = (long) (random.nextDouble() * scale);
            IdleCauses sampled = new IdleCauses(next(random, scale), next(random, scale), next(random, scale),
                    next(random, scale), next(random, scale), next(random, scale), next(random, scale));
            IdleCauses c = IdleShares.reconcile(down, reserved, idle, sampled);
            assertThat(c.total()).as("round %d", round).isEqualTo(down + reserved + idle);
            assertThat(c.down() + c.draining()).isEqualTo(down);
            assertThat(c.reserved()).isGreaterThanOrEqualTo(reserved);
            assertThat(java.util.stream.LongStream.of(c.noDemand(), c.reserved(), c.fragmented(), c.topology(),
                    c.limits(), c.draining(), c.down()).allMatch(v -> v >= 0)).as("round %d: %s", round, c).isTrue();
        }
    }

    private static long next(Random random, long scale) {
        return random.nextInt(4) == 0 ? 0 : (long) (random.nextDouble() * scale);
    }
}
