package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * What an array's page reads at any size: {@code GET /jobs/{id}/array} sums the tasks up by state
 * and exit code with their ids as ranges; {@code GET /jobs/{id}/tasks} pages them filtered by state,
 * exit code and node; {@code POST /jobs/{id}/requeue?state=} resubmits only the failed ones.
 */
@GantryIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ArrayPagesIntegrationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;

    @BeforeAll
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void theSummaryCountsTasksByStateAndExitCodeAndWritesTheirIdsAsRanges() {
        long id = api.submitJob(admin, Map.of("partition", "cpu", "array", "0-3,8,9", "hold", true,
                "simulatedRunSeconds", 1));
        release(id + "_0");
        release(id + "_1");
        awaitTasks(id, "COMPLETED", 2);

        JsonNode summary = ok(api.get("/api/v1/jobs/" + id + "/array", admin));
        assertThat(summary.get("arrayJobId").asLong()).isEqualTo(id);
        assertThat(summary.get("tasks").asInt()).isEqualTo(6);
        assertThat(summary.get("taskIds").asString()).isEqualTo("0-3,8-9");
        assertThat(summary.get("user").asString()).isEqualTo("admin");
        assertThat(counts(summary.get("states"), "state")).containsExactlyInAnyOrder("COMPLETED=2", "PENDING=4");
        assertThat(counts(summary.get("exitCodes"), "exitCode")).as("only ended tasks have an exit code")
                .containsExactly("0=2");
    }

    @Test
    void theSummaryOfATaskIsRefusedOfAPlainJobHasNoTasksAndOfNoJobIsNotFound() {
        long id = api.submitJob(admin, Map.of("partition", "cpu", "array", "0-1", "hold", true));
        Response task = api.get("/api/v1/jobs/" + id + "_1/array", admin);
        assertThat(task.status()).isEqualTo(400);
        assertThat(task.isProblem()).isTrue();
        assertThat(task.json().get("detail").asString()).contains("one task").contains(Long.toString(id));

        long single = api.submitJob(admin, Map.of("partition", "cpu", "hold", true, "name", "lonely"));
        JsonNode plain = ok(api.get("/api/v1/jobs/" + single + "/array", admin));
        assertThat(plain.get("tasks").asInt()).as("a job that is no array has no tasks").isZero();
        assertThat(plain.get("name").asString()).isEqualTo("lonely");
        assertThat(plain.get("states")).isEmpty();
        assertThat(api.get("/api/v1/jobs/987654321/array", admin).status()).isEqualTo(404);
        api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        api.send("DELETE", "/api/v1/jobs/" + single, admin, null);
    }

    @Test
    void tasksAreListedByExitCodeAndByTheNodeTheyRanOn() {
        long ok = api.submitJob(admin, Map.of("partition", "cpu", "array", "0-2", "simulatedRunSeconds", 1));
        long bad = api.submitJob(admin, Map.of("partition", "cpu", "array", "0-1", "simulatedRunSeconds", 1,
                "simulatedExitCode", 7));
        awaitTasks(ok, "COMPLETED", 3);
        awaitTasks(bad, "FAILED", 2);

        assertThat(taskIds(bad, "exitCode=7")).containsExactly(bad + "_0", bad + "_1");
        assertThat(taskIds(ok, "exitCode=7")).isEmpty();
        assertThat(taskIds(ok, "exitCode=0")).hasSize(3);
        assertThat(taskIds(ok, "state=COMPLETED&exitCode=0")).hasSize(3);
        assertThat(taskIds(ok, "state=FAILED")).isEmpty();

        JsonNode first = ok(api.get("/api/v1/jobs/" + ok + "_0", admin));
        String node = first.get("allocatedNodes").asString();
        List<String> onNode = taskIds(ok, "node=" + node);
        assertThat(onNode).contains(ok + "_0");
        for (String task : onNode) {
            assertThat(ok(api.get("/api/v1/jobs/" + task, admin)).get("allocatedNodes").asString()).isEqualTo(node);
        }
        assertThat(taskIds(ok, "node=" + node.substring(0, node.length() - 1)))
                .as("a node name's prefix names no other node").isEmpty();
        assertThat(taskIds(ok, "node=no-such-node")).isEmpty();
        assertThat(api.get("/api/v1/jobs/" + ok + "/tasks?exitCode=x", admin).status()).isEqualTo(400);
        assertThat(api.get("/api/v1/jobs/" + ok + "/tasks?state=BROKEN", admin).status()).isEqualTo(400);
    }

    @Test
    void requeueWithStatesResubmitsOnlyAnArraysFailedTasks() {
        long id = api.submitJob(admin, Map.of("partition", "cpu", "array", "0-2", "simulatedRunSeconds", 1,
                "simulatedExitCode", 3));
        awaitTasks(id, "FAILED", 3);
        long fine = api.submitJob(admin, Map.of("partition", "cpu", "array", "0-1", "simulatedRunSeconds", 1));
        awaitTasks(fine, "COMPLETED", 2);

        Response nothing = api.send("POST", "/api/v1/jobs/" + fine + "/requeue?state=FAILED,TIMEOUT", admin, null);
        assertThat(nothing.status()).isEqualTo(409);
        assertThat(nothing.json().get("detail").asString()).contains("FAILED or TIMEOUT");
        assertThat(ok(api.get("/api/v1/jobs/" + fine + "_0", admin)).get("state").asString()).isEqualTo("COMPLETED");

        Response badState = api.send("POST", "/api/v1/jobs/" + id + "/requeue?state=BROKEN", admin, null);
        assertThat(badState.status()).isEqualTo(400);
        assertThat(badState.json().get("detail").asString()).contains("BROKEN");

        Response requeued = api.send("POST", "/api/v1/jobs/" + id + "/requeue?state=FAILED", admin, null);
        assertThat(requeued.status()).as(requeued.body()).isEqualTo(200);
        assertThat(requeued.json().get("jobs")).hasSize(3);
        await().atMost(PATIENCE).untilAsserted(() -> {
            for (JsonNode task : ok(api.get("/api/v1/jobs?arrayJobId=" + id, admin)).get("items")) {
                assertThat(task.get("requeueCount").asInt()).isEqualTo(1);
            }
        });
    }

    private void release(String task) {
        assertThat(api.send("POST", "/api/v1/jobs/" + task + "/release", admin, null).status()).isEqualTo(200);
    }

    private void awaitTasks(long id, String state, int count) {
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(
                ok(api.get("/api/v1/jobs?arrayJobId=" + id + "&state=" + state, admin)).get("total").asInt()).isEqualTo(count));
    }

    private List<String> taskIds(long array, String query) {
        List<String> ids = new ArrayList<>();
        for (JsonNode task : ok(api.get("/api/v1/jobs/" + array + "/tasks?" + query, admin)).get("items")) {
            ids.add(task.get("id").asString());
        }
        return ids;
    }

    private static List<String> counts(JsonNode list, String field) {
        List<String> out = new ArrayList<>();
        for (JsonNode entry : list) {
            out.add(entry.get(field).asString() + "=" + entry.get("tasks").asLong());
        }
        return out;
    }

    private static JsonNode ok(Response response) {
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json();
    }
}
