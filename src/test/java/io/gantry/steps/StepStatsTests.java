package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.gantry.noded.protocol.StepStatProtocol.StepUsage;
import io.gantry.noded.protocol.StepStatProtocol.TaskUsage;
import io.gantry.steps.StepStats.StepStat;

/** How the nodes' readings of a step become sstat's one line. */
class StepStatsTests {

    private static TaskUsage task(int procId, long pid, long rss, long maxRss, long cpuMillis) {
        return new TaskUsage(procId, pid, rss, maxRss, 2 * maxRss, 2 * maxRss, cpuMillis, 0, 0, 100, 10);
    }

    @Test
    void aStepOnTwoNodesNamesTheNodeAndRankOfItsHighestAndLowestTaskAndLeavesOutTheSilentNode() {
        Map<String, StepUsage> answers = new LinkedHashMap<>();
        answers.put("gpu2", new StepUsage("b", "9", 0, List.of(task(2, 202, 300, 900, 5_000), task(3, 203, 100, 100,
                9_000))));
        answers.put("gpu1", new StepUsage("a", "9", 0, List.of(task(0, 101, 200, 200, 1_000), task(1, 102, 400, 400,
                3_000))));
        answers.put("gpu4", new StepUsage("c", "9", 0, List.of())); // its tasks ended there

        StepStat stat = StepStats.aggregate("9.0", "0", answers, List.of("gpu3"));

        assertThat(stat.tasks()).isEqualTo(4);
        assertThat(stat.nodelist()).isEqualTo("gpu[1-2]");
        assertThat(stat.unansweredNodes()).containsExactly("gpu3");
        assertThat(stat.pids()).extracting(StepStats.NodePids::node).containsExactly("gpu2", "gpu1");
        // MaxRSS is the highest peak, AveRSS the mean of what the tasks hold now
        assertThat(stat.rssBytes()).isEqualTo(new StepStats.Figure(900, "gpu2", 2, 100, "gpu2", 3, 1000, 250));
        assertThat(stat.cpuMillis()).isEqualTo(new StepStats.Figure(9_000, "gpu2", 3, 1_000, "gpu1", 0, 18_000, 4_500));
        // equal readings: the lowest rank, as Slurm picks
        assertThat(stat.diskReadBytes().maxTask()).isZero();
        assertThat(stat.diskReadBytes().minTask()).isZero();
        assertThat(stat.diskReadBytes().total()).isEqualTo(400);
    }

    @Test
    void noAnswerAtAllIsAnEmptyLine() {
        StepStat stat = StepStats.aggregate("9.batch", "batch", Map.of(), List.of("gpu1"));
        assertThat(stat.tasks()).isZero();
        assertThat(stat.nodelist()).isEmpty();
        assertThat(stat.rssBytes().max()).isZero();
        assertThat(stat.rssBytes().maxNode()).isNull();
    }
}
