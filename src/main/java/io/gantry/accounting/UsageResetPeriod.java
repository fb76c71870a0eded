package io.gantry.accounting;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;

/**
 * Slurm's {@code PriorityUsageResetPeriod}: usage (fair share's and the budgets') is cleared when a
 * period starts, at 00:00 UTC: every day, every Sunday, on the first of every month, of every
 * quarter, or of every year; {@code NONE} never (usage only decays).
 */
public enum UsageResetPeriod {
    NONE, DAILY, WEEKLY, MONTHLY, QUARTERLY, YEARLY;

    /** True when a period started after {@code from} and at or before {@code to}. */
    public boolean crossed(Instant from, Instant to) {
        return this != NONE && to.isAfter(from) && !start(day(from)).equals(start(day(to)));
    }

    /** When the period holding {@code at} started (00:00 UTC); null for {@code NONE}, which has no periods. */
    public Instant periodStart(Instant at) {
        return this == NONE ? null : start(day(at)).atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    /** When the next period after the one holding {@code at} starts; null for {@code NONE}. */
    public Instant nextStart(Instant at) {
        if (this == NONE) {
            return null;
        }
        LocalDate start = start(day(at));
        LocalDate next = switch (this) {
            case NONE, DAILY -> start.plusDays(1);
            case WEEKLY -> start.plusWeeks(1);
            case MONTHLY -> start.plusMonths(1);
            case QUARTERLY -> start.plusMonths(3);
            case YEARLY -> start.plusYears(1);
        };
        return next.atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    private static LocalDate day(Instant at) {
        return at.atOffset(ZoneOffset.UTC).toLocalDate();
    }

    private LocalDate start(LocalDate d) {
        return switch (this) {
            case NONE, DAILY -> d;
            case WEEKLY -> d.with(TemporalAdjusters.previousOrSame(DayOfWeek.SUNDAY));
            case MONTHLY -> d.withDayOfMonth(1);
            case QUARTERLY -> d.withMonth((d.getMonthValue() - 1) / 3 * 3 + 1).withDayOfMonth(1);
            case YEARLY -> d.withDayOfYear(1);
        };
    }
}
