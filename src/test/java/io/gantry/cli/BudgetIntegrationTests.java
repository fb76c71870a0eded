package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

import io.gantry.accounting.FairShareService;
import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import io.gantry.support.SlurmReference;
import tools.jackson.databind.JsonNode;

/**
 * Issue 32's third "done when", on the controller with its simulated nodes and real PostgreSQL: an
 * account given {@code GrpTRESMins=gres/gpu=60} with sacctmgr runs 1-GPU jobs of 30 minutes until the
 * 60 GPU-minutes are spoken for, then its next job pends with {@code AssocGrpGRESMinutes}; once the
 * minutes are used (half an hour of usage accrued at once instead of waited for) it still pends; after
 * {@code sacctmgr modify account ... set RawUsage=0} it runs; {@code sshare -l}, {@code sacctmgr show assoc}
 * and the association API show the budget, what is used and what is left.
 */
@GantryIntegrationTest
class BudgetIntegrationTests {

    @LocalServerPort
    int port;

    @Autowired
    FairShareService fairShare;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    io.gantry.accounting.FairShareProperties fairShareProperties;

    @TempDir
    Path home;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void anAccountRunsGpuJobsUntilItsGpuMinutesAreUsedThenPendsUntilItsUsageIsReset() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String account = "bud-" + suffix;
        String user = "bu" + suffix.substring(0, 6);
        assertThat(cli("sacctmgr", "-i", "add", "account", account).exit()).isZero();
        Run set = cli("sacctmgr", "-i", "modify", "account", "name=" + account, "set", "GrpTRESMins=gres/gpu=60");
        assertThat(set.exit()).as(set.err()).isZero();
        create("/api/v1/users", new HashMap<>(Map.of("username", user, "password", "secret-password",
                "defaultAccount", account)));
        assertThat(cli("sacctmgr", "-n", "-P", "show", "assoc", "account=" + account, "format=Account,User,GrpTRESMins")
                .out()).contains(account + "||gres/gpu=60");

        // Two 30-minute 1-GPU jobs hold the 60 GPU-minutes between them; the third would overrun them.
        long first = submit(user);
        awaitState(first, "RUNNING");
        long second = submit(user);
        awaitState(second, "RUNNING");
        long third = submit(user);
        awaitReason(third, "AssocGrpGRESMinutes");
        assertThat(job(third).get("state").asString()).isEqualTo("PENDING");
        // So did the reference Slurm with slurmdbd (safe enforcement): a job that would overrun what is used and
        // what running jobs may still use waits (scripts/record-slurm-limits-fixtures.sh budget).
        assertThat(SlurmReference.output("budget", "squeue -h -j {J1},{J2}"))
                .containsExactly("{J2} PENDING AssocGrpGRESMinutes", "{J1} RUNNING None");
        String running = line(cli("sshare", "-l", "-a", "-P", "-A", account).out(), account + "|");
        assertThat(running).contains("|gres/gpu=60|").containsPattern("gres/gpu=(58|59|60)$");

