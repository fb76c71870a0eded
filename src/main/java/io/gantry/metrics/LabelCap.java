package io.gantry.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BinaryOperator;
import java.util.function.ToLongFunction;

/**
 * Caps how many values one label takes. Every distinct label value is a time series Prometheus
 * keeps for weeks; a label with one value per user is unbounded. The values with the largest
 * weight (the most jobs, the most GPUs) keep their names; the rest are summed under
 * {@value #OTHER}, so that sums over the label stay right. Ties go to the name first in order, so
 * the same cluster always shows the same names.
 */
public final class LabelCap {

    /** The value the folded rest is shown under. */
    public static final String OTHER = "other";

    private LabelCap() {
    }

    /** The values kept, in name order ({@value #OTHER} with them), and how many were folded into it. */
    public record Folded<T>(Map<String, T> values, int folded) {
    }

    /**
     * {@code values} with at most {@code max} of them by name and the rest merged under {@value #OTHER}
     * (into a kept value of that name, should there be one).
     */
    public static <T> Folded<T> fold(Map<String, T> values, int max, ToLongFunction<T> weight, BinaryOperator<T> merge) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, was " + max);
        }
        if (values.size() <= max) {
            return new Folded<>(new TreeMap<>(values), 0);
        }
        List<Map.Entry<String, T>> ranked = new ArrayList<>(values.entrySet());
        ranked.sort(Comparator.comparingLong((Map.Entry<String, T> e) -> weight.applyAsLong(e.getValue())).reversed()
                .thenComparing(Map.Entry::getKey));
        Map<String, T> kept = new TreeMap<>();
        for (Map.Entry<String, T> e : ranked.subList(0, max)) {
            kept.put(e.getKey(), e.getValue());
        }
        for (Map.Entry<String, T> e : ranked.subList(max, ranked.size())) {
            kept.merge(OTHER, e.getValue(), merge);
        }
        return new Folded<>(kept, ranked.size() - max);
    }
}
