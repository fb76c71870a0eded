package io.gantry.engine;

import java.util.List;
import java.util.Map;

/**
 * The TRES-minutes budgets a cycle enforces (issue 32), apart from the association limits on what
 * runs at once: every {@link Budget}, the account tree they hold up ({@code parents}: account to
 * parent, the root absent or mapped to null), when their usage was last accrued ({@code accruedAt},
 * epoch seconds: what running jobs used since then is counted here), and each QOS's usage factor in
 * thousandths ({@code usageFactorMilli}, absent: 1000), Slurm's {@code UsageFactor}.
 */
public record Budgets(List<Budget> budgets, Map<String, String> parents, long accruedAt,
        Map<String, Long> usageFactorMilli) {

    public static final Budgets NONE = new Budgets(List.of(), Map.of(), 0, Map.of());

    public Budgets {
        budgets = budgets == null ? List.of() : List.copyOf(budgets);
        parents = parents == null ? Map.of() : copyAllowingNull(parents);
        usageFactorMilli = usageFactorMilli == null ? Map.of() : Map.copyOf(usageFactorMilli);
        for (long f : usageFactorMilli.values()) {
            if (f < 0) {
                throw new IllegalArgumentException("usage factor must not be negative: " + f);
            }
        }
    }

    /** True when some budget limits something. */
    public boolean active() {
        for (Budget b : budgets) {
            if (!b.unlimited()) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, String> copyAllowingNull(Map<String, String> parents) {
        java.util.HashMap<String, String> copy = new java.util.HashMap<>();
        parents.forEach((k, v) -> {
            if (v != null) {
                copy.put(k, v);
            }
        });
        return java.util.Collections.unmodifiableMap(copy);
    }
}
