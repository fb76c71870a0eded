package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * Guaranteed GPU quotas end to end on real PostgreSQL (issue 16): validation of the quota fields,
 * {@code GET /quotas}, a team borrowing its idle sibling's guarantee, the owner's job waiting as
 * WaitingForReclaim through the borrower's QOS grace time, the borrower ending PREEMPTED (it does
 * not allow requeue) with a RECLAIM event, and sacct's borrowed marker; a two-level tree, whose
 * accounts borrow inside their parent and then above it, and a new leader that reads back from the
 * store which running jobs borrow.
 */
@GantryIntegrationTest
class QuotaIntegrationTests {

    @LocalServerPort
    int port;

    @org.springframework.beans.factory.annotation.Autowired
    SchedulerWorker worker;

    @org.springframework.beans.factory.annotation.Autowired
    SchedulingCycle cycle;

    @org.springframework.beans.factory.annotation.Autowired
    QuotaReclaims reclaims;

    @org.springframework.beans.factory.annotation.Autowired
    LiveJobs live;

    @org.springframework.beans.factory.annotation.Autowired
    io.gantry.accounting.QuotaMarks marks;

    @org.springframework.beans.factory.annotation.Autowired
    org.springframework.jdbc.core.JdbcTemplate jdbc;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void quotaFieldsAreValidatedAndAChildCannotBeGuaranteedMoreThanItsParent() {
        String s = UUID.randomUUID().toString().substring(0, 8);
        String parent = "qv-" + s;
        created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", parent, "guaranteedTres", "gres/gpu=8")));
        assertThat(api.get("/api/v1/accounts/" + parent, admin).json().get("guaranteedTres").asString())
                .isEqualTo("gres/gpu=8");

        Response over = api.send("POST", "/api/v1/accounts", admin, Map.of("name", parent + "-c", "parent", parent,
                "guaranteedTres", "gres/gpu=16"));
        assertProblem(over, "guaranteedTres", "more than its own 8");
        assertThat(api.get("/api/v1/accounts/" + parent + "-c", admin).status()).as("nothing written").isEqualTo(404);

        assertProblem(api.send("POST", "/api/v1/accounts", admin, Map.of("name", parent + "-d", "parent", parent,
                "guaranteedTres", "gres/gpu=lots")), "guaranteedTres", "not a GPU count");
        assertProblem(api.send("POST", "/api/v1/accounts", admin, Map.of("name", parent + "-e", "parent", parent,
                "maxBorrowTres", "cpu=4")), "maxBorrowTres", "quotas count GPUs");

        created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", parent + "-f", "parent", parent,
                "guaranteedTres", "gres/gpu=6", "maxLendTres", "gres/gpu=2")));
        assertProblem(api.send("PATCH", "/api/v1/accounts/" + parent, admin, Map.of("guaranteedTres", "gres/gpu=4")),
                "guaranteedTres", "child accounts are guaranteed 6");
        assertThat(api.get("/api/v1/accounts/" + parent, admin).json().get("guaranteedTres").asString())
                .as("the refused change left it as it was").isEqualTo("gres/gpu=8");

        assertProblem(api.send("POST", "/api/v1/qos", admin, Map.of("name", "qv-qos-" + s, "graceSeconds", -5)),
                "graceSeconds", "0 or more");

        // Clean up so that no guarantee is left for other tests' jobs.
        api.send("PATCH", "/api/v1/accounts/" + parent + "-f", admin, Map.of("guaranteedTres", ""));
        api.send("PATCH", "/api/v1/accounts/" + parent, admin, Map.of("guaranteedTres", ""));
    }

    @Test
    void aBorrowerIsReclaimedAfterItsGraceTimeAndSacctMarksIt() {
        String s = UUID.randomUUID().toString().substring(0, 8);
        String lender = "qb-" + s;
        String borrower = "qa-" + s;
        String graceQos = "qgrace-" + s;
        twoTeams(lender, borrower, graceQos, 6);
        List<Long> jobs = new ArrayList<>();
        try {
            // The borrower fills all 16 nodes: 8 within its guarantee, 8 on the lender's idle one.
            fillWithBorrower(jobs, borrower, graceQos, "q-borrow", 600);
            assertThat(quota(borrower).get("inUse").asLong()).isEqualTo(128);
            assertThat(quota(lender).get("lent").asLong()).isEqualTo(64);
            assertThat(quota(lender).get("guaranteed").asLong()).isEqualTo(64);

            long owner = submit(Map.of("name", "q-owner", "partition", "gpu", "account", lender, "nodes", 1,
                    "gpusPerNode", 8, "timeLimitSeconds", 600, "simulatedRunSeconds", 30));
            jobs.add(owner);
            await().atMost(Duration.ofSeconds(20)).until(() -> "WaitingForReclaim".equals(job(owner).get("reason")
                    .asString()));
            assertThat(quota(lender).get("pendingDemand").asLong()).isEqualTo(8);
            await().atMost(Duration.ofSeconds(40)).until(() -> state(owner).equals("RUNNING"));

            List<Long> victims = jobs.stream().filter(id -> id != owner && state(id).equals("PREEMPTED")).toList();
            assertThat(victims).as("one borrowing job makes room for the owner's 8 GPUs").hasSize(1);
            long victim = victims.get(0);
            JsonNode history = api.get("/api/v1/jobs/" + victim + "/events", admin).json();
            assertThat(history.toString()).contains("RECLAIM", "grace time of 6 s", "job " + owner);
            // Warned with its own --signal as its grace time starts, as Slurm's GraceTime does; stopped at its end.
            JsonNode warned = event(history, "SIGNALLED");
            assertThat(warned.get("detail").asString())
                    .isEqualTo("SIGUSR1 sent to its batch shell as its grace time of 6 s starts; it is stopped when "
                            + "the grace time is over");
            assertThat(warned.get("time").asString()).isEqualTo(event(history, "RECLAIM").get("time").asString());
            assertThat(java.time.Duration.between(java.time.Instant.parse(warned.get("time").asString()),
                    java.time.Instant.parse(event(history, "PREEMPTED").get("time").asString())))
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(6));

            JsonNode line = sacct(victim);
            assertThat(line.get("borrowed").asBoolean()).isTrue();
            assertThat(line.get("reclaimedFor").asString()).isEqualTo(String.valueOf(owner));
            assertThat(line.get("state").asString()).isEqualTo("PREEMPTED");
            assertThat(sacct(jobs.get(0)).get("borrowed").asBoolean()).as("the first job ran within its guarantee")
                    .isFalse();
            assertThat(sacct(owner).get("borrowed").asBoolean()).isFalse();
            // sacct -P's form says the same: borrowed, reclaimedAt, reclaimedFor come before the container's two.
            assertThat(csvLine(victim)).endsWith(",true," + line.get("reclaimedAt").asString() + "," + owner + ",,");
            assertThat(csvLine(owner)).endsWith(",false,,,,");
        } finally {
            for (long id : jobs) {
                api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
            }
            api.send("PATCH", "/api/v1/accounts/" + lender, admin, Map.of("guaranteedTres", ""));
            api.send("PATCH", "/api/v1/accounts/" + borrower, admin, Map.of("guaranteedTres", ""));
        }
    }

    @Test
    void aNewLeaderDuringAReclaimsGraceTimeStopsTheVictimAtTheSameDeadlineWithoutWarningItAgain() {
        String s = UUID.randomUUID().toString().substring(0, 8);
        String lender = "qlb-" + s;
        String borrower = "qla-" + s;
        String graceQos = "qlg-" + s;
        long grace = 10;
        twoTeams(lender, borrower, graceQos, grace);
        List<Long> jobs = new ArrayList<>();
        try {
            fillWithBorrower(jobs, borrower, graceQos, "q-lead", 900);

            long owner = submit(Map.of("name", "q-lead-owner", "partition", "gpu", "account", lender, "nodes", 1,
                    "gpusPerNode", 8, "timeLimitSeconds", 600, "simulatedRunSeconds", 60));
            jobs.add(owner);
            await().atMost(Duration.ofSeconds(20)).until(() -> reclaims.stoppingIds().size() == 1);
            long victim = reclaims.stoppingIds().iterator().next().id();
            java.time.Instant reclaimedAt = java.time.Instant.parse(
                    event(api.get("/api/v1/jobs/" + victim + "/events", admin).json(), "RECLAIM").get("time").asString());

            // Halfway through the grace time a new leader takes over: it forgets all this one knew, reads the
            // active jobs back and is seeded from the store, as SchedulerWorker does on leadership acquired.
            java.time.Instant halfway = reclaimedAt.plusSeconds(grace / 2);
            await().atMost(Duration.ofSeconds(grace)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !java.time.Instant.now().isBefore(halfway));
            synchronized (worker) {
                cycle.leaderLost();
                live.clear();
                assertThat(reclaims.stoppingIds()).isEmpty();
                live.load(java.time.Instant.now());
                cycle.leaderStarted(live.runningJobs());
                assertThat(reclaims.stoppingIds()).as("the victim's grace, read back from the store")
                        .containsExactly(io.gantry.engine.JobId.of(victim));
                worker.runOnce();
                worker.runOnce();
                assertThat(reclaims.stoppingIds()).as("no other victim for the same need")
                        .containsExactly(io.gantry.engine.JobId.of(victim));
            }
            assertThat(state(victim)).as("still in its grace time").isEqualTo("RUNNING");
            assertThat(job(owner).get("reason").asString()).isEqualTo("WaitingForReclaim");

            await().atMost(Duration.ofSeconds(40)).until(() -> state(owner).equals("RUNNING"));
            JsonNode history = api.get("/api/v1/jobs/" + victim + "/events", admin).json();
            assertThat(count(history, "RECLAIM")).as(history.toString()).isEqualTo(1);
            assertThat(count(history, "SIGNALLED")).as("warned once, by the old leader").isEqualTo(1);
            java.time.Instant stopped = java.time.Instant.parse(event(history, "PREEMPTED").get("time").asString());
            // Stopped at the original deadline: a new full grace from the takeover would end at 15 s or later.
            assertThat(Duration.between(reclaimedAt, stopped)).isGreaterThanOrEqualTo(Duration.ofSeconds(grace))
                    .isLessThan(Duration.ofSeconds(grace + 4));
            assertThat(jobs.stream().filter(id -> id != owner && !state(id).equals("RUNNING")).toList())
                    .as("one victim, the same one").containsExactly(victim);
            for (long id : jobs) {
                if (id != victim && id != owner) {
                    assertThat(api.get("/api/v1/jobs/" + id + "/events", admin).json().toString())
                            .doesNotContain("RECLAIM");
                }
            }
            assertThat(sacct(victim).get("reclaimedFor").asString()).isEqualTo(String.valueOf(owner));
            assertThat(jdbc.queryForObject("SELECT count(*) FROM quota_jobs WHERE job_id = ? AND grace_until IS NOT NULL",
                    Long.class, victim)).as("the grace is over in the store too").isZero();
        } finally {
            for (long id : jobs) {
                api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
            }
            api.send("PATCH", "/api/v1/accounts/" + lender, admin, Map.of("guaranteedTres", ""));
            api.send("PATCH", "/api/v1/accounts/" + borrower, admin, Map.of("guaranteedTres", ""));
        }
    }

    /**
     * Two sibling accounts guaranteed 64 GPUs each (the test cluster's 128, so no free pool is left), both open
     * to admin, and a QOS with the grace time given.
     */
    private void twoTeams(String lender, String borrower, String graceQos, long graceSeconds) {
        created(api.send("POST", "/api/v1/qos", admin, Map.of("name", graceQos, "graceSeconds", graceSeconds)));
        created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", lender, "guaranteedTres", "gres/gpu=64")));
        created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", borrower, "guaranteedTres",
                "gres/gpu=64")));
        for (String account : List.of(lender, borrower)) {
            created(api.send("POST", "/api/v1/associations", admin, Map.of("account", account, "user", "admin")));
        }
    }

    /** 16 whole-node jobs of the borrower, added to {@code jobs}: all running, 64 GPUs of them borrowed. */
    private void fillWithBorrower(List<Long> jobs, String borrower, String qos, String name, int runSeconds) {
        for (int i = 0; i < 16; i++) {
            Map<String, Object> job = new HashMap<>(Map.of("name", name, "partition", "gpu", "account", borrower,
                    "qos", qos, "nodes", 1, "gpusPerNode", 8, "exclusive", true, "requeue", false,
                    "timeLimitSeconds", 3600, "simulatedRunSeconds", runSeconds));
            job.put("signal", "B:USR1@300");
            jobs.add(submit(job));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> jobs.stream().allMatch(id -> state(id).equals("RUNNING")));
        await().atMost(Duration.ofSeconds(20)).until(() -> quota(borrower).get("borrowed").asLong() == 64);
    }

    private static long count(JsonNode history, String type) {
        long n = 0;
        for (JsonNode e : history) {
            if (e.get("type").asString().equals(type)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void inATwoLevelTreeAJobBorrowsInsideItsParentThenAboveItAndANewLeaderKnowsWhichJobsBorrow() {
        String s = UUID.randomUUID().toString().substring(0, 8);
        String research = "qr-" + s;
        String vision = "qrv-" + s;
        String nlp = "qrn-" + s;
        String prod = "qp-" + s;
        String graceQos = "qg2-" + s;
        created(api.send("POST", "/api/v1/qos", admin, Map.of("name", graceQos, "graceSeconds", 2)));
        // 128 GPUs: research 64 (vision 32, nlp 32), prod 64; nothing left in a free pool.
        created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", research, "guaranteedTres",
                "gres/gpu=64")));
        created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", vision, "parent", research,
                "guaranteedTres", "gres/gpu=32")));
        created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", nlp, "parent", research,
                "guaranteedTres", "gres/gpu=32")));
        created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", prod, "guaranteedTres", "gres/gpu=64")));
        for (String account : List.of(vision, nlp, prod)) {
            created(api.send("POST", "/api/v1/associations", admin, Map.of("account", account, "user", "admin")));
        }
        List<Long> jobs = new ArrayList<>();
        try {
            // nlp fills the 16 nodes: 4 within its guarantee, 4 on vision's idle 32 inside research, and
            // research, full, borrows prod's idle 64 for the other 8.
            for (int i = 0; i < 16; i++) {
                jobs.add(submit(Map.of("name", "q-tree", "partition", "gpu", "account", nlp, "qos", graceQos,
                        "nodes", 1, "gpusPerNode", 8, "exclusive", true, "requeue", false, "timeLimitSeconds", 3600,
                        "simulatedRunSeconds", 900)));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> jobs.stream().allMatch(id -> state(id).equals("RUNNING")));
            await().atMost(Duration.ofSeconds(20)).until(() -> quota(nlp).get("borrowed").asLong() == 96);
            assertThat(quota(nlp).get("inUse").asLong()).isEqualTo(128);
            assertThat(quota(research).get("inUse").asLong()).isEqualTo(128);
            assertThat(quota(research).get("borrowed").asLong()).as("research borrows above itself").isEqualTo(64);
            assertThat(quota(vision).get("lent").asLong()).isEqualTo(32);
            assertThat(quota(prod).get("lent").asLong()).isEqualTo(64);

            // A new leader: it forgets what this one knew and reads back from the store which jobs borrow, where.
            java.util.Set<io.gantry.engine.JobId> before;
            java.util.Map<io.gantry.engine.JobId, java.util.Map<String, String>> at;
            synchronized (worker) {
                worker.runOnce();
                before = reclaims.borrowing();
                at = reclaims.borrowedAt();
                assertThat(before).hasSize(12);
                cycle.leaderLost();
                assertThat(reclaims.borrowing()).isNull();
                cycle.leaderStarted(live.runningJobs());
                assertThat(reclaims.borrowing()).as("seeded from the borrowed markers").isEqualTo(before);
                worker.runOnce();
                assertThat(reclaims.borrowing()).as("the new leader's first plan").isEqualTo(before);
                assertThat(reclaims.borrowedAt()).isEqualTo(at);

                assertThat(at.values().stream().filter(m -> m.get("").equals(research)).count()).isEqualTo(4);
                cycle.leaderLost();
                cycle.leaderStarted(live.runningJobs());
                assertThat(reclaims.borrowedAt()).as("where each borrows, read back from the store").isEqualTo(at);

                // Rows that do not say where the job borrows now (written before they did): the marker counts
                // when its reclaim ended an earlier run (requeued, started again), not when it stopped the
                // current one (the job is ending).
                List<io.gantry.engine.JobId> two = before.stream().sorted().limit(2).toList();
                jdbc.update("UPDATE quota_jobs SET borrowing_now = NULL WHERE job_id IN (?, ?)", two.get(0).id(),
                        two.get(1).id());
                java.time.Instant started = java.time.Instant.parse(job(two.get(0).id()).get("startTime").asString());
                marks.reclaimed(new io.gantry.accounting.QuotaMarks.Key(two.get(0).id(), -1),
                        started.minusSeconds(60), "earlier");
                java.time.Instant started1 = java.time.Instant.parse(job(two.get(1).id()).get("startTime").asString());
                marks.reclaimed(new io.gantry.accounting.QuotaMarks.Key(two.get(1).id(), -1),
                        started1.plusSeconds(1), "now");
                jdbc.update("UPDATE quota_jobs SET borrowing_now = NULL WHERE job_id IN (?, ?)", two.get(0).id(),
                        two.get(1).id());
                cycle.leaderStarted(live.runningJobs());
                java.util.Set<io.gantry.engine.JobId> expected = new java.util.HashSet<>(before);
                expected.remove(two.get(1));
                assertThat(reclaims.borrowing()).isEqualTo(expected);
                // Put back as the scheduler had it: both borrow, where is not known; the next cycle derives it
                // (those whose place is known first) and writes it.
                jdbc.update("UPDATE quota_jobs SET reclaimed_at = NULL, reclaimed_for = NULL WHERE job_id IN (?, ?)",
                        two.get(0).id(), two.get(1).id());
                cycle.leaderStarted(live.runningJobs());
                assertThat(reclaims.borrowing()).isEqualTo(before);
                worker.runOnce();
                assertThat(reclaims.borrowing()).isEqualTo(before);
                at = reclaims.borrowedAt();
                cycle.leaderStarted(live.runningJobs());
                assertThat(reclaims.borrowedAt()).as("written back by the first cycle").isEqualTo(at);
            }
            assertThat(at.values().stream().filter(m -> m.get("").equals(research)).count()).isEqualTo(4);
            assertThat(at.values().stream().filter(m -> m.get("").equals("root")).count()).isEqualTo(8);

            // prod is under its guarantee: it reclaims from a job borrowing at the root, never from those
            // borrowing vision's guarantee inside research.
            long prodJob = submit(Map.of("name", "q-prod", "partition", "gpu", "account", prod, "nodes", 1,
                    "gpusPerNode", 8, "timeLimitSeconds", 600, "simulatedRunSeconds", 600));
            jobs.add(prodJob);
            await().atMost(Duration.ofSeconds(40)).until(() -> state(prodJob).equals("RUNNING"));
            List<Long> victims = jobs.stream().filter(id -> state(id).equals("PREEMPTED")).toList();
            assertThat(victims).hasSize(1);
            assertThat(at.get(io.gantry.engine.JobId.of(victims.get(0))).get("")).isEqualTo("root");
            assertThat(api.get("/api/v1/jobs/" + victims.get(0) + "/events", admin).json().toString())
                    .contains("RECLAIM", "job " + prodJob);

            // vision is under its guarantee too: it reclaims across its boundary, inside research or above.
            long visionJob = submit(Map.of("name", "q-vision", "partition", "gpu", "account", vision, "nodes", 1,
                    "gpusPerNode", 8, "timeLimitSeconds", 600, "simulatedRunSeconds", 600));
            jobs.add(visionJob);
            await().atMost(Duration.ofSeconds(40)).until(() -> state(visionJob).equals("RUNNING"));
            assertThat(jobs.stream().filter(id -> state(id).equals("PREEMPTED")).toList()).hasSize(2);
            assertThat(jobs.subList(0, 4)).as("nlp's jobs within its guarantee run on")
                    .allMatch(id -> state(id).equals("RUNNING"));
            assertThat(sacct(victims.get(0)).get("borrowed").asBoolean()).isTrue();
            assertThat(sacct(jobs.get(0)).get("borrowed").asBoolean()).isFalse();
        } finally {
            for (long id : jobs) {
                api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
            }
            api.send("PATCH", "/api/v1/accounts/" + vision, admin, Map.of("guaranteedTres", ""));
            api.send("PATCH", "/api/v1/accounts/" + nlp, admin, Map.of("guaranteedTres", ""));
            api.send("PATCH", "/api/v1/accounts/" + research, admin, Map.of("guaranteedTres", ""));
            api.send("PATCH", "/api/v1/accounts/" + prod, admin, Map.of("guaranteedTres", ""));
        }
    }

    private static JsonNode event(JsonNode history, String type) {
        for (JsonNode e : history) {
            if (e.get("type").asString().equals(type)) {
                return e;
            }
        }
        throw new AssertionError("no " + type + " in " + history);
    }

    private JsonNode quota(String account) {
        Response r = api.get("/api/v1/quotas?size=1000", admin);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        Map<String, JsonNode> byAccount = new HashMap<>();
        for (JsonNode n : r.json().get("items")) {
            if (n.get("tres").asString().equals("gres/gpu")) {
                byAccount.put(n.get("account").asString(), n);
            }
        }
        return byAccount.get(account);
    }

    private JsonNode sacct(long id) {
        Response r = api.get("/api/v1/accounting/jobs?jobId=" + id, admin);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("items").get(0);
    }

    /** The job's line of the CSV export (the one after the header). */
    private String csvLine(long id) {
        java.net.http.HttpResponse<String> csv;
        try {
            csv = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port
                            + "/api/v1/accounting/jobs?jobId=" + id)).header("Accept", "text/csv")
                            .header("Authorization", "Bearer " + admin).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException("the CSV export of job " + id + " failed", e);
        }
        assertThat(csv.statusCode()).as(csv.body()).isEqualTo(200);
        String[] lines = csv.body().split("\r\n");
        assertThat(lines).as(csv.body()).hasSize(2);
        return lines[1];
    }

        private static void created(Response r) {
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    private static void assertProblem(Response r, String field, String message) {
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.body()).contains("\"field\":\"" + field + "\"", message);
    }

    private long submit(Map<String, Object> job) {
        Response r = api.send("POST", "/api/v1/jobs", admin, job);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("jobId").asLong();
    }

    private JsonNode job(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json();
    }

    private String state(long id) {
        return job(id).get("state").asString();
    }
}
