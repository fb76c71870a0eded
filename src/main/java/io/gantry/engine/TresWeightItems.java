package io.gantry.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The {@code NAME=WEIGHT} items of Slurm's TRES weight lists: {@code TRESBillingWeights}, {@code PriorityWeightTRES}. */
final class TresWeightItems {

    private static final Set<String> KNOWN = Set.of("cpu", "mem", "node", "gres/gpu");

    /**
     * One item: its TRES ({@code cpu}, {@code mem}, {@code node} or {@code gres/gpu}; names are case-insensitive
     * and any {@code GRES/gpu:<type>} is {@code gres/gpu}), the item as written, and its weight as written.
     */
    record Item(String tres, String text, String value) {
    }

    private TresWeightItems() {
    }

    /** The items of a list such as {@code CPU=1.0,Mem=0.25G,GRES/gpu=2}; throws with the bad item named. */
    static List<Item> parse(String text) {
        List<Item> items = new ArrayList<>();
        for (String raw : text.split(",")) {
            String part = raw.strip();
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("'" + part + "' is not NAME=WEIGHT");
            }
            String name = part.substring(0, eq).strip();
            String tres = name.toLowerCase(Locale.ROOT);
            if (tres.startsWith("gres/gpu:")) {
                tres = "gres/gpu";
            } else if (!KNOWN.contains(tres)) {
                throw new IllegalArgumentException("unknown TRES '" + name + "' (CPU, Mem, Node, GRES/gpu)");
            }
            items.add(new Item(tres, part, part.substring(eq + 1).strip()));
        }
        return items;
    }
}
