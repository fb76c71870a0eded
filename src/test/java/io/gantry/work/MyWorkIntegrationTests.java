package io.gantry.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
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
 * The dashboard's landing and node marks (issue 34, items 3 and 8): {@code GET /work} lists a user's
 * own active jobs running first, an array as one row counted by state, and the failures of the last
 * 24 hours; {@code ?sort=active} lists running, then pending, then ended jobs; a node's view says which
 * reservation it is in, which maintenance comes, who drained it and when, and how many of the jobs that
 * ended on it lately failed.
 */
@GantryIntegrationTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MyWorkIntegrationTests {

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
    void aUsersWorkListsRunningJobsFirstAnArrayAsOneRowAndTheFailuresOfTheDay() {
        String user = "mw" + Long.toString(System.nanoTime(), 36);
        String token = api.createUser(admin, user, "my-work-password-1");
        long ended = api.submitJob(token, Map.of("partition", "cpu", "simulatedRunSeconds", 1, "name", "done"));
        api.awaitJobState(ended, token, "COMPLETED", PATIENCE);
        long held = api.submitJob(token, Map.of("partition", "cpu", "hold", true, "name", "waiting"));
        long running = api.submitJob(token, Map.of("partition", "cpu", "simulatedRunSeconds", 600, "name", "busy"));
        long array = api.submitJob(token, Map.of("partition", "cpu", "array", "0-39", "simulatedRunSeconds", 600, "name", "sweep"));
        long failing = api.submitJob(token, Map.of("partition", "cpu", "array", "0-4", "simulatedRunSeconds", 1,
                "simulatedExitCode", 2, "name", "broken"));
        api.awaitJobState(running, token, "RUNNING", PATIENCE);
        await().atMost(PATIENCE).until(() -> ok(api.get("/api/v1/jobs/" + failing + "/array", token)).get("states")
                .toString().contains("\"FAILED\",\"tasks\":5"));
        long otherUsers = api.submitJob(admin, Map.of("partition", "cpu", "hold", true, "name", "admins"));

        JsonNode work = ok(api.get("/api/v1/work", token));
        assertThat(work.get("user").asString()).isEqualTo(user);
        List<String> active = ids(work.get("active"));
        assertThat(active).as("the held job, the running job and the array, each once; nobody else's")
                .containsExactlyInAnyOrder(Long.toString(held), Long.toString(running), Long.toString(array));
        assertThat(active.get(active.size() - 1)).as("pending after running").isEqualTo(Long.toString(held));
        JsonNode arrayRow = row(work.get("active"), Long.toString(array));
        assertThat(arrayRow.get("array").asBoolean()).isTrue();
        assertThat(arrayRow.get("tasks").asLong()).isEqualTo(40);
        assertThat(arrayRow.get("listed").asLong()).isEqualTo(40);
        long counted = 0;
        for (JsonNode s : arrayRow.get("states")) {
            counted += s.get("tasks").asLong();
        }
        assertThat(counted).as("the array's tasks by state add up to all 40").isEqualTo(40);
        assertThat(arrayRow.get("name").asString()).isEqualTo("sweep");

        JsonNode failure = row(work.get("failures"), Long.toString(failing));
        assertThat(ids(work.get("failures"))).containsExactly(Long.toString(failing));
        assertThat(failure.get("array").asBoolean()).isTrue();
        assertThat(failure.get("listed").asLong()).as("five failed tasks, one row").isEqualTo(5);
        assertThat(failure.get("state").asString()).isEqualTo("FAILED");
        assertThat(failure.get("exitCode").asInt()).isEqualTo(2);
        assertThat(ids(work.get("recent"))).as("ended, newest first; one row for the failed array")
                .containsExactly(Long.toString(failing), Long.toString(ended));
        assertThat(work.get("gpuHours30Days").asDouble()).isZero();
        assertThat(work.get("fairShare").toString()).contains("\"account\":\"root\"");

        List<String> sorted = new ArrayList<>();
        for (JsonNode j : ok(api.get("/api/v1/jobs?user=" + user + "&sort=active&size=100", token)).get("items")) {
            sorted.add(j.get("state").asString());
        }
        int firstPending = sorted.indexOf("PENDING");
        int firstEnded = sorted.indexOf("COMPLETED");
        assertThat(sorted.subList(0, firstPending)).as("running first: %s", sorted).containsOnly("RUNNING");
        assertThat(firstPending).isLessThan(firstEnded);
        assertThat(sorted.subList(firstEnded, sorted.size())).doesNotContain("RUNNING", "PENDING");
        assertThat(sorted.get(sorted.size() - 1)).as("the oldest ended last").isEqualTo("COMPLETED");

        JsonNode adminsWork = ok(api.get("/api/v1/work", admin));
        assertThat(adminsWork.get("user").asString()).isEqualTo("admin");
        assertThat(ids(adminsWork.get("active"))).as("an admin's own work is their own").doesNotContain(Long.toString(running));
        assertThat(ids(ok(api.get("/api/v1/jobs?sort=active&size=500", admin)).get("items")))
                .as("an admin's list is everyone's").contains(Long.toString(running), Long.toString(otherUsers));
        for (long id : List.of(held, running, array, otherUsers)) {
            api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        }
    }

    @Test
    void aDrainedNodeSaysWhoDrainedItAndWhen() {
        Instant before = Instant.now().minusSeconds(1);
        Response drained = api.send("PATCH", "/api/v1/nodes/cpu006", admin, Map.of("state", "DRAIN", "reason", "bad DIMM, ticket 7"));
        assertThat(drained.status()).isEqualTo(200);
        try {
            JsonNode node = ok(api.get("/api/v1/nodes/cpu006", admin));
            assertThat(node.get("reason").asString()).isEqualTo("bad DIMM, ticket 7");
            assertThat(node.get("reasonUser").asString()).isEqualTo("admin");
            assertThat(Instant.parse(node.get("reasonTime").asString())).isBetween(before, Instant.now().plusSeconds(1));
            JsonNode listed = row(ok(api.get("/api/v1/nodes?size=1000", admin)).get("items"), "cpu006", "name");
            assertThat(listed.get("reasonUser").asString()).isEqualTo("admin");
        } finally {
            api.send("PATCH", "/api/v1/nodes/cpu006", admin, Map.of("state", "RESUME"));
        }
    }

    @Test
    void aNodeInAReservationNamesItAndOneWithMaintenanceComingSaysWhen() {
        String suffix = Long.toString(System.nanoTime(), 36);
        String now = "mw-now-" + suffix;
        String maint = "mw-maint-" + suffix;
        Instant start = Instant.now().plus(Duration.ofHours(3)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        assertThat(api.send("POST", "/api/v1/reservations", admin, Map.of("name", now, "nodes", "cpu003",
                "durationSeconds", 3600, "users", List.of("admin"))).status()).isEqualTo(201);
        assertThat(api.send("POST", "/api/v1/reservations", admin, Map.of("name", maint, "nodes", "cpu004",
                "startTime", start.toString(), "durationSeconds", 3600, "flags", List.of("MAINT"), "users", List.of("admin")))
                .status()).isEqualTo(201);
        try {
            JsonNode reserved = ok(api.get("/api/v1/nodes/cpu003", admin));
            assertThat(reserved.get("reservation").asString()).isEqualTo(now);
            JsonNode coming = row(ok(api.get("/api/v1/nodes?size=1000", admin)).get("items"), "cpu004", "name");
            assertThat(coming.get("maintenanceReservation").asString()).isEqualTo(maint);
            assertThat(Instant.parse(coming.get("maintenanceStart").asString())).isEqualTo(start);
            assertThat(coming.get("reservation").isNull()).as("not yet in it").isTrue();
            assertThat(ok(api.get("/api/v1/nodes/cpu002", admin)).get("reservation").isNull()).isTrue();
        } finally {
            api.send("DELETE", "/api/v1/reservations/" + now, admin, null);
            api.send("DELETE", "/api/v1/reservations/" + maint, admin, null);
        }
    }

    @Test
    void aNodeThatFailedMostOfItsRecentJobsIsMarkedFailing() {
        long bad = api.submitJob(admin, Map.of("partition", "cpu", "array", "0-11", "nodelist", "cpu007",
                "simulatedRunSeconds", 1, "simulatedExitCode", 1, "name", "black-hole"));
        long fine = api.submitJob(admin, Map.of("partition", "cpu", "array", "0-3", "nodelist", "cpu007",
                "simulatedRunSeconds", 1, "name", "fine"));
        await().atMost(PATIENCE).until(() -> ok(api.get("/api/v1/jobs/" + bad + "/array", admin)).get("states")
                .toString().contains("\"FAILED\",\"tasks\":12")
                && ok(api.get("/api/v1/jobs/" + fine + "/array", admin)).get("states").toString().contains("\"COMPLETED\",\"tasks\":4"));

        JsonNode failures = ok(api.get("/api/v1/nodes/cpu007", admin)).get("recentFailures");
        assertThat(failures.get("failed").asInt()).as("%s", failures).isGreaterThanOrEqualTo(12);
        assertThat(failures.get("ended").asInt()).isGreaterThanOrEqualTo(16);
        assertThat(failures.get("windowMinutes").asInt()).isEqualTo(10);
        assertThat(failures.get("failing").asBoolean()).isTrue();
        JsonNode listed = row(ok(api.get("/api/v1/nodes?size=1000", admin)).get("items"), "cpu007", "name");
        assertThat(listed.get("recentFailures").get("failing").asBoolean()).isTrue();
    }

    private static JsonNode ok(Response response) {
        assertThat(response.status()).as("%s", response).isEqualTo(200);
        return response.json();
    }

    private static List<String> ids(JsonNode rows) {
        List<String> out = new ArrayList<>();
        rows.forEach(r -> out.add(r.get("id").asString()));
        return out;
    }

    private static JsonNode row(JsonNode rows, String id) {
        return row(rows, id, "id");
    }

    private static JsonNode row(JsonNode rows, String value, String field) {
        for (JsonNode r : rows) {
            if (value.equals(r.get(field).asString())) {
                return r;
            }
        }
        throw new AssertionError("no row with " + field + " " + value + " in " + rows);
    }
}
