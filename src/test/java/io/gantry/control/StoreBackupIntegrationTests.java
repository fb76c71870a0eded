package io.gantry.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.LocalPostgres;
import tools.jackson.databind.JsonNode;

/**
 * Backup and restore as README gives them: {@code pg_dump -Fc} of a controller's database taken while
 * clients submit jobs and create accounts, {@code pg_restore} into a fresh database, a controller started on
 * that one. Every job and account answered 201 before the dump began is there and served, a user signs in
 * with the password she had, a restored held job runs when released, and a new job is taken and scheduled.
 * The server is a PostgreSQL of the test's own, so {@code pg_dump} and the server are always one version.
 */
class StoreBackupIntegrationTests {

    private static Path clusters;
    private static LocalPostgres server;
    private static final List<ControllerProcess> controllers = new ArrayList<>();

    @TempDir
    static Path dir;

    @BeforeAll
    static void ownServer() throws Exception {
        assumeTrue(LocalPostgres.binaries().isPresent(), LocalPostgres.INSTALL_HINT);
        clusters = LocalPostgres.workDirectory();
        server = LocalPostgres.primary(clusters, "store", "fsync=off");
        server.createDatabase("gantry");
    }

    @AfterAll
    static void stopAll() throws Exception {
        for (ControllerProcess c : controllers) {
            c.kill();
        }
        if (server != null) {
            server.stop();
        }
        if (clusters != null) {
            LocalPostgres.delete(clusters);
        }
    }

    @Test
    void aDumpTakenUnderLoadRestoresIntoAStoreAControllerServesAndSchedulesFrom() throws Exception {
        ControllerProcess original = controller("original", "gantry");
        ApiClient api = original.api();
        String admin = api.adminToken();
        assertThat(api.send("POST", "/api/v1/accounts", admin, Map.of("name", "physics", "parent", "root",
                "shares", 3)).status()).isEqualTo(201);
        assertThat(api.send("POST", "/api/v1/users", admin, Map.of("username", "alice", "password",
                "alice-password-1", "roles", List.of("USER"), "defaultAccount", "physics")).status()).isEqualTo(201);
        String alice = api.token("alice", "alice-password-1");

        // The load: held jobs from the admin and from alice, each with a name of its own, and new accounts.
        Map<String, Long> jobs = new ConcurrentHashMap<>();
        Map<String, Boolean> accounts = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int client = i;
            String token = i % 2 == 0 ? admin : alice;
            clients.add(new Thread(() -> {
                for (int n = 0; !stop.get(); n++) {
                    String name = "load-" + client + "-" + n;
                    Response r = api.send("POST", "/api/v1/jobs", token,
                            Map.of("name", name, "script", "#!/bin/bash\ntrue\n", "hold", true));
                    if (r.status() == 201) {
                        jobs.put(name, r.json().get("jobId").asLong());
                    }
                }
            }, "submitter-" + i));
        }
        clients.add(new Thread(() -> {
            for (int n = 0; !stop.get(); n++) {
                String name = "team" + n;
                if (api.send("POST", "/api/v1/accounts", admin, Map.of("name", name, "parent", "physics"))
                        .status() == 201) {
                    accounts.put(name, true);
                }
            }
        }, "accounts"));
        clients.forEach(Thread::start);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
                .until(() -> jobs.size() >= 200 && accounts.size() >= 10);

        // Whatever was answered 201 before the dump began must be in it; what came during it may or may not.
        Map<String, Long> jobsBefore = new HashMap<>(jobs);
        List<String> accountsBefore = new ArrayList<>(accounts.keySet());
        Path dump = clusters.resolve("gantry.dump");
        server.dump("gantry", dump);
        int duringDump = jobs.size() - jobsBefore.size();
        stop.set(true);
        for (Thread t : clients) {
            t.join();
        }
        System.out.printf("backup: %d jobs and %d accounts accepted before the dump, %d jobs while it ran%n",
                jobsBefore.size(), accountsBefore.size(), duringDump);
        original.stop();

        server.createDatabase("gantry_restored");
        server.restore(dump, "gantry_restored");
        ControllerProcess restored = controller("restored", "gantry_restored");
        ApiClient again = restored.api();
        String admin2 = again.adminToken();

        Map<String, List<Long>> stored = loadJobs("gantry_restored");
        for (Map.Entry<String, Long> job : jobsBefore.entrySet()) {
            assertThat(stored.get(job.getKey())).as("job %s (%s), answered 201 before the dump", job.getValue(),
                    job.getKey()).containsExactly(job.getValue());
        }
        assertThat(stored.values()).as("no submission is in the dump twice").allMatch(ids -> ids.size() == 1);
        for (Map.Entry<String, Long> job : jobsBefore.entrySet()) {
            JsonNode served = again.get("/api/v1/jobs/" + job.getValue(), admin2).json();
            assertThat(served.get("name").asString()).isEqualTo(job.getKey());
            assertThat(served.get("state").asString()).isEqualTo("PENDING");
        }
        for (String account : accountsBefore) {
            Response served = again.get("/api/v1/accounts/" + account, admin2);
            assertThat(served.status()).as("account %s", account).isEqualTo(200);
            assertThat(served.json().get("parent").asString()).isEqualTo("physics");
        }
        // Alice signs in with her password (its hash came back) and is still charged to physics.
        String alice2 = again.token("alice", "alice-password-1");
        long aliceJob = jobsBefore.entrySet().stream().filter(e -> e.getKey().startsWith("load-1-")).findFirst()
                .orElseThrow().getValue();
        assertThat(again.get("/api/v1/jobs/" + aliceJob, alice2).json().get("account").asString()).isEqualTo("physics");

        // The restored controller schedules: a held job from before the dump runs when released, and a new
        // job is taken with an id of its own and runs.
        long held = jobsBefore.get("load-0-0");
        assertThat(again.send("POST", "/api/v1/jobs/" + held + "/release", admin2, null).status()).isEqualTo(200);
        again.awaitJobState(held, admin2, "RUNNING", Duration.ofSeconds(60));
        long fresh = again.submitJob(alice2, Map.of("name", "after-restore", "script", "#!/bin/bash\ntrue\n",
                "timeLimitSeconds", 600, "simulatedRunSeconds", 3600));
        assertThat(stored.values().stream().flatMap(List::stream)).doesNotContain(fresh);
        again.awaitJobState(fresh, alice2, "RUNNING", Duration.ofSeconds(60));
    }

    private ControllerProcess controller(String name, String database) throws Exception {
        Path data = Files.createDirectories(dir.resolve(name));
        ControllerProcess c = new ControllerProcess(data, "--spring.profiles.active=postgres",
                "--spring.datasource.url=" + server.url(database), "--spring.datasource.username=postgres",
                "--spring.datasource.password=");
        controllers.add(c);
        return c.start();
    }

    /** Names of the load's jobs in {@code database}, each with the job ids stored under it. */
    private static Map<String, List<Long>> loadJobs(String database) throws SQLException {
        Map<String, List<Long>> jobs = new HashMap<>();
        try (Connection c = server.connect(database);
                PreparedStatement s = c.prepareStatement("SELECT name, job_id FROM jobs WHERE name LIKE 'load-%'");
                ResultSet r = s.executeQuery()) {
            while (r.next()) {
                jobs.computeIfAbsent(r.getString(1), n -> new ArrayList<>()).add(r.getLong(2));
            }
        }
        return jobs;
    }
}
