package io.gantry.accounting;

import io.gantry.api.GantryException;
import io.gantry.engine.Tres;

/**
 * A TRES limit as an administrator writes it ({@code cpu=64,gres/gpu=8,mem=256G,node=2}). It is kept
 * as written, without blanks, rather than as {@link Tres#toString()} prints it: that leaves out zero
 * fields, and a limit of {@code gres/gpu=0} (no GPUs at all) must not become no limit.
 */
final class TresText {

    private TresText() {
    }

    /** The limit without blanks, or null for none ({@code null} or blank); a 400 on {@code field} when invalid. */
    static String normalize(String field, String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String compact = text.replaceAll("\\s+", "");
        try {
            Tres.parse(compact, Tres.UNLIMITED);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw GantryException.badRequest(field, e.getMessage()
                    + "; write TRES as Slurm does, e.g. cpu=64,gres/gpu=8,mem=256G,node=2");
        }
        // In Slurm's order (its TRES ids: cpu, mem, energy, node, billing, then GRES), as sacctmgr prints them.
        return java.util.Arrays.stream(compact.split(",")).filter(t -> !t.isEmpty())
                .sorted(java.util.Comparator.comparingInt(TresText::rank))
                .collect(java.util.stream.Collectors.joining(","));
    }

    private static int rank(String item) {
        String key = item.contains("=") ? item.substring(0, item.indexOf('=')) : item;
        int known = java.util.List.of("cpu", "mem", "energy", "node", "billing").indexOf(key);
        return known >= 0 ? known : 100;
    }

    static Tres limit(String text) {
        return Tres.parse(text, Tres.UNLIMITED);
    }
}
