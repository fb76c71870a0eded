package io.gantry.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.LocalPostgres;

/**
 * The store fails over under the controller. A primary PostgreSQL with a synchronous standby made by
 * {@code pg_basebackup -R} ({@code synchronous_commit=on}, the standby named in
 * {@code synchronous_standby_names}); a packaged controller whose JDBC URL names both hosts with
 * {@code targetServerType=primary}. In the middle of a burst of submissions from several clients the
 * primary's postmaster is killed with SIGKILL and the standby promoted, and the clients keep submitting:
 * every job answered 201 is in the promoted store exactly once, no submission was stored twice, every job in
 * the store runs and completes (any whose answer the kill cut off too), and within 30 s of the kill the same
 * controller, untouched, starts a new job on its simulated nodes. Before all that, a leader lock is refused on
 * the standby.
 */
class StoreFailoverIntegrationTests {

    private static final String DATABASE = "gantry";
    private static final String STANDBY_NAME = "gantry_standby";

    private static Path clusters;
    private static LocalPostgres primary;
    private static LocalPostgres standby;
    private static ControllerProcess controller;

    @TempDir
    static Path dir;

    @BeforeAll
    static void primaryAndSynchronousStandby() throws Exception {
        assumeTrue(LocalPostgres.binaries().isPresent(), LocalPostgres.INSTALL_HINT);
        clusters = LocalPostgres.workDirectory();
        // Given on the primary's command line, not in its files: pg_basebackup copies those, and a promoted
        // standby that waits for a standby of its own would never commit. fsync=off: SIGKILL ends a process,
        // not the machine, so the page cache survives it; what is under test is what reached the standby.
        primary = LocalPostgres.primary(clusters, "primary", "wal_level=replica",
                "synchronous_standby_names=" + STANDBY_NAME, "synchronous_commit=on", "fsync=off");
        primary.createDatabase(DATABASE);
        standby = primary.standby(clusters, "standby", STANDBY_NAME, "fsync=off");
        await().atMost(Duration.ofSeconds(60)).until(() -> "sync".equals(syncState()));
    }

    @AfterAll
    static void stopAll() throws Exception {
        if (controller != null) {
            controller.kill();
        }
        for (LocalPostgres server : new LocalPostgres[] {primary, standby}) {
            if (server != null) {
                server.stop();
            }
        }
        if (clusters != null) {
            LocalPostgres.delete(clusters);
        }
    }

    @Test
    void everyAcceptedJobSurvivesThePrimarysDeathAndSchedulingResumesOnThePromotedStandby() throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:%d,127.0.0.1:%d/%s?targetServerType=primary"
                .formatted(primary.port(), standby.port(), DATABASE);
        controller = new ControllerProcess(dir.resolve("controller"), "--spring.profiles.active=postgres",
                "--spring.datasource.url=" + url, "--spring.datasource.username=postgres",
                "--spring.datasource.password=");
        java.nio.file.Files.createDirectories(dir.resolve("controller"));
        controller.start();
        ApiClient api = controller.api();
        String admin = api.adminToken();
        // The leader lock is never taken on a standby: a hot standby grants advisory locks of its own, and a
        // controller that reached it would lead beside the one on the primary (the key is the default one,
        // which the controller holds on the primary).
        LeaderLock onStandby = new LeaderLock(new DriverManagerDataSource(standby.url(DATABASE), "postgres", ""),
                4242);
        assertThat(onStandby.isLeader()).as("a controller on the standby leads").isFalse();
        onStandby.close();

        // Before anything fails: the controller schedules on the demo cluster's simulated nodes.
        long before = api.submitJob(admin, Map.of("script", "#!/bin/bash\ntrue\n", "timeLimitSeconds", 600,
                "simulatedRunSeconds", 3600));
        api.awaitJobState(before, admin, "RUNNING", Duration.ofSeconds(60));

