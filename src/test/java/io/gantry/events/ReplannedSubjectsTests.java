package io.gantry.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** A pass that re-plans many tasks of one array announces the array once, and every other job by itself. */
class ReplannedSubjectsTests {

    @Test
    void fewTasksOfAnArrayAndPlainJobsAreEachNamed() {
        assertThat(LiveEvents.replannedSubjects(List.of("7", "18_3", "18_4", "9")))
                .containsExactly("7", "18_3", "18_4", "9");
    }

    @Test
    void manyTasksOfOneArrayAreNamedByTheArrayOnceInTheirPlace() {
        List<String> ids = new ArrayList<>(List.of("7"));
        for (int task = 0; task <= LiveEvents.TASKS_NAMED_UP_TO; task++) {
            ids.add("18_" + task);
        }
        ids.add("20_1");
        ids.add("9");
        assertThat(LiveEvents.replannedSubjects(ids)).containsExactly("7", "18", "20_1", "9");
    }

    @Test
    void exactlyTheLimitIsStillNamedTaskByTask() {
        List<String> ids = new ArrayList<>();
        for (int task = 0; task < LiveEvents.TASKS_NAMED_UP_TO; task++) {
            ids.add("18_" + task);
        }
        assertThat(LiveEvents.replannedSubjects(ids)).isEqualTo(ids);
    }
}
