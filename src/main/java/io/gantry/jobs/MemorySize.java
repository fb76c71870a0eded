package io.gantry.jobs;

import java.util.Locale;
import java.util.Objects;

/** Memory sizes as {@code --mem}, {@code --mem-per-cpu} and {@code --mem-per-gpu} write them. */
public final class MemorySize {

    private MemorySize() {
    }

    /**
     * Reads a whole number with an optional unit {@code K}, {@code M}, {@code G} or {@code T}
     * (any case, optionally followed by {@code B} as Slurm allows); no unit means megabytes.
     * Kilobytes are rounded up to whole megabytes as Slurm does. Zero is returned as is: for
     * {@code --mem} it asks for all the memory of each node.
     * @return the size in megabytes, zero or more
     * @throws JobSpecException for an empty, negative, fractional or unknown-unit size
     */
    public static long parseMegabytes(String text) {
        Objects.requireNonNull(text, "text");
        int digits = 0;
        while (digits < text.length() && isDigit(text.charAt(digits))) {
            digits++;
        }
        if (digits == 0) {
            throw new JobSpecException("memory size", text, text.isEmpty() ? "it is empty"
                    : "'" + text.charAt(0) + "' at position 0 is not allowed; write a whole number with an optional K, M, G or T");
        }
        String unit = text.substring(digits);
        long kilobytesPerUnit = switch (unit.toUpperCase(Locale.ROOT)) {
            case "K", "KB" -> 1;
            case "", "M", "MB" -> 1024;
            case "G", "GB" -> 1024L * 1024;
            case "T", "TB" -> 1024L * 1024 * 1024;
            default -> throw new JobSpecException("memory size", text, "'" + unit + "' at position " + digits
                    + " is not a unit; use K, M, G or T (no unit means megabytes)");
        };
        try {
            long kilobytes = Math.multiplyExact(Long.parseLong(text.substring(0, digits)), kilobytesPerUnit);
            return Math.addExact(kilobytes, 1023) / 1024;
        }
        catch (ArithmeticException | NumberFormatException tooLarge) {
            throw new JobSpecException("memory size", text, "it is too large");
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

}
