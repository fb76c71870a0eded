package io.gantry.accounting;

import java.time.Duration;
import java.time.Instant;

/**
 * How fast a TRES-minutes budget (GrpTRESMins, issue 32) is being used and when it runs out at that
 * pace. The rate is what the budget's jobs used over the last day, or since the current usage period
 * began when that is later (a reset period that just started says more about the new period than the
 * day before it does). The run-out follows the budget's own arithmetic rather than a straight line:
 * what is used decays by half every {@code decay-half-life}, so a steady rate r never lifts it above
 * r / ln2 x half-life, and a budget above that ceiling never runs out at this rate; a usage reset
 * period clears it, so a run-out after the next reset is measured again from nothing in that period.
 * Pure and time-free (the clock comes in as {@code now}).
 */
final class BurnRate {

    /** The longest window a burn rate is measured over. */
    static final Duration WINDOW = Duration.ofDays(1);
    private static final double DAY = 86_400;
    /** Beyond this a run-out is "not at this rate": a date centuries ahead is noise, and may not be an Instant. */
    private static final double HORIZON_SECONDS = 100 * 366 * DAY;

    private BurnRate() {
    }

    /** The start of the window the rate is measured over: a day before {@code now}, or the current period's start. */
    static Instant windowStart(Instant now, UsageResetPeriod period) {
        Instant dayAgo = now.minus(WINDOW);
        Instant periodStart = period.periodStart(now);
        return periodStart != null && periodStart.isAfter(dayAgo) ? periodStart : dayAgo;
    }

    /** TRES-minutes per day from the TRES-seconds used in ({@code from}, {@code now}]; 0 for an empty window. */
    static double perDay(double usedSeconds, Instant from, Instant now) {
        long window = Duration.between(from, now).toSeconds();
        return window <= 0 ? 0 : usedSeconds / 60.0 / window * DAY;
    }

    /**
     * When a budget of {@code limit} TRES-minutes, {@code used} of them used now, is used up at {@code perDay}
     * TRES-minutes a day: {@code now} when it already is; null when it never is at this rate (a rate of 0,
     * a limit above what decay lets the usage reach, or a reset each period before it gets there).
     */
    static Instant runsOut(long limit, double used, double perDay, Instant now, Duration halfLife,
            UsageResetPeriod period) {
        if (used >= limit) {
            return now;
        }
        if (perDay <= 0) {
            return null;
        }
        double first = secondsToReach(limit, used, perDay, halfLife);
        Instant next = period.nextStart(now);
        Instant at = plus(now, first);
        if (at != null && (next == null || !at.isAfter(next))) {
            return at;
        }
        if (next == null) {
            return null;
        }
        // Cleared at the next reset: it runs out in the period after if a whole period at this rate gets there.
        Instant again = plus(next, secondsToReach(limit, 0, perDay, halfLife));
        return again != null && !again.isAfter(period.nextStart(next)) ? again : null;
    }

    /**
     * Seconds until usage climbs from {@code used} to {@code limit}. With decay, usage after t seconds is
     * c + (used - c) e^(-kt) with k = ln2 / half-life and c = rate / k, the level where decay takes away
     * as much as the jobs add; a limit at or above c is never reached (infinity).
     */
    private static double secondsToReach(double limit, double used, double perDay, Duration halfLife) {
        double rate = perDay / DAY;
        if (halfLife.isZero() || halfLife.isNegative()) {
            return (limit - used) / rate;
        }
        double k = Math.log(2) / halfLife.toSeconds();
        double ceiling = rate / k;
        if (ceiling <= limit) {
            return Double.POSITIVE_INFINITY;
        }
        return Math.log((ceiling - used) / (ceiling - limit)) / k;
    }

    private static Instant plus(Instant from, double seconds) {
        return seconds > HORIZON_SECONDS ? null : from.plusMillis(Math.round(seconds * 1000));
    }
}
