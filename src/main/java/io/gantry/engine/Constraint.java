package io.gantry.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A node feature constraint as sbatch's {@code --constraint} writes it: features joined by
 * {@code &} (all of) and {@code |} (any of), {@code &} binding tighter, e.g. {@code a100&ib|h100}.
 * Kept as a disjunction of conjunctions.
 */
public record Constraint(List<Set<String>> anyOf) {

    public static final Constraint NONE = new Constraint(List.of());

    public Constraint {
        anyOf = anyOf.stream().map(Set::copyOf).toList();
    }

    public static Constraint parse(String text) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        List<Set<String>> terms = new ArrayList<>();
        for (String term : text.split("\\|", -1)) {
            List<String> all = new ArrayList<>();
            for (String f : term.split("&", -1)) {
                String feature = f.trim();
                if (feature.isEmpty() || !feature.matches("[A-Za-z0-9_.:+-]+")) {
                    throw new IllegalArgumentException("bad constraint '" + text + "': feature '" + f + "'");
                }
                all.add(feature);
            }
            terms.add(Set.copyOf(all));
        }
        return new Constraint(terms);
    }

    public boolean isNone() {
        return anyOf.isEmpty();
    }

    public boolean matches(Set<String> features) {
        if (anyOf.isEmpty()) {
            return true;
        }
        for (Set<String> all : anyOf) {
            if (features.containsAll(all)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Set<String> all : anyOf) {
            if (sb.length() > 0) {
                sb.append('|');
            }
            sb.append(String.join("&", all.stream().sorted().toList()));
        }
        return sb.toString();
    }
}
