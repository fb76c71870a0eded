package io.gantry.reports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.scheduling.WaitingJobs;
import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * The idle-cause report on the whole controller and real PostgreSQL: a drained node, a down node,
 * an advance reservation, a job blocked by its association's GPU limit, a job waiting for one leaf
 * switch and a job wanting more nodes than are up each show up as their cause, and in every bucket the causes add up
 * exactly to the non-allocated GPU-seconds (idle + down + reserved).
 */
@GantryIntegrationTest
class IdleCausesIntegrationTests {

    private static final List<String> CAUSES = List.of("noDemand", "reserved", "fragmented", "topology", "limits",
            "draining", "down");

    @LocalServerPort
    int port;

    @Autowired
    UtilizationRecorder recorder;

    @Autowired
    WaitingJobs waiting;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void eachCauseShowsAndTheCausesAddUpToTheNonAllocatedGpuTime() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String window = "groupBy=cluster&interval=hour&start=" + Instant.now().minus(Duration.ofHours(2)) + "&end="
                + Instant.now().plus(Duration.ofHours(2));
        List<Long> jobs = new ArrayList<>();
        String reservation = "idle-" + suffix;
        try {
            // A user whose association may hold one GPU: the second 1-GPU job waits for the limit alone.
            String account = "idle" + suffix;
            created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", account, "parent", "root")));
            String user = "idle" + suffix;
            created(api.send("POST", "/api/v1/users", admin, Map.of("username", user, "password", "secret-password",
                    "defaultAccount", account)));
            long association = api.get("/api/v1/associations?user=" + user, admin).json().get("items").valueStream()
                    .filter(a -> a.get("account").asString().equals(account)).findFirst().orElseThrow().get("id")
                    .asLong();
            assertThat(api.send("PATCH", "/api/v1/associations/" + association, admin,
                    Map.of("grpTres", "gres/gpu=1")).status()).isEqualTo(200);
            String token = api.token(user, "secret-password");

            node("gpu016", "DRAIN");
            node("gpu015", "DOWN");
            created(api.send("POST", "/api/v1/reservations", admin, Map.of("name", reservation, "nodes", "gpu014",
                    "durationSeconds", 600, "users", List.of("admin"), "flags", List.of("IGNORE_JOBS"))));

            long running = submit(token, Map.of("gpus", 1));
            jobs.add(running);
            await().atMost(Duration.ofSeconds(30)).until(() -> state(running).equals("RUNNING"));
            long limited = submit(token, Map.of("gpus", 1));
            jobs.add(limited);
            // 8 GPUs on each of the 16 GPU nodes: never while three of them are out (ReqNodeNotAvail), so
            // the free GPUs of the others are too few together for it.
            long wide = submit(admin, Map.of("nodes", 16, "gpusPerNode", 8));
            jobs.add(wide);
            // Five nodes under one leaf switch (of four nodes): it could start now on two, and waits.
            long leafBound = submit(admin, Map.of("nodes", 5, "gpusPerNode", 1, "switches", "1@5:00"));
            jobs.add(leafBound);
            await().atMost(Duration.ofSeconds(30)).until(() -> planned(limited, "AssocGrpGRES") && planned(wide, null)
                    && planned(leafBound, "TopologyWait"));

            Map<String, Long> before = causes(report(window));
            // Past any sample another test took ahead of the clock, so both samples count.
            Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(60);
            recorder.sample(now);
            recorder.sample(now.plusSeconds(30));
            JsonNode after = report(window);
            Map<String, Long> added = causes(after);
            added.replaceAll((cause, seconds) -> seconds - before.get(cause));
            for (String cause : List.of("draining", "down", "reserved", "limits", "topology", "fragmented")) {
                assertThat(added.get(cause)).as(cause + " in " + added).isPositive();
            }
            assertThat(added.get("down")).as("gpu015's 8 GPUs, at least the 30 s between the samples")
                    .isGreaterThanOrEqualTo(8 * 30);
            assertAddsUp(after);
            assertAddsUp(report(window.replace("interval=hour", "interval=day")));
        } finally {
            jobs.forEach(id -> api.send("DELETE", "/api/v1/jobs/" + id, admin, null));
            node("gpu016", "RESUME");
            node("gpu015", "RESUME");
            api.send("DELETE", "/api/v1/reservations/" + reservation, admin, null);
        }
    }

    @Test
    void groupedReportsGiveNoIdleCauses() {
        JsonNode report = report("groupBy=account&interval=day");
        for (JsonNode bucket : report.get("buckets")) {
            assertThat(bucket.get("idleCauses").isNull()).isTrue();
        }
    }

    /** In every bucket, the causes are whole GPU-seconds adding up to idle + down + reserved. */
    private static void assertAddsUp(JsonNode report) {
        assertThat(report.get("buckets")).isNotEmpty();
        for (JsonNode bucket : report.get("buckets")) {
            JsonNode f = bucket.get("gpuHours");
            long nonAllocated = Math.round((f.get("idle").asDouble() + f.get("down").asDouble()
                    + f.get("reserved").asDouble()) * 3600);
            long sum = 0;
            for (String cause : CAUSES) {
                JsonNode v = bucket.get("idleCauses").get(cause);
                assertThat(v.isIntegralNumber()).as(cause).isTrue();
                sum += v.asLong();
            }
            assertThat(sum).as(bucket.toString()).isEqualTo(nonAllocated);
            assertThat(bucket.get("idleCauses").get("down").asLong() + bucket.get("idleCauses").get("draining").asLong())
                    .as("down and draining are the report's down").isEqualTo(Math.round(f.get("down").asDouble() * 3600));
        }
    }

    private boolean planned(long jobId, String reason) {
        return waiting.lastFullPass().stream().anyMatch(p -> p.job().jobId() == jobId
                && (reason == null || reason.equals(p.waiting().reason().slurmName())));
    }

    private static Map<String, Long> causes(JsonNode report) {
        Map<String, Long> sums = new HashMap<>();
        CAUSES.forEach(c -> sums.put(c, 0L));
        for (JsonNode bucket : report.get("buckets")) {
            CAUSES.forEach(c -> sums.merge(c, bucket.get("idleCauses").get(c).asLong(), Long::sum));
        }
        return sums;
    }

    private void node(String name, String state) {
        Map<String, Object> body = new HashMap<>(Map.of("state", state));
        if (!state.equals("RESUME")) {
            body.put("reason", "idle causes test");
        }
        Response r = api.send("PATCH", "/api/v1/nodes/" + name, admin, body);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
    }

    private long submit(String token, Map<String, Object> resources) {
        Map<String, Object> job = new HashMap<>(resources);
        job.put("partition", "gpu");
        job.put("timeLimitSeconds", 600);
        job.put("simulatedRunSeconds", 600);
        Response r = api.send("POST", "/api/v1/jobs", token, job);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("jobId").asLong();
    }

    private String state(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json().get("state").asString();
    }

    private JsonNode report(String query) {
        Response r = api.get("/api/v1/reports/utilization?" + query, admin);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    private static void created(Response r) {
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }
}
