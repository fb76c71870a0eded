package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * Usage, fair share and priority on real PostgreSQL, checked against each other: the usage
 * {@code /fairshare} reports equals what {@code /accounting/jobs} says the jobs held, to the second;
 * the fair-share factor {@code /priority} shows for a pending job is the one {@code /fairshare}
 * shows for its association; usage decays by half over one half-life.
 */
@GantryIntegrationTest
class FairShareIntegrationTests {

    @LocalServerPort
    int port;

    @Autowired
    FairShareService fairShare;

    @Autowired
    FairShareProperties properties;

    @Autowired
    JdbcTemplate jdbc;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void usageMatchesAccountingFairShareRanksTheLighterAccountFirstAndPriorityShowsTheSameFactor() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String heavyAccount = "fs-heavy-" + suffix;
        String lightAccount = "fs-light-" + suffix;
        create("/api/v1/accounts", Map.of("name", heavyAccount, "parent", "root", "shares", 1));
        create("/api/v1/accounts", Map.of("name", lightAccount, "parent", "root", "shares", 1));
        String heavy = user("fsh" + suffix.substring(0, 6), heavyAccount);
        String light = user("fsl" + suffix.substring(0, 6), lightAccount);

        // The heavy user runs three 4-CPU, 1-GPU jobs; the light one a single 1-CPU job.
        List<Long> heavyJobs = List.of(submit(heavy, 4, 1, 3), submit(heavy, 4, 1, 3), submit(heavy, 4, 1, 3));
        long lightJob = submit(light, 1, 0, 1);
        heavyJobs.forEach(id -> awaitState(id, "COMPLETED"));
        awaitState(lightJob, "COMPLETED");
        fairShare.accrue(Instant.now());

        // Usage to the second: billing (cpu weight x CPUs + gpu weight x GPUs) x elapsed, as sacct reports them.
        double expectedHeavy = 0;
        for (long id : heavyJobs) {
            JsonNode row = sacct(id);
            expectedHeavy += properties.cpuWeight() * row.get("cpuSeconds").asLong()
                    + properties.gpuWeight() * row.get("gpuSeconds").asLong();
        }
        JsonNode heavyLine = line(heavyAccount, heavy);
        JsonNode lightLine = line(lightAccount, light);
        assertThat(heavyLine.get("rawUsageTotal").asDouble()).isCloseTo(expectedHeavy, within(0.001));
        assertThat(lightLine.get("rawUsageTotal").asDouble())
                .isCloseTo(properties.cpuWeight() * sacct(lightJob).get("cpuSeconds").asLong(), within(0.001));
        assertThat(line(heavyAccount, null).get("rawUsageTotal").asDouble()).isCloseTo(expectedHeavy, within(0.001));
        // Beside the billing units, GPU-seconds as sacct counts them (the dashboard's GPU-hours): the
        // heavy user's three 1-GPU jobs, the light user's none; an account's are its users'.
        long heavyGpuSeconds = heavyJobs.stream().mapToLong(id -> sacct(id).get("gpuSeconds").asLong()).sum();
        assertThat(heavyGpuSeconds).isPositive();
        assertThat(heavyLine.get("gpuUsageTotal").asDouble()).isCloseTo(heavyGpuSeconds, within(0.001));
        assertThat(heavyLine.get("gpuUsage").asDouble()).isPositive().isLessThanOrEqualTo(heavyGpuSeconds + 0.001);
        assertThat(lightLine.get("gpuUsageTotal").asDouble()).isZero();
        assertThat(line(heavyAccount, null).get("gpuUsageTotal").asDouble()).isCloseTo(heavyGpuSeconds, within(0.001));

        // Equal shares, less usage: the light user's factor is higher.
        double heavyFactor = heavyLine.get("fairShareFactor").asDouble();
        double lightFactor = lightLine.get("fairShareFactor").asDouble();
        assertThat(lightFactor).isGreaterThan(heavyFactor);

