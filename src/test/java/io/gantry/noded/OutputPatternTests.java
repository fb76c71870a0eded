package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import io.gantry.noded.protocol.AgentProtocol.Launch;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutputPatternTests {

    static Launch launch(String jobId, long arrayJobId, Integer arrayTaskId) {
        return new Launch(jobId, arrayJobId, arrayTaskId, "train", "alice", "physics", "gpu", "normal",
                "echo hi\n", null, Map.of(), null, null, 0, null, "n1", List.of("n1"), 1, 1, 1, 100, List.of());
    }

    private static final Launch PLAIN = launch("42", 0, null);
    private static final Launch TASK = launch("40_7", 40, 7);

    @Test
    void expandsEveryPatternOfAPlainJob() {
        assertThat(OutputPattern.expand("%j|%A|%a|%x|%u|%N|%n|%t|%s|%J|%%", PLAIN, "node1"))
                .isEqualTo("42|42|4294967294|train|alice|node1|0|0|batch|42.batch|%");
    }

    @Test
    void expandsEveryPatternOfAnArrayTask() {
        assertThat(OutputPattern.expand("%j|%A|%a|%x-%u@%N", TASK, "node1")).isEqualTo("40|40|7|train-alice@node1");
    }

    @Test
    void zeroPadsNumbersButNotNames() {
        assertThat(OutputPattern.expand("job%5j.out", PLAIN, "n")).isEqualTo("job00042.out");
        assertThat(OutputPattern.expand("%A_%3a", TASK, "n")).isEqualTo("40_007");
        assertThat(OutputPattern.expand("%2t-%4N-%3x", PLAIN, "n")).isEqualTo("00-n-train");
        assertThat(OutputPattern.expand("%1j", PLAIN, "n")).isEqualTo("42");
        assertThat(OutputPattern.expand("%99j", PLAIN, "n")).isEqualTo("0000000042");
    }

    @Test
    void leavesUnknownPatternsAndATrailingPercentAlone() {
        assertThat(OutputPattern.expand("a%zb%", PLAIN, "n")).isEqualTo("a%zb%");
        assertThat(OutputPattern.expand("100%%-%j", PLAIN, "n")).isEqualTo("100%-42");
        assertThat(OutputPattern.expand("%%j", PLAIN, "n")).isEqualTo("%j");
    }

    @Test
    void aBackslashTurnsExpansionOff() {
        assertThat(OutputPattern.expand("out\\%j.txt", PLAIN, "n")).isEqualTo("out%j.txt");
    }

    @Test
    void defaultsLikeSlurmWithGantryNames() {
        assertThat(OutputPattern.expand(OutputPattern.defaultPattern(PLAIN), PLAIN, "n")).isEqualTo("gantry-42.out");
        assertThat(OutputPattern.expand(OutputPattern.defaultPattern(TASK), TASK, "n")).isEqualTo("gantry-40_7.out");
    }
}
