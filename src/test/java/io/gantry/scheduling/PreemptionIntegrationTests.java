package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * QOS preemption end to end on real PostgreSQL: with the cpu partition full of low-QOS jobs, a job
 * of a QOS that may preempt them starts at once; exactly one victim goes back to the queue
 * (REQUEUE), says why in its history, and later runs again to completion.
 */
@GantryIntegrationTest
class PreemptionIntegrationTests {

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void aHighQosJobPreemptsALowOneWhichIsRequeuedAndLaterCompletes() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String low = "pre-low-" + suffix;
        String high = "pre-high-" + suffix;
        created(api.send("POST", "/api/v1/qos", admin, Map.of("name", low, "priority", 0)));
        created(api.send("POST", "/api/v1/qos", admin, Map.of("name", high, "priority", 100,
                "preempt", List.of(low), "preemptMode", "REQUEUE")));

        List<Long> lows = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            lows.add(submit(Map.of("name", "pre-low", "partition", "cpu", "exclusive", true, "qos", low,
                    "timeLimitSeconds", 600, "simulatedRunSeconds", 15)));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> lows.stream().allMatch(id -> state(id).equals("RUNNING")));

        long urgent = submit(Map.of("name", "pre-high", "partition", "cpu", "exclusive", true, "qos", high,
                "timeLimitSeconds", 600, "simulatedRunSeconds", 2));
        await().atMost(Duration.ofSeconds(30)).until(() -> !state(urgent).equals("PENDING"));
        List<Long> requeued = lows.stream()
                .filter(id -> api.get("/api/v1/jobs/" + id, admin).json().get("requeueCount").asInt() == 1).toList();
        assertThat(requeued).hasSize(1);
        long victim = requeued.get(0);
        JsonNode history = api.get("/api/v1/jobs/" + victim + "/events", admin).json();
        assertThat(history.toString()).contains("REQUEUED", "preempted by job " + urgent);

        await().atMost(Duration.ofSeconds(60)).until(() -> state(urgent).equals("COMPLETED"));
        await().atMost(Duration.ofSeconds(90)).until(() -> state(victim).equals("COMPLETED"));
        assertThat(lows.stream().filter(id -> id != victim).allMatch(id -> !state(id).equals("PENDING"))).isTrue();
    }

    private static void created(Response r) {
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    private long submit(Map<String, Object> job) {
        Response r = api.send("POST", "/api/v1/jobs", admin, job);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("jobId").asLong();
    }

    private String state(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json().get("state").asString();
    }
}
