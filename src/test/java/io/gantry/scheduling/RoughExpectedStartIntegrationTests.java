package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.gantry.support.ApiClient;
import io.gantry.support.OwnDatabase;
import tools.jackson.databind.JsonNode;

/**
 * With an expected-start pass that may search for one job only, the jobs it does not reach still
 * show an expected start, from the same pass: the tasks of an array waiting behind a job that holds
 * the whole partition get one at once (never some of them only), each after the one ahead of it;
 * {@code sbatch --test-only} for a job behind them says its time is rough.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "gantry.scheduler.estimate-max-jobs=1")
@ActiveProfiles("postgres")
@DirtiesContext
class RoughExpectedStartIntegrationTests {

    private static final String DATABASE = "gantry_rough_starts_it_" + ProcessHandle.current().pid();
    private static final int TASKS = 6;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        OwnDatabase.register(registry, DATABASE);
    }

    @LocalServerPort
    int port;

    @Test
    void everyTaskBehindAFullPartitionGetsAnExpectedStartFromTheFirstPassThatSeesThem() {
        ApiClient api = new ApiClient(port);
        String admin = api.adminToken();
        long blocker = api.submitJob(admin, Map.of("name", "rough-blocker", "partition", "cpu", "nodes", 8,
                "exclusive", true, "timeLimitSeconds", 1800, "simulatedRunSeconds", 1800));
        JsonNode running = api.awaitJobState(blocker, admin, "RUNNING", Duration.ofSeconds(30));
        Instant blockerEnds = Instant.parse(running.get("startTime").asString()).plusSeconds(1800);

        long array = api.submitJob(admin, Map.of("name", "rough-array", "partition", "cpu", "nodes", 8,
                "exclusive", true, "timeLimitSeconds", 600, "simulatedRunSeconds", 600, "array", "0-" + (TASKS - 1)));
        // The cycle's plan reserves task 0 (its time comes with the cycle); the pass after it searches one
        // task and gives the rest rough times, written together: at no moment do some of tasks 1 to 5 have
        // a time and others none.
        List<Instant> starts = await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    List<Instant> seen = expectedStarts(api, admin, array);
                    long with = seen.subList(1, TASKS).stream().filter(t -> t != null).count();
                    assertThat(with).as("tasks with an expected start: %s", seen).isIn(0L, (long) TASKS - 1);
                    return seen;
                }, seen -> seen.stream().allMatch(t -> t != null));

        assertThat(starts.get(0)).isBetween(blockerEnds.minusSeconds(1), blockerEnds.plusSeconds(1));
        for (int k = 1; k < TASKS; k++) {
            // Each after the one ahead of it; a rough time is kept to the minute, so up to a minute later.
            assertThat(starts.get(k)).as("task %d of %s", k, starts)
                    .isAfterOrEqualTo(starts.get(k - 1).plusSeconds(600 - 1))
                    .isBeforeOrEqualTo(blockerEnds.plusSeconds(600L * k + 60L * k + 1));
        }

        // sbatch --test-only for one more such job: behind the array, a rough time, said so, on no nodes.
        ApiClient.Response trial = api.send("POST", "/api/v1/jobs/test", admin, Map.of("name", "rough-trial",
                "partition", "cpu", "nodes", 8, "exclusive", true, "timeLimitSeconds", 600));
        assertThat(trial.status()).as(trial.body()).isEqualTo(200);
        JsonNode answer = trial.json();
        assertThat(Instant.parse(answer.get("startTime").asString())).as(trial.body())
                .isAfterOrEqualTo(starts.get(TASKS - 1).plusSeconds(600 - 1));
        assertThat(answer.get("nodes").isNull()).as(trial.body()).isTrue();
        assertThat(answer.get("warnings").toString()).as(trial.body()).contains("the start time is rough");
    }

    /** Each task's expected start (null for none), in task order. */
    private static List<Instant> expectedStarts(ApiClient api, String token, long array) {
        JsonNode items = api.get("/api/v1/jobs?arrayJobId=" + array + "&size=1000", token).json().get("items");
        Instant[] byTask = new Instant[TASKS];
        for (JsonNode j : items) {
            if (j.hasNonNull("arrayTaskId") && "PENDING".equals(j.get("state").asString())) {
                JsonNode t = j.get("expectedStartTime");
                byTask[j.get("arrayTaskId").asInt()] = t == null || t.isNull() ? null : Instant.parse(t.asString());
            }
        }
        List<Instant> out = new ArrayList<>();
        for (Instant t : byTask) {
            out.add(t);
        }
        return out;
    }
}
