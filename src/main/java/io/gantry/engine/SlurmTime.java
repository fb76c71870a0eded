package io.gantry.engine;

import java.util.Locale;
import java.util.Objects;

/**
 * Time limits in Slurm's {@code -t/--time} syntax, as whole seconds.
 *
 * <p>Slurm stores limits in minutes and rounds {@code min:sec} up ({@code 0:30} becomes one
 * minute). Gantry's API is in seconds, so seconds are kept exactly: {@code 0:30} is 30.
 *
 * <p>Like Slurm 22.05, fields are not range-checked but carried over: {@code 1:90:00} is
 * two and a half hours and {@code 1-25} is two days and one hour. Unlike it, overflow and a
 * dangling {@code -} are errors rather than silently wrapped or ignored, and {@code -1} (which
 * Slurm reads as infinite) is rejected as negative: write {@code UNLIMITED}.
 */
public final class SlurmTime {

    /**
     * No time limit. Slurm writes it {@code UNLIMITED} or {@code INFINITE}, and a limit that
     * adds up to zero ({@code 0}, {@code 0:00}) also requests none; all parse to this.
     */
    public static final long UNLIMITED = -1;

    private static final long MINUTE = 60;

    private static final long HOUR = 60 * MINUTE;

    private static final long DAY = 24 * HOUR;

    private SlurmTime() {
    }

    /**
     * Reads {@code min}, {@code min:sec}, {@code h:m:s}, {@code d-h}, {@code d-h:m} or
     * {@code d-h:m:s}; {@code UNLIMITED}, {@code INFINITE} (any case) or a zero total give
     * {@link #UNLIMITED}.
     * @return the limit in seconds, always positive, or {@link #UNLIMITED}
     * @throws SlurmTimeException naming the input and what is wrong with it
     */
    public static long parseSeconds(String text) {
        Objects.requireNonNull(text, "text");
        if (text.isEmpty()) {
            throw new SlurmTimeException(text, "it is empty");
        }
        if (text.equalsIgnoreCase("UNLIMITED") || text.equalsIgnoreCase("INFINITE")) {
            return UNLIMITED;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!isDigit(c) && c != '-' && c != ':') {
                throw new SlurmTimeException(text, "'" + c + "' at position " + i
                        + " is not allowed; use digits, '-' and ':' or UNLIMITED");
            }
        }
        if (text.charAt(0) == '-') {
            throw new SlurmTimeException(text, "a time limit cannot be negative; use UNLIMITED for none");
        }
        int dash = text.indexOf('-');
        if (dash != text.lastIndexOf('-')) {
            throw new SlurmTimeException(text, "only one '-' may separate days from hours");
        }
        try {
            long seconds = dash < 0 ? clock(text, text) : days(text, dash);
            return seconds == 0 ? UNLIMITED : seconds;
        }
        catch (ArithmeticException | NumberFormatException tooLarge) {
            throw new SlurmTimeException(text, "it is too large");
        }
    }

    /** {@code d-h}, {@code d-h:m} or {@code d-h:m:s}. */
    private static long days(String text, int dash) {
        long days = field(text, text.substring(0, dash));
        String[] fields = fields(text, text.substring(dash + 1));
        long seconds = Math.multiplyExact(field(text, fields[0]), HOUR);
        if (fields.length > 1) {
            seconds = Math.addExact(seconds, Math.multiplyExact(field(text, fields[1]), MINUTE));
        }
        if (fields.length > 2) {
            seconds = Math.addExact(seconds, field(text, fields[2]));
        }
        return Math.addExact(Math.multiplyExact(days, DAY), seconds);
    }

    /** {@code min}, {@code min:sec} or {@code h:m:s}: the meaning depends on the count. */
    private static long clock(String text, String clock) {
        String[] fields = fields(text, clock);
        return switch (fields.length) {
            case 1 -> Math.multiplyExact(field(text, fields[0]), MINUTE);
            case 2 -> Math.addExact(Math.multiplyExact(field(text, fields[0]), MINUTE), field(text, fields[1]));
            default -> Math.addExact(Math.addExact(Math.multiplyExact(field(text, fields[0]), HOUR),
                    Math.multiplyExact(field(text, fields[1]), MINUTE)), field(text, fields[2]));
        };
    }

    private static String[] fields(String text, String clock) {
        String[] fields = clock.split(":", -1);
        if (fields.length > 3) {
            throw new SlurmTimeException(text, "it has " + fields.length + " ':'-separated fields, at most 3 are allowed");
        }
        return fields;
    }

    private static long field(String text, String field) {
        if (field.isEmpty()) {
            throw new SlurmTimeException(text, "it has an empty field");
        }
        for (int i = 0; i < field.length(); i++) {
            if (!isDigit(field.charAt(i))) {
                throw new SlurmTimeException(text, "'" + field + "' is not a number; days come first, as in d-h:m:s");
            }
        }
        return Long.parseLong(field);
    }

    /**
     * Slurm's output form: {@code D-HH:MM:SS} from one day up, {@code HH:MM:SS} below, and
     * {@code UNLIMITED}.
     * @throws IllegalArgumentException for a negative value other than {@link #UNLIMITED}
     */
    public static String format(long seconds) {
        if (seconds == UNLIMITED) {
            return "UNLIMITED";
        }
        if (seconds < 0) {
            throw new IllegalArgumentException("seconds must be zero or more, or UNLIMITED, not " + seconds);
        }
        long days = seconds / DAY;
        long hours = seconds % DAY / HOUR;
        long minutes = seconds % HOUR / MINUTE;
        long rest = seconds % MINUTE;
        // ROOT so a locale with its own digits cannot change what scripts parse.
        return days > 0 ? String.format(Locale.ROOT, "%d-%02d:%02d:%02d", days, hours, minutes, rest)
                : String.format(Locale.ROOT, "%02d:%02d:%02d", hours, minutes, rest);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

}
