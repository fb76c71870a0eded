package io.gantry.cli;

import java.util.Locale;
import java.util.Map;

/**
 * {@code sinfo -O/--Format}: Slurm's field names turned into the {@code -o} letters {@link Sinfo} prints,
 * each {@code name[:[.]size]} (20 wide by default, right-justified with the dot), so both options share
 * one renderer. Open OnDemand reads node GPUs with {@code -O nodehost,gres,gresused,statelong};
 * {@code gresused} has no {@code -o} letter in Slurm, so it borrows {@link #GRES_USED}, a letter sinfo
 * 22.05 leaves unused.
 */
final class SinfoFormat {

    /** The letter {@code gresused} is rendered under. */
    static final char GRES_USED = 'j';

    private static final Map<String, Character> NAMES = Map.ofEntries(Map.entry("available", 'a'),
            Map.entry("cpus", 'c'), Map.entry("cpusstate", 'C'), Map.entry("features", 'f'),
            Map.entry("features_act", 'b'), Map.entry("gres", 'G'), Map.entry("gresused", GRES_USED),
            Map.entry("groups", 'g'), Map.entry("memory", 'm'), Map.entry("nodeaiot", 'F'), Map.entry("nodehost", 'n'),
            Map.entry("nodelist", 'N'), Map.entry("nodes", 'D'), Map.entry("oversubscribe", 'h'),
            Map.entry("partition", 'P'), Map.entry("partitionname", 'R'), Map.entry("prioritytier", 'p'),
            Map.entry("preemptmode", 'M'),
            Map.entry("reason", 'E'), Map.entry("root", 'r'), Map.entry("size", 's'), Map.entry("statecompact", 't'),
            Map.entry("statelong", 'T'), Map.entry("time", 'l'), Map.entry("timestamp", 'H'), Map.entry("user", 'u'));

    private SinfoFormat() {
    }

    /** The {@code -o} format {@code -O value} asks for; an unknown name is an {@link IllegalArgumentException}. */
    static String letters(String value) {
        StringBuilder format = new StringBuilder();
        for (String item : value.split(",")) {
            if (item.isBlank()) {
                continue;
            }
            String[] parts = item.strip().split(":", 2);
            Character letter = NAMES.get(parts[0].toLowerCase(Locale.ROOT));
            if (letter == null) {
                throw new IllegalArgumentException("Invalid node format specification: " + parts[0]);
            }
            String size = parts.length > 1 ? parts[1] : "";
            boolean right = size.startsWith(".");
            String digits = right ? size.substring(1) : size;
            if (!digits.matches("\\d*")) {
                throw new IllegalArgumentException("Invalid node format specification: " + item);
            }
            format.append('%').append(right ? "." : "").append(digits.isEmpty() ? "20" : digits).append(letter);
        }
        return format.toString();
    }
}
