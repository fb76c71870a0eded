package io.gantry.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The cap on a label's values: the heaviest keep their names, the rest sum under "other". */
class LabelCapTests {

    @Test
    void valuesWithinTheCapAreShownAsTheyAre() {
        LabelCap.Folded<Integer> f = LabelCap.fold(Map.of("a", 1, "b", 2), 2, n -> n, Integer::sum);
        assertThat(f.values()).containsExactly(Map.entry("a", 1), Map.entry("b", 2));
        assertThat(f.folded()).isZero();
    }

    @Test
    void beyondTheCapTheLightestAreSummedUnderOther() {
        Map<String, Integer> users = new HashMap<>();
        for (int i = 0; i < 10; i++) {
            users.put("user" + i, i);
        }
        LabelCap.Folded<Integer> f = LabelCap.fold(users, 3, n -> n, Integer::sum);
        assertThat(f.values()).containsOnly(Map.entry("user9", 9), Map.entry("user8", 8), Map.entry("user7", 7),
                Map.entry(LabelCap.OTHER, 0 + 1 + 2 + 3 + 4 + 5 + 6));
        assertThat(f.folded()).isEqualTo(7);
        // The sum over the label is unchanged.
        assertThat(f.values().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(45);
    }

    @Test
    void tiesKeepTheNamesFirstInOrderSoEveryScrapeShowsTheSame() {
        LabelCap.Folded<Integer> f = LabelCap.fold(Map.of("c", 1, "a", 1, "b", 1), 2, n -> n, Integer::sum);
        assertThat(f.values()).containsOnlyKeys("a", "b", LabelCap.OTHER);
        assertThat(f.values().get(LabelCap.OTHER)).isEqualTo(1);
    }

    @Test
    void aKeptValueNamedOtherTakesTheFoldedRest() {
        LabelCap.Folded<Integer> f = LabelCap.fold(Map.of("other", 5, "x", 1, "y", 1), 1, n -> n, Integer::sum);
        assertThat(f.values()).containsExactly(Map.entry(LabelCap.OTHER, 7));
    }

    @Test
    void aCapBelowOneIsRefused() {
        assertThatThrownBy(() -> LabelCap.fold(Map.of("a", 1), 0, n -> n, Integer::sum))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MetricsProperties(0, java.time.Duration.ofSeconds(1), false))
                .hasMessageContaining("gantry.metrics.max-label-values");
    }
}