        Instant before = Instant.now();
        try {
            // Half an hour of the two jobs' running, accrued at once: the 60 GPU-minutes are used.
            fairShare.accrue(before);
            fairShare.accrue(before.plus(Duration.ofMinutes(30)));
            api.send("DELETE", "/api/v1/jobs/" + first, admin, null);
            api.send("DELETE", "/api/v1/jobs/" + second, admin, null);
            awaitState(first, "CANCELLED");
            awaitState(second, "CANCELLED");

            JsonNode budget = accountAssociation(account);
            assertThat(budget.get("grpTresMins").asString()).isEqualTo("gres/gpu=60");
            assertThat(budget.get("grpTresMinsUsed").asString()).isEqualTo("gres/gpu=60");
            assertThat(budget.get("grpTresMinsLeft").asString()).isEqualTo("gres/gpu=0");
            String used = line(cli("sshare", "-a", "-P", "-n", "-A", account, "-o", "Account,User,GrpTRESMins,GrpTRESRaw")
                    .out(), account + "||");
            assertThat(used).contains(account + "||gres/gpu=60|cpu=").endsWith(",gres/gpu=60");
            assertThat(line(cli("sshare", "-a", "-P", "-n", "-A", account, "-o", "Account,User,GrpTRESRaw").out(),
                    " " + account + "|" + user + "|")).endsWith(",gres/gpu=60");
            // Nothing runs now, and the used minutes alone leave no room: it still pends for the budget.
            awaitReason(third, "AssocGrpGRESMinutes");
            assertThat(SlurmReference.output("budget", "squeue -h -j {J3}")).containsExactly("{J3} PENDING AssocGrpGRESMinutes");
            assertThat(SlurmReference.output("budget", "sshare -n -P -A budget -o Account,User,GrpTRESMins"))
                    .containsExactly("budget||gres/gpu=2");

            Run reset = cli("sacctmgr", "-i", "modify", "account", "name=" + account, "set", "RawUsage=0");
            assertThat(reset.exit()).as(reset.err()).isZero();
            awaitState(third, "RUNNING");
            assertThat(accountAssociation(account).get("grpTresMinsUsed").asString()).isEqualTo("gres/gpu=0");
            assertThat(line(cli("sshare", "-l", "-a", "-P", "-A", account).out(), account + "|"))
                    .contains("|gres/gpu=60|");
        } finally {
            // Back to the real clock, so that later accruals count from now again.
            jdbc.update("UPDATE fairshare_state SET last_tick = ? WHERE id = 1",
                    OffsetDateTime.ofInstant(Instant.now(), ZoneOffset.UTC));
            api.send("DELETE", "/api/v1/jobs/" + third, admin, null);
        }
    }

    /**
     * GrpWall (issue 32): an account with {@code GrpWall=60} runs two 30-minute jobs, then its next job pends
     * with {@code AssocGrpWallLimit}, shown by {@code sacctmgr show assoc} and the API with used and left; the
     * two jobs ran under a QOS with {@code Flags=NoDecay GrpWall=80}. A day of decay later the account's used
     * wall time has shrunk enough for its short job to run, while the QOS's has not: its next 30-minute job
     * pends with {@code QOSGrpWallLimit}.
     */
    @Test
    void anAccountRunsJobsUntilItsGrpWallIsUsedAndANoDecayQosKeepsItsWallTimeUsedWhenTheAccountsDecays() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String account = "gw-" + suffix;
        String user = "gw" + suffix.substring(0, 6);
        String qos = "gwq-" + suffix;
        assertThat(cli("sacctmgr", "-i", "add", "account", account).exit()).isZero();
        Run set = cli("sacctmgr", "-i", "modify", "account", "name=" + account, "set", "GrpWall=60");
        assertThat(set.exit()).as(set.err()).isZero();
        Run addQos = cli("sacctmgr", "-i", "add", "qos", qos, "set", "Flags=NoDecay", "GrpWall=80");
        assertThat(addQos.exit()).as(addQos.err()).isZero();
        create("/api/v1/users", new HashMap<>(Map.of("username", user, "password", "secret-password",
                "defaultAccount", account)));
        assertThat(cli("sacctmgr", "-n", "-P", "show", "assoc", "account=" + account, "format=Account,User,GrpWall")
                .out()).contains(account + "||01:00:00");
        assertThat(cli("sacctmgr", "-n", "-P", "show", "qos", qos, "format=Name,Flags,GrpWall").out())
                .contains(qos + "|NoDecay|01:20:00");

        // Two 30-minute jobs hold the account's 60 minutes (each its own wall time, whatever its size).
        long first = submit(user, qos, 1800);
        awaitState(first, "RUNNING");
        long second = submit(user, qos, 1800);
        awaitState(second, "RUNNING");
        long third = submit(user, "normal", 300);
        awaitReason(third, "AssocGrpWallLimit");
        assertThat(job(third).get("state").asString()).isEqualTo("PENDING");
        long fourth = 0;
        Instant before = Instant.now();
        try {
            // Half an hour of the two jobs' running, accrued at once: the account's 60 minutes are used.
            fairShare.accrue(before);
            fairShare.accrue(before.plus(Duration.ofMinutes(30)));
            api.send("DELETE", "/api/v1/jobs/" + first, admin, null);
            api.send("DELETE", "/api/v1/jobs/" + second, admin, null);
            awaitState(first, "CANCELLED");
            awaitState(second, "CANCELLED");
            JsonNode wall = accountAssociation(account);
            assertThat(wall.get("grpWallSeconds").asLong()).isEqualTo(3600);
            assertThat(wall.get("grpWallSecondsUsed").asLong()).isBetween(3600L, 3660L);
            assertThat(wall.get("grpWallSecondsLeft").asLong()).isZero();
            JsonNode qosWall = api.get("/api/v1/qos/" + qos, admin).json();
            assertThat(qosWall.get("noDecay").asBoolean()).isTrue();
            assertThat(qosWall.get("grpWallSecondsUsed").asLong()).isBetween(3600L, 3660L);
            assertThat(qosWall.get("grpWallSecondsLeft").asLong()).isBetween(4800L - 3660, 4800L - 3600);
            awaitReason(third, "AssocGrpWallLimit");

            // A day later (half-life 7 days) the account's usage is down to ~54 minutes: the 5-minute job runs.
            // The NoDecay QOS still has its 60 minutes used: a 30-minute job of it would overrun its 80.
            fairShare.accrue(before.plus(Duration.ofMinutes(30)).plus(Duration.ofDays(1)));
            assertThat(accountAssociation(account).get("grpWallSecondsUsed").asLong()).isBetween(3250L, 3320L);
            assertThat(api.get("/api/v1/qos/" + qos, admin).json().get("grpWallSecondsUsed").asLong())
                    .isBetween(3600L, 3660L);
            awaitState(third, "RUNNING");
            fourth = submit(user, qos, 1800);
            awaitReason(fourth, "QOSGrpWallLimit");
        } finally {
            // Back to the real clock, so that later accruals count from now again.
            jdbc.update("UPDATE fairshare_state SET last_tick = ? WHERE id = 1",
                    OffsetDateTime.ofInstant(Instant.now(), ZoneOffset.UTC));
            api.send("DELETE", "/api/v1/jobs/" + third, admin, null);
            if (fourth != 0) {
                api.send("DELETE", "/api/v1/jobs/" + fourth, admin, null);
            }
        }
    }

    /**
     * {@code GrpTRESMins=billing=N}: the account's jobs are charged at the gpu partition's billing weights
     * (here fair share's defaults, a GPU worth 16 CPUs), so one 30-minute 1-GPU job fills a budget of 30 x its
     * billing; once that is used the next job pends with Slurm's AssocGrpBillingMinutes.
     */
    @Test
    void aBillingBudgetStopsTheAccountsNextJobOnceItsWeightedUseReachesIt() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String account = "bil-" + suffix;
        String user = "bi" + suffix.substring(0, 6);
        assertThat(cli("sacctmgr", "-i", "add", "account", account).exit()).isZero();
        create("/api/v1/users", new HashMap<>(Map.of("username", user, "password", "secret-password",
                "defaultAccount", account)));
        long first = submit(user);
        awaitState(first, "RUNNING");
        long cpus = 0;
        long gpus = 0;
        long mem = 0;
        for (JsonNode a : job(first).get("allocation")) {
            cpus += a.get("cpus").asLong();
            gpus += a.get("gpuIndices").size();
            mem += a.get("memoryMb").asLong();
        }
        assertThat(gpus).isEqualTo(1);
        long billing = (long) (fairShareProperties.cpuWeight() * cpus + fairShareProperties.gpuWeight() * gpus
                + fairShareProperties.memoryGbWeight() * mem / 1024.0);
        assertThat(billing).as("the GPU is billed at its weight, not as a CPU").isGreaterThan(cpus);
        long budget = 30 * billing;
        Run set = cli("sacctmgr", "-i", "modify", "account", "name=" + account, "set", "GrpTRESMins=billing=" + budget);
        assertThat(set.exit()).as(set.err()).isZero();
        assertThat(accountAssociation(account).get("grpTresMins").asString()).isEqualTo("billing=" + budget);

        // The running job may still use the whole budget: the next one pends for it.
        long second = submit(user);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            JsonNode j = job(second);
            assertThat(j.path("reason").asString()).as(j.toString() + "\n" + accountAssociation(account))
                    .isEqualTo("AssocGrpBillingMinutes");
        });
        Instant before = Instant.now();
        try {
            // Its half hour accrued at once: billing x 30 minutes used, the budget's N.
            fairShare.accrue(before);
            fairShare.accrue(before.plus(Duration.ofMinutes(30)));
            api.send("DELETE", "/api/v1/jobs/" + first, admin, null);
            awaitState(first, "CANCELLED");
            JsonNode used = accountAssociation(account);
            // At least N (the seconds it ran before the accrual count too).
            assertThat(used.get("grpTresMinsUsed").asString()).startsWith("billing=");
            assertThat(Long.parseLong(used.get("grpTresMinsUsed").asString().substring("billing=".length())))
                    .isBetween(budget, budget + billing);
            assertThat(used.get("grpTresMinsLeft").asString()).isEqualTo("billing=0");
            // Nothing runs, and the used billing-minutes alone leave no room.
            awaitReason(second, "AssocGrpBillingMinutes");
            assertThat(job(second).get("state").asString()).isEqualTo("PENDING");
        } finally {
            jdbc.update("UPDATE fairshare_state SET last_tick = ? WHERE id = 1",
                    OffsetDateTime.ofInstant(Instant.now(), ZoneOffset.UTC));
            api.send("DELETE", "/api/v1/jobs/" + second, admin, null);
        }
    }

    @Test
    void aBudgetThatIsNotTresOrARawUsageOtherThanZeroIsRefusedNamingTheField() {
        String account = "bud-bad-" + UUID.randomUUID().toString().substring(0, 8);
        create("/api/v1/accounts", Map.of("name", account, "parent", "root"));
        long id = accountAssociation(account).get("id").asLong();
        Response bad = api.send("PATCH", "/api/v1/associations/" + id, admin,
                Map.of("grpTresMins", "gres/gpu=lots", "rawUsage", 5));
        assertThat(bad.status()).as(bad.body()).isEqualTo(400);
        assertThat(bad.body()).contains("grpTresMins").contains("rawUsage").contains("only 0");
        assertThat(accountAssociation(account).hasNonNull("grpTresMins")).isFalse();
        Response qos = api.send("PATCH", "/api/v1/qos/normal", admin, Map.of("maxTresMinsPerJob", "bogus=1"));
        assertThat(qos.status()).as(qos.body()).isEqualTo(400);
        assertThat(qos.body()).contains("maxTresMinsPerJob");
        Response wall = api.send("PATCH", "/api/v1/associations/" + id, admin, Map.of("grpWallSeconds", -5));
        assertThat(wall.status()).as(wall.body()).isEqualTo(400);
        assertThat(wall.body()).contains("grpWallSeconds");
        assertThat(accountAssociation(account).hasNonNull("grpWallSeconds")).isFalse();
    }

    @Test
    void theBudgetsListShowsEachBudgetsBurnRateAndRunOutToWhomItHolds() {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String account = "burn-" + suffix;
        String user = "bn" + suffix.substring(0, 6);
        String stranger = "bs" + suffix.substring(0, 6);
        String qos = "burnq-" + suffix;
        create("/api/v1/accounts", Map.of("name", account, "parent", "root"));
        long id = accountAssociation(account).get("id").asLong();
        Response set = api.send("PATCH", "/api/v1/associations/" + id, admin, Map.of("grpTresMins", "gres/gpu=600,billing=1000000"));
        assertThat(set.status()).as(set.body()).isEqualTo(200);
        create("/api/v1/users", new HashMap<>(Map.of("username", user, "password", "secret-password",
                "defaultAccount", account)));
        create("/api/v1/users", new HashMap<>(Map.of("username", stranger, "password", "secret-password",
                "defaultAccount", "root")));
        create("/api/v1/qos", Map.of("name", qos, "grpTresMins", "cpu=100000,gres/gpu=6000"));

        // Two GPUs for 3 hours (360 of the 600 GPU-minutes), started two hours ago: 240 GPU-minutes in the last day.
        Response submitted = api.send("POST", "/api/v1/jobs", api.token(user, "secret-password"), Map.of("partition",
                "gpu", "gpus", 2, "timeLimitSeconds", 3 * 3600, "simulatedRunSeconds", 86400));
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(201);
        long job = submitted.json().get("jobId").asLong();
        try {
            awaitState(job, "RUNNING");
            jdbc.update("UPDATE jobs SET start_time = start_time - INTERVAL '2' HOUR WHERE job_id = ?", job);
            Instant asked = Instant.now();
            JsonNode line = budgetLine(admin, account, "gres/gpu");
            assertThat(line.get("owner").asString()).isEqualTo("ASSOCIATION");
            assertThat(line.get("associationId").asLong()).isEqualTo(id);
            assertThat(line.get("tres").asString()).isEqualTo("gres/gpu");
            assertThat(line.get("limitMinutes").asLong()).isEqualTo(600);
            long used = line.get("usedMinutes").asLong();
            assertThat(used).isLessThan(10);
            assertThat(line.get("leftMinutes").asLong()).isEqualTo(600 - used);
            assertThat(line.get("burnPerDay").asDouble()).isBetween(240.0, 242.0);
            assertThat(Instant.parse(line.get("rateSince").asString())).isBetween(asked.minus(Duration.ofHours(25)),
                    asked.minus(Duration.ofHours(23)));
            // 600 left at 240 a day: 2.5 days in a straight line, a little more as the usage decays (half-life 7 days).
            Instant runsOut = Instant.parse(line.get("runsOutAt").asString());
            assertThat(runsOut).isBetween(asked.plus(Duration.ofHours(60)), asked.plus(Duration.ofHours(76)));

            // A QOS nobody uses: a line per TRES it limits, burning nothing, running out never.
            List<JsonNode> qosLines = new java.util.ArrayList<>();
            api.get("/api/v1/budgets?size=1000", admin).json().get("items").forEach(b -> {
                if (b.hasNonNull("qos") && qos.equals(b.get("qos").asString())) {
                    qosLines.add(b);
                }
            });
            assertThat(qosLines).extracting(b -> b.get("tres").asString()).containsExactly("cpu", "gres/gpu");
            assertThat(qosLines).allSatisfy(b -> {
                assertThat(b.get("burnPerDay").asDouble()).isZero();
                assertThat(b.hasNonNull("runsOutAt")).isFalse();
                assertThat(b.get("owner").asString()).isEqualTo("QOS");
            });

            // Its billing budget is a line of its own, burnt at least as fast as its GPUs bill (16 a GPU by default).
            JsonNode billing = budgetLine(admin, account, "billing");
            assertThat(billing.get("limitMinutes").asLong()).isEqualTo(1_000_000);
            assertThat(billing.get("burnPerDay").asDouble()).isGreaterThanOrEqualTo(16 * 240.0);
            assertThat(billing.get("leftMinutes").asLong())
                    .isEqualTo(1_000_000 - billing.get("usedMinutes").asLong());

            // The member sees their account's budget; a user of another account does not.
            assertThat(budgetLine(api.token(user, "secret-password"), account, "gres/gpu").get("limitMinutes").asLong())
                    .isEqualTo(600);
            JsonNode theirs = api.get("/api/v1/budgets?size=1000", api.token(stranger, "secret-password")).json();
            theirs.get("items").forEach(b -> assertThat(b.hasNonNull("account") ? b.get("account").asString() : "")
                    .isNotEqualTo(account));
        } finally {
            api.send("DELETE", "/api/v1/jobs/" + job, admin, null);
            awaitState(job, "CANCELLED");
            api.send("DELETE", "/api/v1/qos/" + qos, admin, null);
        }
    }

    private JsonNode budgetLine(String token, String account, String tres) {
        Response r = api.get("/api/v1/budgets?size=1000", token);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        for (JsonNode b : r.json().get("items")) {
            if (b.hasNonNull("account") && account.equals(b.get("account").asString()) && !b.hasNonNull("user")
                    && tres.equals(b.get("tres").asString())) {
                return b;
            }
        }
        throw new AssertionError("no " + tres + " budget of account " + account + " in " + r.body());
    }

    private record Run(int exit, String out, String err) {
    }

    private Run cli(String command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, String> env = Map.of(CliEnvironment.URL_ENV, "http://127.0.0.1:" + port,
                CliEnvironment.TOKEN_ENV, admin);
        CliEnvironment e = new CliEnvironment(env, home, home, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.systemUTC(), ZoneOffset.UTC, () -> new HttpControllerApi(URI.create("http://127.0.0.1:" + port), admin));
        int exit = Cli.run(e, command, List.of(args));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static String line(String output, String containing) {
        return output.lines().filter(l -> l.contains(containing)).findFirst()
                .orElseThrow(() -> new AssertionError("no line with '" + containing + "' in:\n" + output));
    }

    private void create(String path, Map<String, Object> body) {
        Response r = api.send("POST", path, admin, body);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    private long submit(String user) {
        return submit(user, "normal", 1800);
    }

    private long submit(String user, String qos, long timeLimitSeconds) {
        Response r = api.send("POST", "/api/v1/jobs", api.token(user, "secret-password"), Map.of("partition", "gpu",
                "gpus", 1, "qos", qos, "timeLimitSeconds", timeLimitSeconds, "simulatedRunSeconds", 3600));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json().get("jobId").asLong();
    }

    private JsonNode job(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json();
    }

    private void awaitState(long id, String state) {
        await().atMost(Duration.ofSeconds(60)).until(() -> job(id).get("state").asString().equals(state));
    }

    private void awaitReason(long id, String reason) {
        await().atMost(Duration.ofSeconds(60)).until(() -> reason.equals(job(id).path("reason").asString()));
    }

    private JsonNode accountAssociation(String account) {
        for (JsonNode a : api.get("/api/v1/associations?account=" + account, admin).json().get("items")) {
            if (!a.hasNonNull("user")) {
                return a;
            }
        }
        throw new AssertionError("no association of account " + account);
    }
}
