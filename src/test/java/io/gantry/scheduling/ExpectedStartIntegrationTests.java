package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * Expected starts as a user sees them: with the whole cpu partition taken by one job, a second job
 * that needs all of it is expected when the first one's time limit ends, a third queues behind it,
 * a held one has none, and {@code ?state=PENDING&sort=start} lists them as {@code squeue --start}.
 */
@GantryIntegrationTest
class ExpectedStartIntegrationTests {

    @LocalServerPort
    int port;

    @Autowired
    SchedulerWorker worker;

    ApiClient api;
    String admin;
    final List<Long> submitted = new ArrayList<>();

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @AfterEach
    void cancel() {
        for (long id : submitted) {
            api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> submitted.stream().allMatch(id -> {
            String state = api.get("/api/v1/jobs/" + id, admin).json().get("state").asString();
            return !state.equals("PENDING") && !state.equals("RUNNING") && !state.equals("COMPLETING");
        }));
    }

    @Test
    void theSecondOfTwoWholePartitionJobsIsExpectedWhenTheFirstOnesLimitEnds() {
        long first = submit(Map.of("name", "estimate-first", "partition", "cpu", "nodes", 8, "exclusive", true,
                "timeLimitSeconds", 1800, "simulatedRunSeconds", 1800));
        JsonNode running = api.awaitJobState(first, admin, "RUNNING", Duration.ofSeconds(30));
        Instant firstEnds = Instant.parse(running.get("startTime").asString()).plusSeconds(1800);

        long second = submit(Map.of("name", "estimate-second", "partition", "cpu", "nodes", 8, "exclusive", true,
                "timeLimitSeconds", 600, "simulatedRunSeconds", 600));
        // Behind the second in priority (a big nice: a short one-node job would otherwise rank first).
        long third = submit(Map.of("name", "estimate-third", "partition", "cpu", "nodes", 1, "exclusive", true,
                "timeLimitSeconds", 300, "simulatedRunSeconds", 300, "nice", 1_000_000));
        long held = submit(Map.of("name", "estimate-held", "partition", "cpu", "nodes", 1, "hold", true,
                "timeLimitSeconds", 300, "simulatedRunSeconds", 300));
        worker.runOnce();

        JsonNode secondView = await().atMost(Duration.ofSeconds(30)).until(() -> job(second),
                j -> !j.get("expectedStartTime").isNull());
        assertThat(secondView.get("state").asString()).isEqualTo("PENDING");
        Instant secondStart = Instant.parse(secondView.get("expectedStartTime").asString());
        // Start times are kept to the second; the first job's end is its start plus its limit.
        assertThat(Duration.between(firstEnds, secondStart).abs()).as("first %s, second %s", running, secondView)
                .isLessThanOrEqualTo(Duration.ofSeconds(1));

        // The one-node job cannot slip in before the second (no hole; it would delay it): it queues behind.
        JsonNode thirdView = await().atMost(Duration.ofSeconds(30)).until(() -> job(third),
                j -> !j.get("expectedStartTime").isNull());
        assertThat(Duration.between(secondStart.plusSeconds(600),
                Instant.parse(thirdView.get("expectedStartTime").asString())).abs())
                .as("first ends %s, second %s, third %s", firstEnds, secondView, thirdView)
                .isLessThanOrEqualTo(Duration.ofSeconds(1));

        JsonNode heldView = job(held);
        assertThat(heldView.get("reason").asString()).isEqualTo("JobHeldUser");
        assertThat(heldView.get("expectedStartTime").isNull()).isTrue();

        List<Long> queue = new ArrayList<>();
        for (JsonNode j : api.get("/api/v1/jobs?state=PENDING&sort=start&size=1000", admin).json().get("items")) {
            long id = j.get("jobId").asLong();
            if (id == second || id == third || id == held) {
                queue.add(id);
            }
        }
        assertThat(queue).containsExactly(second, third, held);
    }

    private JsonNode job(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json();
    }

    private long submit(Map<String, Object> job) {
        Response r = api.send("POST", "/api/v1/jobs", admin, job);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        long id = r.json().get("jobId").asLong();
        submitted.add(id);
        return id;
    }
}
