package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.OwnDatabase;
import io.gantry.support.StartEarly;
import tools.jackson.databind.JsonNode;

/**
 * Acting on a big array while the scheduler starts and ends its tasks: the request takes the array's
 * rows first, so the scheduler's changes wait for it rather than making it fail with "the record
 * changed while this request ran" (it did, every time, at 20,000 tasks and more).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "gantry.jobs.max-array-size=20001")
@ActiveProfiles("postgres")
@DirtiesContext
@StartEarly("a 20,000-task array held, released and cancelled while it churns")
class ChurningArrayIntegrationTests {

    private static final String DATABASE = "gantry_churning_array_it_" + ProcessHandle.current().pid();
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        OwnDatabase.register(registry, DATABASE);
    }

    @LocalServerPort
    int port;

    @Test
    void aChurningArrayIsHeldReleasedAndCancelledAtTheFirstAsking() {
        ApiClient api = new ApiClient(port);
        String admin = api.adminToken();
        long id = api.submitJob(admin, Map.of("partition", "cpu", "array", "0-19999%40", "simulatedRunSeconds", 1));
        await().atMost(PATIENCE).until(() -> count(api, admin, id, "COMPLETED") >= 80);

        for (String action : new String[] {"hold", "release"}) {
            Response answer = api.send("POST", "/api/v1/jobs/" + id + "/" + action, admin, null);
            assertThat(answer.status()).as(action + ": " + answer.body()).isEqualTo(200);
        }
        await().atMost(PATIENCE).until(() -> count(api, admin, id, "COMPLETED") >= 160);

        Response cancel = api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        assertThat(cancel.status()).as(cancel.body()).isEqualTo(200);
        await().atMost(PATIENCE).untilAsserted(() -> {
            JsonNode summary = api.get("/api/v1/jobs/" + id + "/array", admin).json();
            for (JsonNode state : summary.get("states")) {
                assertThat(state.get("state").asString()).as("no task is left to run")
                        .isIn("COMPLETED", "CANCELLED");
            }
        });
        assertThat(count(api, admin, id, "CANCELLED")).as("the tasks that had not run").isGreaterThan(19_000);
    }

    private static int count(ApiClient api, String admin, long id, String state) {
        for (JsonNode entry : api.get("/api/v1/jobs/" + id + "/array", admin).json().get("states")) {
            if (entry.get("state").asString().equals(state)) {
                return entry.get("tasks").asInt();
            }
        }
        return 0;
    }
}
