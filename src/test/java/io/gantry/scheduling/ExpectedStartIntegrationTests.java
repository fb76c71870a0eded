package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import io.gantry.support.SseClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Expected starts as a user sees them: with the whole cpu partition taken by one job, a second job
 * that needs all of it is expected when the first one's time limit ends, a third queues behind it,
 * a held one has none, and {@code ?state=PENDING&sort=start} lists them as {@code squeue --start}.
 * A pending job's owner hears ({@code REPLANNED} on the event stream) when its reason changes or its
 * expected start appears or moves by a minute and a tenth of the wait or more, and not of smaller moves.
 */
@GantryIntegrationTest
class ExpectedStartIntegrationTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration PATIENCE = Duration.ofSeconds(30);

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

    @Test
    void aPendingJobsOwnerHearsWhenItsReasonOrExpectedStartChangesButNotOfSmallMoves() throws Exception {
        String owner = "replan" + UUID.randomUUID().toString().substring(0, 8);
        Response created = api.send("POST", "/api/v1/users", admin, Map.of("username", owner,
                "password", "secret-password", "roles", List.of("USER"), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String token = api.token(owner, "secret-password");

        long first = submit(Map.of("name", "replan-first", "partition", "cpu", "nodes", 8, "exclusive", true,
                "timeLimitSeconds", 300, "simulatedRunSeconds", 300));
        JsonNode running = api.awaitJobState(first, admin, "RUNNING", PATIENCE);
        Instant firstStarted = Instant.parse(running.get("startTime").asString());
        Instant firstEnds = firstStarted.plusSeconds(300);
        long waiting = submit(token, Map.of("name", "replan-waiting", "partition", "cpu", "nodes", 8,
                "exclusive", true, "hold", true, "timeLimitSeconds", 600, "simulatedRunSeconds", 600));

        try (SseClient stream = SseClient.open(port, token, null)) {
            assertThat(stream.status()).isEqualTo(200);
            stream.awaitComment("connected");

            // Released, it waits for the whole partition: a reason and an expected start it did not
            // have, which its owner hears of without asking.
            Response released = api.send("POST", "/api/v1/jobs/" + waiting + "/release", token, null);
            assertThat(released.status()).as(released.body()).isEqualTo(200);
            worker.runOnce();
            JsonNode planned = await().atMost(PATIENCE).until(() -> job(waiting),
                    j -> List.of("Resources", "Priority").contains(j.get("reason").asString())
                            && !j.get("expectedStartTime").isNull());
            assertThat(Duration.between(firstEnds, Instant.parse(planned.get("expectedStartTime").asString())).abs())
                    .isLessThanOrEqualTo(Duration.ofSeconds(1));
            await().atMost(PATIENCE).until(() -> replanned(stream, waiting) >= 1);
            settle(stream, token);
            int heard = replanned(stream, waiting);

            // Passes that change nothing say nothing.
            worker.runOnce();
            worker.runOnce();
            await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(10))
                    .until(() -> replanned(stream, waiting) == heard);

            // The first job may run 30 s longer: the expected start, minutes away, moves by 30 s,
            // which is stored but not announced.
            moveEnd(first, 330);
            awaitExpectedStart(waiting, firstStarted.plusSeconds(330));
            settle(stream, token);
            assertThat(replanned(stream, waiting)).as("a 30 s move is not announced").isEqualTo(heard);

            // 40 s more: 70 s from what its owner was last told, though 40 s from the last write.
            moveEnd(first, 370);
            awaitExpectedStart(waiting, firstStarted.plusSeconds(370));
            await().atMost(PATIENCE).until(() -> replanned(stream, waiting) >= heard + 1);
            assertThat(replanned(stream, waiting)).as("one event for a 70 s move").isEqualTo(heard + 1);

            // An hour more: announced; then, with the start an hour away, a move of 200 s is not
            // (less than a tenth of the wait), though it would have been minutes before.
            moveEnd(first, 3900);
            awaitExpectedStart(waiting, firstStarted.plusSeconds(3900));
            await().atMost(PATIENCE).until(() -> replanned(stream, waiting) >= heard + 2);
            assertThat(replanned(stream, waiting)).as("one event for an hour's move").isEqualTo(heard + 2);
            moveEnd(first, 4100);
            awaitExpectedStart(waiting, firstStarted.plusSeconds(4100));
            settle(stream, token);
            assertThat(replanned(stream, waiting)).as("a 200 s move of a start an hour away is not announced")
                    .isEqualTo(heard + 2);
        }
    }

    /** How many REPLANNED events of job {@code id} the stream carried. */
    private static int replanned(SseClient stream, long id) {
        return (int) stream.events().stream().filter(e -> "job".equals(e.event()))
                .map(e -> JSON.readTree(e.data()))
                .filter(d -> d.get("id").asString().equals(Long.toString(id))
                        && "REPLANNED".equals(d.get("change").asString()))
                .count();
    }

    /**
     * Waits until the stream carried the event of a job submitted now: events arrive in order, so
     * everything published before it has arrived too.
     */
    private void settle(SseClient stream, String token) {
        long marker = submit(token, Map.of("name", "replan-marker", "partition", "cpu", "hold", true));
        await().atMost(PATIENCE).until(() -> stream.events().stream().filter(e -> "job".equals(e.event()))
                .map(e -> JSON.readTree(e.data()))
                .anyMatch(d -> d.get("id").asString().equals(Long.toString(marker))));
    }

    private void moveEnd(long running, long timeLimitSeconds) {
        Response patched = api.send("PATCH", "/api/v1/jobs/" + running, admin,
                Map.of("timeLimitSeconds", timeLimitSeconds));
        assertThat(patched.status()).as(patched.body()).isEqualTo(200);
        worker.runOnce();
    }

    private void awaitExpectedStart(long id, Instant expected) {
        await().atMost(PATIENCE).until(() -> job(id), j -> !j.get("expectedStartTime").isNull()
                && Duration.between(expected, Instant.parse(j.get("expectedStartTime").asString())).abs()
                        .compareTo(Duration.ofSeconds(1)) <= 0);
    }

    private JsonNode job(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json();
    }

    private long submit(Map<String, Object> job) {
        return submit(admin, job);
    }

    private long submit(String token, Map<String, Object> job) {
        Response r = api.send("POST", "/api/v1/jobs", token, job);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        long id = r.json().get("jobId").asLong();
        submitted.add(id);
        return id;
    }
}
