package io.gantry.jobs;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A deferred start in Slurm's {@code -b/--begin} syntax, kept unresolved: most forms ("16:00",
 * "tomorrow", "now+1hour") only mean an instant once the submission time and the time zone are
 * known, so {@link #resolve(Instant, ZoneId)} takes both and nothing here reads a clock.
 *
 * <p>Forms, case-insensitive, as Slurm 22.05 reads them: {@code now[+count[unit]]} with units
 * seconds (the default), minutes, hours, days, weeks (singular or plural); a date
 * {@code YYYY-MM-DD}, {@code MM/DD/YY}, {@code MM/DD} or {@code MMDDYY}, or {@code today},
 * {@code tomorrow}; a time {@code HH:MM[:SS]} with optional {@code AM}/{@code PM}, or
 * {@code midnight}, {@code noon}, {@code fika} (15:00), {@code teatime} (16:00); a date and a
 * time joined by {@code T} or a space. A time alone that has passed means tomorrow, a
 * {@code MM/DD} that has passed means next year, and a date alone means its midnight.
 * Unlike Slurm, {@code now-N} is rejected rather than read as now.
 */
public final class BeginTime {

    private static final String WHAT = "begin time";

    private static final Pattern DELAY = Pattern.compile("now\\s*(?:\\+\\s*(\\d+)\\s*([a-z]*))?");

    private static final Pattern ISO_DATE = Pattern.compile("(\\d{4})-(\\d{2})-(\\d{2})");

    private static final Pattern US_DATE = Pattern.compile("(\\d{1,2})/(\\d{1,2})(?:/(\\d{2}))?");

    private static final Pattern SHORT_DATE = Pattern.compile("(\\d{2})(\\d{2})(\\d{2})");

    private static final Pattern CLOCK = Pattern.compile("(\\d{1,2}):(\\d{2})(?::(\\d{2}))?\\s*(am|pm)?");

    private final String text;

    /** Seconds after submission, for {@code now[+N]}; otherwise null. */
    private final Long delaySeconds;

    private final LocalDate date;

    private final MonthDay monthDay;

    /** 0 for today, 1 for tomorrow. */
    private final Integer dayOffset;

    private final LocalTime time;

    private BeginTime(String text, Long delaySeconds, LocalDate date, MonthDay monthDay, Integer dayOffset,
            LocalTime time) {
        this.text = text;
        this.delaySeconds = delaySeconds;
        this.date = date;
        this.monthDay = monthDay;
        this.dayOffset = dayOffset;
        this.time = time;
    }

    /**
     * Reads a begin time.
     * @throws JobSpecException naming the input and what is wrong with it
     */
    public static BeginTime parse(String text) {
        Objects.requireNonNull(text, "text");
        String spec = text.strip().toLowerCase(Locale.ROOT);
        if (spec.isEmpty()) {
            throw new JobSpecException(WHAT, text, "it is empty");
        }
        if (spec.startsWith("now")) {
            return new BeginTime(text, delay(text, spec), null, null, null, null);
        }
        int split = dateEnd(spec);
        String datePart = spec.substring(0, split);
        String timePart = spec.substring(split);
        if (!datePart.isEmpty() && !timePart.isEmpty()) {
            if (timePart.charAt(0) != 't' && !Character.isWhitespace(timePart.charAt(0))) {
                throw new JobSpecException(WHAT, text, "'" + timePart.charAt(0) + "' at position " + split
                        + ": join a date and a time with 'T', as in 2027-01-20T12:34");
            }
            timePart = timePart.substring(1).strip();
            if (timePart.isEmpty()) {
                throw new JobSpecException(WHAT, text, "a time of day is missing after position " + split);
            }
        }
        LocalTime time = timePart.isEmpty() ? null : time(text, timePart);
        if (datePart.isEmpty()) {
            return new BeginTime(text, null, null, null, null, time);
        }
        return switch (datePart) {
            case "today" -> new BeginTime(text, null, null, null, 0, time);
            case "tomorrow" -> new BeginTime(text, null, null, null, 1, time);
            default -> date(text, datePart, time);
        };
    }

    /** Where the date part ends: after a date form or day word, or 0 when it starts with a time. */
    private static int dateEnd(String spec) {
        for (String word : new String[] { "today", "tomorrow" }) {
            if (spec.startsWith(word)) {
                return word.length();
            }
        }
        for (Pattern date : new Pattern[] { ISO_DATE, US_DATE, SHORT_DATE }) {
            Matcher matcher = date.matcher(spec);
            if (matcher.lookingAt() && (matcher.end() == spec.length() || spec.charAt(matcher.end()) != ':')) {
                return matcher.end();
            }
        }
        return 0;
    }

    private static long delay(String text, String spec) {
        Matcher matcher = DELAY.matcher(spec);
        if (!matcher.matches()) {
            throw new JobSpecException(WHAT, text, "after 'now' write +count[unit], as in now+1hour or now+60");
        }
        if (matcher.group(1) == null) {
            return 0;
        }
        long unit = switch (matcher.group(2)) {
            case "", "second", "seconds" -> 1;
            case "minute", "minutes" -> 60;
            case "hour", "hours" -> 3600;
            case "day", "days" -> 86_400;
            case "week", "weeks" -> 604_800;
            default -> throw new JobSpecException(WHAT, text, "'" + matcher.group(2)
                    + "' is not a unit; use seconds, minutes, hours, days or weeks");
        };
        try {
            return Math.multiplyExact(Long.parseLong(matcher.group(1)), unit);
        }
        catch (ArithmeticException | NumberFormatException tooLarge) {
            throw new JobSpecException(WHAT, text, "the delay is too large");
        }
    }

    private static BeginTime date(String text, String datePart, LocalTime time) {
        try {
            Matcher iso = ISO_DATE.matcher(datePart);
            if (iso.matches()) {
                return new BeginTime(text, null, LocalDate.of(number(iso, 1), number(iso, 2), number(iso, 3)), null, null, time);
            }
            Matcher us = US_DATE.matcher(datePart);
            if (us.matches() && us.group(3) == null) {
                return new BeginTime(text, null, null, MonthDay.of(number(us, 1), number(us, 2)), null, time);
            }
            if (us.matches()) {
                return new BeginTime(text, null, LocalDate.of(2000 + number(us, 3), number(us, 1), number(us, 2)), null, null, time);
            }
            Matcher compact = SHORT_DATE.matcher(datePart);
            if (compact.matches()) {
                return new BeginTime(text, null, LocalDate.of(2000 + number(compact, 3), number(compact, 1),
                        number(compact, 2)), null, null, time);
            }
        }
        catch (DateTimeException impossible) {
            throw new JobSpecException(WHAT, text, "there is no such date (" + impossible.getMessage() + ")");
        }
        throw new JobSpecException(WHAT, text, "'" + datePart + "' is not a date; use YYYY-MM-DD, MM/DD/YY, MM/DD, MMDDYY, today or tomorrow");
    }

    private static LocalTime time(String text, String timePart) {
        switch (timePart) {
            case "midnight":
                return LocalTime.MIDNIGHT;
            case "noon":
                return LocalTime.NOON;
            case "fika":
                return LocalTime.of(15, 0);
            case "teatime":
                return LocalTime.of(16, 0);
            default:
                break;
        }
        Matcher clock = CLOCK.matcher(timePart);
        if (!clock.matches()) {
            throw new JobSpecException(WHAT, text, "'" + timePart
                    + "' is not a date or time; use YYYY-MM-DD[THH:MM[:SS]], HH:MM[:SS], now+N[units], today, tomorrow, midnight or noon");
        }
        int hour = number(clock, 1);
        int minute = number(clock, 2);
        int second = clock.group(3) == null ? 0 : number(clock, 3);
        if (clock.group(4) != null) {
            if (hour < 1 || hour > 12) {
                throw new JobSpecException(WHAT, text, "hour " + hour + " does not go with AM or PM; use 1 to 12");
            }
            hour = hour % 12 + (clock.group(4).equals("pm") ? 12 : 0);
        }
        if (hour > 23 || minute > 59 || second > 59) {
            throw new JobSpecException(WHAT, text, "'" + timePart + "' is not a time of day; use 00:00 to 23:59:59");
        }
        return LocalTime.of(hour, minute, second);
    }

    private static int number(Matcher matcher, int group) {
        return Integer.parseInt(matcher.group(group));
    }

    /**
     * The instant this begin time names for a job submitted at {@code now}, reading dates and
     * times of day in {@code zone}. It may lie in the past ({@code today}, a past date): such a
     * job is eligible at once.
     */
    public Instant resolve(Instant now, ZoneId zone) {
        Objects.requireNonNull(now, "now");
        Objects.requireNonNull(zone, "zone");
        if (this.delaySeconds != null) {
            return now.plusSeconds(this.delaySeconds);
        }
        ZonedDateTime submitted = now.atZone(zone);
        LocalTime at = this.time == null ? LocalTime.MIDNIGHT : this.time;
        if (this.date != null) {
            return ZonedDateTime.of(this.date, at, zone).toInstant();
        }
        if (this.monthDay != null) {
            ZonedDateTime thisYear = ZonedDateTime.of(this.monthDay.atYear(submitted.getYear()), at, zone);
            return thisYear.isBefore(submitted)
                    ? ZonedDateTime.of(this.monthDay.atYear(submitted.getYear() + 1), at, zone).toInstant()
                    : thisYear.toInstant();
        }
        LocalDate day = submitted.toLocalDate().plusDays(this.dayOffset == null ? 0 : this.dayOffset);
        ZonedDateTime begin = ZonedDateTime.of(day, at, zone);
        if (this.dayOffset == null && !begin.isAfter(submitted)) {
            begin = ZonedDateTime.of(day.plusDays(1), at, zone);
        }
        return begin.toInstant();
    }

    /** The text as given. */
    @Override
    public String toString() {
        return this.text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof BeginTime that && this.text.equals(that.text);
    }

    @Override
    public int hashCode() {
        return this.text.hashCode();
    }

}
