package io.gantry.accounting;

import java.util.Locale;

/**
 * sacct's MaxRSS and TotalCPU as sacct prints them (Slurm 22.05, {@code src/sacct/print.c}), so that
 * scripts written against sacct's output read Gantry's; null (an empty field) when not known, as sacct
 * leaves them empty.
 */
final class SacctUsage {

    private static final String UNITS = "KMGTP";

    private SacctUsage() {
    }

    /**
     * Bytes as sacct's default "exact" conversion writes them: divided by 1024 while the value is a
     * multiple of 512 (so halves such as 2.5G count as exact), then {@code 123456K}, or {@code 2.50G}
     * with two decimals when a fraction is left; 0 as {@code 0}. Computed in {@code double} as Slurm
     * does, so the rare value that leaves a fraction rounds the same way.
     */
    static String maxRss(Long bytes) {
        if (bytes == null) {
            return null;
        }
        if (bytes == 0) {
            return "0";
        }
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && ((long) value) % 512 == 0) {
            value /= 1024;
            unit++;
        }
        String suffix = unit == 0 ? "" : unit <= UNITS.length() ? String.valueOf(UNITS.charAt(unit - 1)) : "?";
        long whole = (long) value;
        return whole == value ? whole + suffix : String.format(Locale.ROOT, "%.2f%s", value, suffix);
    }

    /**
     * CPU time as sacct writes TotalCPU: {@code D-HH:MM:SS} from a day on, {@code HH:MM:SS} from an
     * hour on (whole seconds), {@code MM:SS.mmm} below an hour with milliseconds, {@code 00:MM:SS}
     * below an hour without.
     */
    static String totalCpu(Long millis) {
        if (millis == null) {
            return null;
        }
        long secs = millis / 1000;
        long subsec = millis % 1000;
        long seconds = secs % 60;
        long minutes = secs / 60 % 60;
        long hours = secs / 3600 % 24;
        long days = secs / 86400;
        if (days > 0) {
            return String.format(Locale.ROOT, "%d-%02d:%02d:%02d", days, hours, minutes, seconds);
        }
        if (hours > 0) {
            return String.format(Locale.ROOT, "%02d:%02d:%02d", hours, minutes, seconds);
        }
        if (subsec > 0) {
            return String.format(Locale.ROOT, "%02d:%02d.%03d", minutes, seconds, subsec);
        }
        return String.format(Locale.ROOT, "00:%02d:%02d", minutes, seconds);
    }
}
