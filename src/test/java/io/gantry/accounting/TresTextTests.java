package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import io.gantry.api.GantryException;
import io.gantry.engine.Tres;

class TresTextTests {

    @Test
    void aLimitWrittenAsSlurmWritesItIsKeptAsWrittenWithoutBlanks() {
        assertThat(TresText.normalize("grpTres", " cpu=64, gres/gpu=8,mem=256G ,node=2"))
                .isEqualTo("cpu=64,mem=256G,node=2,gres/gpu=8");
        assertThat(TresText.limit("cpu=64,gres/gpu=8,mem=256G,node=2")).isEqualTo(Tres.of(64, 256 * 1024, 8, 2));
    }

    @Test
    void billingIsABudgetsTresOnlyAndReadApart() {
        assertThat(TresText.normalize("grpTresMins", "gres/gpu=60, Billing=5000", true)).isEqualTo("Billing=5000,gres/gpu=60");
        assertThat(TresText.billing("Billing=5000,gres/gpu=60")).isEqualTo(5000);
        assertThat(TresText.limit("Billing=5000,gres/gpu=60")).isEqualTo(Tres.of(Long.MAX_VALUE, Long.MAX_VALUE, 60,
                Long.MAX_VALUE));
        assertThat(TresText.billing("gres/gpu=60")).isEqualTo(Long.MAX_VALUE);
        assertThatThrownBy(() -> TresText.normalize("grpTresMins", "billing=lots", true))
                .isInstanceOfSatisfying(GantryException.class, e -> assertThat(e.errors()).singleElement()
                        .satisfies(err -> assertThat(err.field()).isEqualTo("grpTresMins")));
        assertThatThrownBy(() -> TresText.normalize("grpTres", "billing=10"))
                .isInstanceOfSatisfying(GantryException.class, e -> assertThat(e.errors()).singleElement()
                        .satisfies(err -> assertThat(err.message()).contains("GrpTRESMins")));
    }

    @Test
    void noTextIsNoLimit() {
        assertThat(TresText.normalize("grpTres", null)).isNull();
        assertThat(TresText.normalize("grpTres", "  ")).isNull();
        assertThat(TresText.limit(null)).isEqualTo(Tres.UNLIMITED);
    }

    @Test
    void aLimitOfZeroGpusStaysALimit() {
        assertThat(TresText.normalize("maxTresPerJob", "gres/gpu=0")).isEqualTo("gres/gpu=0");
        assertThat(TresText.limit("gres/gpu=0").gpus()).isZero();
        assertThat(TresText.limit("gres/gpu=0").cpu()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void anUnknownTresNameIsA400OnTheField() {
        assertThatThrownBy(() -> TresText.normalize("maxTresPerUser", "licenses=3"))
                .isInstanceOfSatisfying(GantryException.class, e -> {
                    assertThat(e.errors()).singleElement().satisfies(err -> {
                        assertThat(err.field()).isEqualTo("maxTresPerUser");
                        assertThat(err.message()).contains("unknown TRES 'licenses'").contains("gres/gpu=8");
                    });
                });
    }

    @Test
    void malformedItemsAre400s() {
        for (String bad : new String[] {"cpu", "cpu=lots", "cpu=-1", "mem=", ",cpu=1"}) {
            assertThatThrownBy(() -> TresText.normalize("grpTres", bad)).as(bad).isInstanceOf(GantryException.class);
        }
    }
}