        // The burst: short jobs, each with a name of its own, so a submission stored twice would show, and one
        // the store has but the controller forgot would never run.
        Map<String, Long> accepted = new ConcurrentHashMap<>();
        AtomicInteger refused = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int client = i;
            Thread t = new Thread(() -> {
                for (int n = 0; !stop.get(); n++) {
                    String name = "burst-" + client + "-" + n;
                    try {
                        Response r = api.send("POST", "/api/v1/jobs", admin,
                                Map.of("name", name, "script", "#!/bin/bash\ntrue\n", "cpusPerTask", 1,
                                        "timeLimitSeconds", 600, "simulatedRunSeconds", 2));
                        if (r.status() == 201) {
                            accepted.put(name, r.json().get("jobId").asLong());
                        } else {
                            refused.incrementAndGet();
                        }
                    } catch (IllegalStateException unanswered) {
                        refused.incrementAndGet();
                    }
                }
            }, "submitter-" + i);
            t.start();
            clients.add(t);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> accepted.size() >= 200);

        primary.killPostmaster();
        Instant killedAt = Instant.now();
        int atKill = accepted.size();
        standby.promote();
        System.out.printf("store failover: standby promoted %d ms after the kill, %d submissions accepted by then%n",
                Duration.between(killedAt, Instant.now()).toMillis(), atKill);

        // Scheduling resumes within 30 s of the kill: a new job starts on a simulated node.
        Long[] probe = new Long[1];
        await("a submission answered 201 after the failover").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)).ignoreExceptionsInstanceOf(IllegalStateException.class)
                .until(() -> {
                    Response r = api.send("POST", "/api/v1/jobs", admin, Map.of("name", "after-failover",
                            "script", "#!/bin/bash\ntrue\n", "timeLimitSeconds", 600, "simulatedRunSeconds", 3600));
                    if (r.status() == 201) {
                        probe[0] = r.json().get("jobId").asLong();
                    }
                    return probe[0] != null;
                });
        Duration left = Duration.ofSeconds(30).minus(Duration.between(killedAt, Instant.now()));
        assertThat(left).as("time left of the 30 s").isPositive();
        api.awaitJobState(probe[0], admin, "RUNNING", left);
        System.out.printf("store failover: a new job ran %d ms after the kill%n",
                Duration.between(killedAt, Instant.now()).toMillis());

        await().atMost(Duration.ofSeconds(60)).until(() -> accepted.size() >= atKill + 200);
        stop.set(true);
        for (Thread t : clients) {
            t.join();
        }
        System.out.printf("store failover: %d submissions accepted, %d refused or unanswered%n", accepted.size(),
                refused.get());

        // Every job answered 201 is in the promoted store exactly once, under its own name; no name twice.
        Map<String, List<Long>> stored = burstJobs();
        for (Map.Entry<String, Long> job : accepted.entrySet()) {
            assertThat(stored.get(job.getKey())).as("job %s (%s), answered 201", job.getValue(), job.getKey())
                    .containsExactly(job.getValue());
        }
        assertThat(stored.values()).as("no submission was stored twice").allMatch(ids -> ids.size() == 1);
        // Every job in the store runs and ends, those whose answer the failover cut off among them (their
        // commit reached the standby, their 201 never left): none is stored yet unknown to the scheduler.
        await("every burst job in the store completes").atMost(Duration.ofSeconds(90))
                .untilAsserted(() -> assertThat(unfinishedBurstJobs()).as("burst jobs not completed").isEmpty());
        // The controller serves them from the new primary: the first and the last accepted are there.
        assertThat(api.get("/api/v1/jobs/" + accepted.get("burst-0-0"), admin).status()).isEqualTo(200);
        // The job that ran before the failover runs on, as it started.
        assertThat(api.get("/api/v1/jobs/" + before, admin).json().get("state").asString()).isEqualTo("RUNNING");
    }

    /** Names of burst jobs in the promoted store, each with the job ids stored under it. */
    private static Map<String, List<Long>> burstJobs() throws SQLException {
        Map<String, List<Long>> jobs = new HashMap<>();
        try (Connection c = standby.connect(DATABASE);
                PreparedStatement s = c.prepareStatement("SELECT name, job_id FROM jobs WHERE name LIKE 'burst-%'");
                ResultSet r = s.executeQuery()) {
            while (r.next()) {
                jobs.computeIfAbsent(r.getString(1), n -> new ArrayList<>()).add(r.getLong(2));
            }
        }
        return jobs;
    }

    /** Burst jobs in the promoted store that have not completed, as {@code id name state}. */
    private static List<String> unfinishedBurstJobs() throws SQLException {
        List<String> jobs = new ArrayList<>();
        try (Connection c = standby.connect(DATABASE);
                PreparedStatement s = c.prepareStatement("SELECT job_id, name, state FROM jobs "
                        + "WHERE name LIKE 'burst-%' AND state <> 'COMPLETED' ORDER BY job_id");
                ResultSet r = s.executeQuery()) {
            while (r.next()) {
                jobs.add(r.getLong(1) + " " + r.getString(2) + " " + r.getString(3));
            }
        }
        return jobs;
    }

    private static String syncState() throws SQLException {
        try (Connection c = primary.connect("postgres"); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT sync_state FROM pg_stat_replication WHERE application_name = '"
                        + STANDBY_NAME + "'")) {
            return r.next() ? r.getString(1) : null;
        }
    }
}