        // A pending job of each (the cpu nodes are reserved for maintenance meanwhile) shows that same
        // factor in /priority.
        String maint = "fs-maint-" + suffix;
        create("/api/v1/reservations", Map.of("name", maint, "nodes", "cpu[001-008]", "durationSeconds", 900,
                "users", List.of("admin"), "flags", List.of("MAINT", "IGNORE_JOBS")));
        long heavyPending = submitLater(heavy);
        long lightPending = submitLater(light);
        // The next cycle after the accrual plans with the new factors.
        await().atMost(Duration.ofSeconds(30)).until(() -> priority(heavyPending) != null && priority(lightPending) != null
                && priority(heavyPending).get("factors").get("fairShare").asDouble() == heavyFactor
                && priority(lightPending).get("factors").get("fairShare").asDouble() == lightFactor);
        assertThat(priority(heavyPending).get("factors").get("fairShare").asDouble()).isEqualTo(heavyFactor);
        assertThat(priority(lightPending).get("factors").get("fairShare").asDouble()).isEqualTo(lightFactor);
        assertThat(priority(heavyPending).get("weighted").get("fairShare").asLong())
                .isEqualTo(Math.round(heavyFactor * api.get("/api/v1/priority", admin).json().get("weights")
                        .get("fairShare").asDouble()));
        assertThat(priority(lightPending).get("reason").asString()).isEqualTo("ReqNodeNotAvail, Reserved for maintenance");
        api.send("DELETE", "/api/v1/jobs/" + heavyPending, admin, null);
        api.send("DELETE", "/api/v1/jobs/" + lightPending, admin, null);
        api.send("DELETE", "/api/v1/reservations/" + maint, admin, null);
    }

    @Test
    void usageAndGpuUsageDecayByHalfAfterOneHalfLife() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String account = "fs-decay-" + suffix;
        create("/api/v1/accounts", Map.of("name", account, "parent", "root", "shares", 1));
        String user = user("fsd" + suffix.substring(0, 6), account);
        awaitState(submit(user, 2, 1, 1), "COMPLETED");
        fairShare.accrue(Instant.now());
        double before = decayed(account, user);
        assertThat(before).isPositive();
        double gpuBefore = line(account, user).get("gpuUsage").asDouble();
        assertThat(gpuBefore).isPositive();

        Instant last = jdbc.queryForObject("SELECT last_tick FROM fairshare_state WHERE id = 1",
                OffsetDateTime.class).toInstant();
        try {
            fairShare.accrue(last.plus(properties.decayHalfLife()));
            assertThat(decayed(account, user)).isCloseTo(before / 2, within(before * 1e-4));
            assertThat(line(account, user).get("rawUsageTotal").asDouble()).isCloseTo(before, within(1e-6));
            // GPU-seconds decay alike; their total does not.
            assertThat(line(account, user).get("gpuUsage").asDouble()).isCloseTo(gpuBefore / 2, within(gpuBefore * 1e-4));
            assertThat(line(account, user).get("gpuUsageTotal").asDouble()).isCloseTo(gpuBefore, within(1e-6));
        } finally {
            // Back to the real clock, so that later accruals count from now again.
            jdbc.update("UPDATE fairshare_state SET last_tick = ? WHERE id = 1",
                    OffsetDateTime.ofInstant(Instant.now(), java.time.ZoneOffset.UTC));
        }
    }

    private double decayed(String account, String user) {
        return jdbc.queryForObject("SELECT usage_decayed FROM association_usage WHERE account = ? AND user_name = ?",
                Double.class, account, user);
    }

    private void create(String path, Map<String, Object> body) {
        Response r = api.send("POST", path, admin, body);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    private String user(String name, String account) {
        create("/api/v1/users", new HashMap<>(Map.of("username", name, "password", "secret-password",
                "defaultAccount", account)));
        return name;
    }

    private long submit(String user, int cpus, int gpus, long seconds) {
        String token = api.token(user, "secret-password");
        Map<String, Object> job = new HashMap<>(Map.of("partition", gpus > 0 ? "gpu" : "cpu", "cpusPerTask", cpus,
                "timeLimitSeconds", 600, "simulatedRunSeconds", seconds));
        if (gpus > 0) {
            job.put("gpus", gpus);
        }
        Response r = api.send("POST", "/api/v1/jobs", token, job);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("jobId").asLong();
    }

    private long submitLater(String user) {
        Response r = api.send("POST", "/api/v1/jobs", api.token(user, "secret-password"), Map.of("partition", "cpu",
                "timeLimitSeconds", 600));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("jobId").asLong();
    }

    private void awaitState(long id, String state) {
        await().atMost(Duration.ofSeconds(60)).until(() ->
                api.get("/api/v1/jobs/" + id, admin).json().get("state").asString().equals(state));
    }

    private JsonNode sacct(long id) {
        JsonNode rows = api.get("/api/v1/accounting/jobs?jobId=" + id, admin).json().get("items");
        assertThat(rows).hasSize(1);
        return rows.get(0);
    }

    private JsonNode line(String account, String user) {
        for (JsonNode l : api.get("/api/v1/fairshare", admin).json()) {
            boolean sameUser = user == null ? l.get("user").isNull() : user.equals(l.get("user").asString());
            if (account.equals(l.get("account").asString()) && sameUser) {
                return l;
            }
        }
        throw new AssertionError("no fair-share line for " + account + "/" + user);
    }

    private JsonNode priority(long jobId) {
        for (JsonNode j : api.get("/api/v1/priority", admin).json().get("jobs")) {
            if (j.get("jobId").asString().equals(Long.toString(jobId))) {
                return j;
            }
        }
        return null;
    }
}
