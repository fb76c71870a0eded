package io.gantry.reports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * Utilization reports on real PostgreSQL: every bucket adds up (allocated + idle + down + reserved
 * = total), drained and reserved nodes show as down and reserved, and a user's allocated hours equal
 * what sacct says their jobs held, before and after the jobs are rolled up into the hourly table.
 */
@GantryIntegrationTest
class UtilizationIntegrationTests {

    @LocalServerPort
    int port;

    @Autowired
    UtilizationRecorder recorder;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void everyBucketAddsUpAndDrainedAndReservedNodesShowAsDownAndReserved() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        assertThat(api.send("PATCH", "/api/v1/nodes/cpu008", admin, Map.of("state", "DRAIN", "reason", "util test"))
                .status()).isEqualTo(200);
        Response reservation = api.send("POST", "/api/v1/reservations", admin, Map.of("name", "util-" + suffix,
                "nodes", "cpu007", "durationSeconds", 600, "users", List.of("admin"), "flags", List.of("IGNORE_JOBS")));
        assertThat(reservation.status()).as(reservation.body()).isEqualTo(201);
        try {
            recorder.sample(Instant.now().truncatedTo(ChronoUnit.SECONDS));
            recorder.sample(Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(30));
        } finally {
            api.send("PATCH", "/api/v1/nodes/cpu008", admin, Map.of("state", "RESUME"));
            api.send("DELETE", "/api/v1/reservations/util-" + suffix, admin, null);
        }
        JsonNode report = report("groupBy=cluster&interval=hour&start=" + Instant.now().minus(Duration.ofHours(3))
                + "&end=" + Instant.now().plus(Duration.ofHours(1)));
        assertThat(report.get("buckets")).isNotEmpty();
        boolean sawDown = false;
        boolean sawReserved = false;
        for (JsonNode bucket : report.get("buckets")) {
            for (String resource : List.of("gpuHours", "cpuHours")) {
                JsonNode f = bucket.get(resource);
                assertThat(f.get("allocated").asDouble() + f.get("idle").asDouble() + f.get("down").asDouble()
                        + f.get("reserved").asDouble()).as(bucket.toString()).isCloseTo(f.get("total").asDouble(),
                                within(1e-6));
            }
            sawDown |= bucket.get("cpuHours").get("down").asDouble() > 0;
            sawReserved |= bucket.get("cpuHours").get("reserved").asDouble() > 0;
        }
        assertThat(sawDown).isTrue();
        assertThat(sawReserved).isTrue();
    }

    @Test
    void aUsersAllocatedHoursEqualWhatSacctSaysBeforeAndAfterTheRollup() {
        String user = "util" + UUID.randomUUID().toString().substring(0, 8);
        Response created = api.send("POST", "/api/v1/users", admin, Map.of("username", user, "password",
                "secret-password", "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String token = api.token(user, "secret-password");
        List<Long> ids = List.of(submit(token, 2), submit(token, 1));
        ids.forEach(this::awaitCompleted);

        double gpuSeconds = 0;
        double cpuSeconds = 0;
        for (long id : ids) {
            JsonNode row = api.get("/api/v1/accounting/jobs?jobId=" + id, admin).json().get("items").get(0);
            gpuSeconds += row.get("gpuSeconds").asLong();
            cpuSeconds += row.get("cpuSeconds").asLong();
        }
        String window = "groupBy=user&interval=day&start=" + Instant.now().minus(Duration.ofDays(1)) + "&end="
                + Instant.now().plus(Duration.ofDays(1));
        assertThat(userHours(report(window), user, "gpuHours")).isCloseTo(gpuSeconds / 3600, within(1e-9));
        assertThat(userHours(report(window), user, "cpuHours")).isCloseTo(cpuSeconds / 3600, within(1e-9));

        recorder.rollUp(Instant.now().plusSeconds(1));
        assertThat(userHours(report(window), user, "gpuHours")).isCloseTo(gpuSeconds / 3600, within(1e-9));
        assertThat(userHours(report(window), user, "cpuHours")).isCloseTo(cpuSeconds / 3600, within(1e-9));
    }

    @Test
    void badParametersAre400sNamingThem() {
        for (Map.Entry<String, String> bad : Map.of("interval=week", "interval", "groupBy=partition", "groupBy",
                "start=yesterday", "start", "start=2026-12-02&end=2026-12-01", "start").entrySet()) {
            Response r = api.get("/api/v1/reports/utilization?" + bad.getKey(), admin);
            assertThat(r.status()).as(bad.getKey()).isEqualTo(400);
            assertThat(r.body()).contains("\"" + bad.getValue() + "\"");
        }
    }

    private long submit(String token, int gpus) {
        Map<String, Object> job = new HashMap<>(Map.of("gpus", gpus, "timeLimitSeconds", 600, "simulatedRunSeconds", 2));
        Response r = api.send("POST", "/api/v1/jobs", token, job);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("jobId").asLong();
    }

    private void awaitCompleted(long id) {
        await().atMost(Duration.ofSeconds(60)).until(() ->
                api.get("/api/v1/jobs/" + id, admin).json().get("state").asString().equals("COMPLETED"));
    }

    private JsonNode report(String query) {
        Response r = api.get("/api/v1/reports/utilization?" + query, admin);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    private static double userHours(JsonNode report, String user, String resource) {
        double sum = 0;
        for (JsonNode b : report.get("buckets")) {
            if (user.equals(b.get("group").asString())) {
                sum += b.get(resource).get("allocated").asDouble();
            }
        }
        return sum;
    }
}
