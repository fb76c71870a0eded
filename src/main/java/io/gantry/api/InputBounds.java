package io.gantry.api;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The ranges every user-given value must keep to, checked where a request is read so that a value
 * the store or Java's arithmetic cannot hold is a 400 naming its field rather than a 500 from below.
 * Times lie in the years 1970 to 9999 (what every store column and ISO-8601 text without a sign
 * hold), durations are at most {@link #MAX_DURATION} (Slurm's own limits are shorter), and products
 * or sums of user numbers are computed exactly or refused.
 */
public final class InputBounds {

    /** The earliest time a user may name: the Unix epoch. */
    public static final Instant EARLIEST = Instant.EPOCH;
    /** The latest time a user may name: the last second of year 9999. */
    public static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");
    /** The longest duration a user may give: 100 years of 365 days. */
    public static final Duration MAX_DURATION = Duration.ofDays(36_500);

    private InputBounds() {
    }

    /** {@code value} when it lies in {@link #EARLIEST}..{@link #LATEST} (or is null), else a 400 naming {@code field}. */
    public static Instant instant(String field, Instant value) {
        if (value != null && !inRange(value)) {
            throw GantryException.badRequest(field, rangeMessage(value));
        }
        return value;
    }

    /**
     * A time given as text (a query parameter): an ISO-8601 instant ({@code 2026-03-01T00:00:00Z}), one
     * with an offset, or a date for its midnight UTC; within {@link #EARLIEST}..{@link #LATEST}.
     * Anything else is a 400 naming {@code field}.
     */
    public static Instant parseInstant(String field, String text) {
        String t = text.strip();
        Instant parsed;
        try {
            parsed = Instant.parse(t);
        } catch (DateTimeParseException notAnInstant) {
            try {
                parsed = OffsetDateTime.parse(t).toInstant();
            } catch (DateTimeParseException notOffset) {
                try {
                    parsed = LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant();
                } catch (DateTimeParseException | ArithmeticException notDate) {
                    throw GantryException.badRequest(field, "'" + InputText.shown(t) + "' is not an ISO-8601 instant "
                            + "(e.g. 2026-03-01T00:00:00Z, or a date 2026-03-01 for midnight UTC)");
                }
            }
        }
        return instant(field, parsed);
    }

    public static boolean inRange(Instant value) {
        return !value.isBefore(EARLIEST) && !value.isAfter(LATEST);
    }

    public static String rangeMessage(Instant value) {
        return "must lie between " + EARLIEST + " and " + LATEST + ", was " + value;
    }

    /** Why {@code value} is too long, or null when it is not. */
    public static String textError(String value, int max) {
        return value != null && value.length() > max
                ? "is " + value.length() + " characters long; at most " + max + " are allowed" : null;
    }

    /** Adds a "too long" error for {@code field} to {@code errors} when {@code value} is over {@code max}. */
    public static void text(String field, String value, int max, List<GantryException.FieldError> errors) {
        String wrong = textError(value, max);
        if (wrong != null) {
            errors.add(new GantryException.FieldError(field, wrong));
        }
    }

    /** {@code list} when none of its items is null (or it is null itself), else a 400 naming {@code field[i]}. */
    public static <T> List<T> noNulls(String field, List<T> list) {
        if (list != null) {
            for (int i = 0; i < list.size(); i++) {
                if (list.get(i) == null) {
                    throw GantryException.badRequest(field + "[" + i + "]", "must not be null");
                }
            }
        }
        return list;
    }

}
