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
        return normalize(field, text, false);
    }

    /** The same, {@code billing=N} allowed (the budgets: GrpTRESMins, GrpTRESRunMins, MaxTRESMinsPerJob). */
    static String normalize(String field, String text, boolean allowBilling) {
        if (text == null || text.isBlank()) {
            return null;
        }
        String compact = text.replaceAll("\\s+", "");
        try {
            if (billing(compact) != Long.MAX_VALUE && !allowBilling) {
                throw new IllegalArgumentException("billing is limited only in TRES-minutes budgets (GrpTRESMins, "
                        + "GrpTRESRunMins, MaxTRESMinsPerJob)");
            }
            Tres.parse(withoutBilling(compact), Tres.UNLIMITED);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw GantryException.badRequest(field, e.getMessage()
                    + "; write TRES as Slurm does, e.g. cpu=64,gres/gpu=8,mem=256G,node=2,billing=1000");
        }
        // In Slurm's order (its TRES ids: cpu, mem, energy, node, billing, then GRES), as sacctmgr prints them.
        return java.util.Arrays.stream(compact.split(",")).filter(t -> !t.isEmpty())
                .sorted(java.util.Comparator.comparingInt(TresText::rank))
                .collect(java.util.stream.Collectors.joining(","));
    }

    private static int rank(String item) {
        String key = (item.contains("=") ? item.substring(0, item.indexOf('=')) : item).toLowerCase(java.util.Locale.ROOT);
        int known = java.util.List.of("cpu", "mem", "energy", "node", "billing").indexOf(key);
        return known >= 0 ? known : 100;
    }

    /** The limit on every TRES but billing ({@link #billing}). */
    static Tres limit(String text) {
        return Tres.parse(withoutBilling(text), Tres.UNLIMITED);
    }

    /** The limit's {@code billing=N} (Slurm's billing TRES), {@link Long#MAX_VALUE} without one. */
    static long billing(String text) {
        if (text == null) {
            return Long.MAX_VALUE;
        }
        long out = Long.MAX_VALUE;
        for (String item : text.split(",")) {
            int eq = item.indexOf('=');
            if (eq > 0 && item.substring(0, eq).strip().equalsIgnoreCase("billing")) {
                String v = item.substring(eq + 1).strip();
                try {
                    out = Long.parseLong(v);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("not a billing count: " + v, e);
                }
                if (out < 0) {
                    throw new IllegalArgumentException("negative TRES count: " + v);
                }
            }
        }
        return out;
    }

    private static String withoutBilling(String text) {
        if (text == null) {
            return null;
        }
        return java.util.Arrays.stream(text.split(",")).filter(item -> {
            int eq = item.indexOf('=');
            return eq <= 0 || !item.substring(0, eq).strip().equalsIgnoreCase("billing");
        }).collect(java.util.stream.Collectors.joining(","));
    }
}
