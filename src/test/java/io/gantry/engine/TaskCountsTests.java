package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class TaskCountsTests {

    @Test
    void runsOfEqualCountsAreCompressedAsSlurmWritesThem() {
        assertThat(TaskCounts.compressed(List.of(2, 2))).isEqualTo("2(x2)");
        assertThat(TaskCounts.compressed(List.of(4, 4, 2))).isEqualTo("4(x2),2");
        assertThat(TaskCounts.compressed(List.of(1))).isEqualTo("1");
        assertThat(TaskCounts.compressed(List.of(3, 1, 1, 3))).isEqualTo("3,1(x2),3");
        assertThat(TaskCounts.compressed(List.of())).isEmpty();
    }

    @Test
    void batchTasksGoOneToEachNodeThenFillEachNodesCpusInOrder() {
        assertThat(TaskCounts.blockLayout(List.of(2, 2), 4, 1)).containsExactly(2, 2);
        assertThat(TaskCounts.blockLayout(List.of(2, 1), 3, 1)).containsExactly(2, 1);
        assertThat(TaskCounts.blockLayout(List.of(64, 64), 3, 1)).containsExactly(2, 1);
        assertThat(TaskCounts.blockLayout(List.of(8, 8), 4, 4)).containsExactly(2, 2);
    }

    @Test
    void withoutNtasksEachCpuGroupIsATaskAndOverSubscriptionGoesRoundTheNodes() {
        assertThat(TaskCounts.blockLayout(List.of(1), 0, 1)).containsExactly(1);
        assertThat(TaskCounts.blockLayout(List.of(4, 2), 0, 2)).containsExactly(2, 1);
        assertThat(TaskCounts.blockLayout(List.of(1, 1), 5, 1)).containsExactly(3, 2);
    }
}
