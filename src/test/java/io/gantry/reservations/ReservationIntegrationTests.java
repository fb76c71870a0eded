package io.gantry.reservations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * Advance reservations on the demo cluster's cpu partition (cpu[001-008]), on real PostgreSQL.
 * Every test deletes what it reserved, so other test classes find the nodes free.
 */
@GantryIntegrationTest
class ReservationIntegrationTests {

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;
    final List<String> created = new ArrayList<>();
    final List<Long> jobs = new ArrayList<>();

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @AfterEach
    void cleanUp() {
        jobs.forEach(id -> api.send("DELETE", "/api/v1/jobs/" + id, admin, null));
        created.forEach(name -> api.send("DELETE", "/api/v1/reservations/" + name, admin, null));
    }

    @Test
    void aMaintenanceReservationKeepsEveryJobOffItsNodesDuringItsWindow() {
        Response maint = create(Map.of("name", "it-maint", "nodes", "cpu[007-008]", "durationSeconds", 3600,
                "users", List.of("admin"), "flags", List.of("MAINT", "IGNORE_JOBS")));
        assertThat(maint.status()).as(maint.body()).isEqualTo(201);
        assertThat(maint.json().get("state").asString()).isEqualTo("ACTIVE");

        // Eight whole cpu nodes asked for, one each: six run beside the window, two wait for maintenance.
        for (int i = 0; i < 8; i++) {
            submit(Map.of("name", "it-maint-job", "partition", "cpu", "exclusive", true,
                    "timeLimitSeconds", 600, "simulatedRunSeconds", 600));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> states().get("RUNNING") == 6);
        List<JsonNode> all = jobs.stream().map(id -> api.get("/api/v1/jobs/" + id, admin).json()).toList();
        for (JsonNode job : all) {
            if (job.get("state").asString().equals("RUNNING")) {
                assertThat(job.get("allocatedNodes").asString()).isNotIn("cpu007", "cpu008");
            } else {
                assertThat(job.get("state").asString()).isEqualTo("PENDING");
                await().atMost(Duration.ofSeconds(30)).until(() -> api.get("/api/v1/jobs/" + job.get("jobId").asLong(),
                        admin).json().get("reason").asString().equals("ReqNodeNotAvail, Reserved for maintenance"));
            }
        }

        // Maintenance over: the waiting jobs take the nodes.
        assertThat(api.send("DELETE", "/api/v1/reservations/it-maint", admin, null).status()).isEqualTo(204);
        await().atMost(Duration.ofSeconds(60)).until(() -> states().get("RUNNING") == 8);
    }

    @Test
    void aJobThatNamesAReservationRunsOnlyOnItsNodesAndOthersMayNotNameIt() {
        Response team = create(Map.of("name", "it-team", "nodeCount", 2, "partition", "cpu",
                "startTime", Instant.now().minusSeconds(5).toString(), "durationSeconds", 3600,
                "users", List.of("admin"), "flags", List.of("IGNORE_JOBS")));
        assertThat(team.status()).as(team.body()).isEqualTo(201);
        String nodes = team.json().get("nodes").asString();
        assertThat(team.json().get("nodeCount").asInt()).isEqualTo(2);

        long inside = submit(Map.of("name", "it-team-job", "partition", "cpu", "nodes", 2, "exclusive", true,
                "reservation", "it-team", "timeLimitSeconds", 600, "simulatedRunSeconds", 2));
        JsonNode done = awaitState(inside, "COMPLETED");
        assertThat(done.get("allocatedNodes").asString()).isEqualTo(nodes);

        Response unknown = api.send("POST", "/api/v1/jobs", admin, Map.of("partition", "cpu", "reservation", "nope",
                "timeLimitSeconds", 60));
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.body()).contains("reservation", "unknown reservation 'nope'");
    }

    @Test
    void badReservationsAreRefusedNamingWhatIsWrong() {
        Response invalid = api.send("POST", "/api/v1/reservations", admin, Map.of("name", "it-bad",
                "nodes", "cpu[001-002],nosuch9", "startTime", "2030-01-01T10:00:00Z", "endTime", "2030-01-01T09:00:00Z",
                "flags", List.of("WEEKLY")));
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.body()).contains("\"endTime\"", "\"users\"", "\"flags\"", "WEEKLY", "\"nodes\"", "nosuch9");
        assertThat(api.get("/api/v1/reservations/it-bad", admin).status()).isEqualTo(404);

        Response first = create(Map.of("name", "it-first", "nodes", "cpu001", "startTime", "2030-01-01T00:00:00Z",
                "durationSeconds", 3600, "users", List.of("admin")));
        assertThat(first.status()).isEqualTo(201);
        assertThat(first.json().get("state").asString()).isEqualTo("INACTIVE");
        Response overlapping = create(Map.of("name", "it-second", "nodes", "cpu[001-002]",
                "startTime", "2030-01-01T00:30:00Z", "durationSeconds", 3600, "users", List.of("admin")));
        assertThat(overlapping.status()).isEqualTo(409);
        assertThat(overlapping.body()).contains("cpu001");
        assertThat(create(Map.of("name", "it-first", "nodes", "cpu003", "durationSeconds", 60,
                "users", List.of("admin"))).status()).isEqualTo(409);
        assertThat(create(Map.of("name", "it-nobody", "nodes", "cpu003", "durationSeconds", 60,
                "users", List.of("no-such-user"))).body()).contains("users[0]");

        Response later = api.send("PATCH", "/api/v1/reservations/it-first", admin, Map.of("durationSeconds", 7200));
        assertThat(later.status()).as(later.body()).isEqualTo(200);
        assertThat(later.json().get("durationSeconds").asLong()).isEqualTo(7200);
    }

    @Test
    void nodesRunningJobsCannotBeReservedWithoutIgnoreJobs() {
        long running = submit(Map.of("name", "it-busy", "partition", "cpu", "timeLimitSeconds", 3600,
                "simulatedRunSeconds", 600));
        String node = awaitState(running, "RUNNING").get("allocatedNodes").asString();
        Response busy = create(Map.of("name", "it-busy-res", "nodes", node, "durationSeconds", 600,
                "users", List.of("admin")));
        assertThat(busy.status()).isEqualTo(409);
        assertThat(busy.body()).contains(node, "IGNORE_JOBS");
    }

    private Response create(Map<String, Object> body) {
        Response response = api.send("POST", "/api/v1/reservations", admin, body);
        if (response.status() == 201) {
            created.add(response.json().get("name").asString());
        }
        return response;
    }

    private long submit(Map<String, Object> job) {
        Response response = api.send("POST", "/api/v1/jobs", admin, job);
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        long id = response.json().get("jobId").asLong();
        jobs.add(id);
        return id;
    }

    private Map<String, Integer> states() {
        Map<String, Integer> counts = new HashMap<>(Map.of("RUNNING", 0, "PENDING", 0));
        for (long id : jobs) {
            counts.merge(api.get("/api/v1/jobs/" + id, admin).json().get("state").asString(), 1, Integer::sum);
        }
        return counts;
    }

    private JsonNode awaitState(long id, String state) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            last[0] = api.get("/api/v1/jobs/" + id, admin).json();
            return last[0].get("state").asString().equals(state);
        });
        return last[0];
    }
}
