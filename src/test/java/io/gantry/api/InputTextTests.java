package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Error words without Java names, and short lists of many bad names. */
class InputTextTests {

    @Test
    void typesAreDescribedInJsonTerms() {
        assertThat(InputText.describe(Integer.class)).isEqualTo("an integer from -2147483648 to 2147483647");
        assertThat(InputText.describe(Instant.class)).startsWith("a time as ISO-8601 text");
        assertThat(InputText.describe(List.class)).isEqualTo("a JSON array");
        assertThat(InputText.describe(InputTextTests.class)).isEqualTo("a JSON object");
    }

    @Test
    void manyNamesAreShownAsAFewAndACount() {
        assertThat(InputText.someOf(List.of("x1", "x2"), 100_000)).isEqualTo("'x1', 'x2' and 99,998 more (100,000 in all)");
        assertThat(InputText.someOf(List.of("x1"), 1)).isEqualTo("'x1'");
    }

    @Test
    void shownValuesAreCutAndEscaped() {
        assertThat(InputText.shown("a\u0000b")).isEqualTo("a\\u0000b");
        assertThat(InputText.shown("y".repeat(5000))).hasSize(103).endsWith("...");
    }

    @Test
    void timesOutsideTheYears1970To9999AreRefused() {
        assertThat(InputBounds.parseInstant("start", "9999-12-31")).isEqualTo(Instant.parse("9999-12-31T00:00:00Z"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> InputBounds.parseInstant("start",
                "+1000000000-01-01T00:00:00Z")).isInstanceOf(GantryException.class).hasMessageContaining("start");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> InputBounds.parseInstant("end", "1969-12-31"))
                .isInstanceOf(GantryException.class).hasMessageContaining("end");
    }
}
