package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.gantry.engine.Tres;

/** A usage row as the budgets take it: each TRES into its own field of Tres, cut to whole seconds or minutes. */
class TresSecondsTests {

    private static final TresSeconds USED = new TresSeconds(7_259, 1_228_799, 179, 3_659, 125, 90_119);

    @Test
    void nodesAndGpusLandInTheirOwnFieldsThoughTresListsGpusBeforeNodes() {
        assertThat(USED.inSeconds()).isEqualTo(new Tres(7_259, 1_228_799, 3_659, 179));
        assertThat(USED.inMinutes()).isEqualTo(new Tres(120, 20_479, 60, 2));
        assertThat(USED.billingMinutes()).isEqualTo(1_501);
    }

    @Test
    void aRowMissingFromTheUsageIsZeroInEveryField() {
        BudgetService.Usage none = new BudgetService.Usage(java.util.Map.of(), java.util.Map.of(), java.util.Map.of());
        assertThat(none.seconds("physics", "ada")).isEqualTo(TresSeconds.ZERO);
        assertThat(none.qosWallSeconds("normal")).isZero();
        assertThat(none.qosBillingMinutes("normal")).isZero();
        assertThat(none.minutes("physics", null)).isEqualTo(Tres.ZERO);
    }
}
