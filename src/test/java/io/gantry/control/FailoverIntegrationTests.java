package io.gantry.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.TestDatabase;
import io.gantry.support.TimesTheHost;
import tools.jackson.databind.JsonNode;

/**
 * Two packaged controllers on one PostgreSQL and two real agents that know both. The leader is
 * killed with SIGKILL in the middle of a burst of submissions sent to both controllers (the
 * follower forwards its writes to the leader): every job answered 201 exists exactly once, no GPU
 * is held by two jobs, the job that ran before keeps running, the standby schedules, and the
 * agents find it by themselves.
 */
@TimesTheHost
class FailoverIntegrationTests {

    private static final String DATABASE = "gantry_failover_test";
    private static final String JOIN_TOKEN = "failover-join-token-0123456789";
    private static final String JWT_SECRET = "failover-test-jwt-secret-0123456789abcdef";

    @TempDir
    Path dir;

    private OwnCluster cluster;
    private final List<ControllerProcess> controllers = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (ControllerProcess c : controllers) {
            c.kill();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theStandbyTakesOverWhenTheLeaderIsKilledDuringASubmissionBurst() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, ClusterYaml.twoGpuNodes("failover-test", 4, 1000) + """
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    heartbeat-timeout: 30s
                    kill-wait: 2s
                """.formatted(JOIN_TOKEN) + ClusterYaml.adminRunsJobsAsTester() + """
                  security:
                    jwt-secret: %s
                """.formatted(JWT_SECRET));
        TestDatabase db = cluster.db();
        for (String name : List.of("a", "b")) {
            ControllerProcess c = cluster.controller(name);
            controllers.add(c);
            c.start();
        }
        ControllerProcess first = controllers.get(0);
        ControllerProcess second = controllers.get(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> leaderUrl(db) != null);
        ControllerProcess leader = leaderUrl(db).endsWith(":" + first.port()) ? first : second;
        ControllerProcess standby = leader == first ? second : first;
        String admin = leader.api().adminToken();
        assertThat(standby.api().get("/api/v1/jobs", admin).status())
                .as("a token from one controller is good on the other").isEqualTo(200);

        String urls = "http://127.0.0.1:" + first.port() + ",http://127.0.0.1:" + second.port();
        for (String node : List.of("node1", "node2")) {
            cluster.startAgent(urls, JOIN_TOKEN, node, 4, 4000, "--gpus", "2", "--gpu-type", "test");
        }
        // A node the configuration does not name joins through its agent with a feature of its own, after
        // both controllers started: only the store (and the leader's memory) has it.
        cluster.startAgent(urls, JOIN_TOKEN, "extra1", 2, 2000, "--features", "real");
        for (String node : List.of("node1", "node2", "extra1")) {
            leader.api().awaitNodeState(node, admin, Duration.ofSeconds(90), "IDLE");
        }

        // A follower forwards a write to the leader and relays its answer as it is.
        Response forwarded = standby.api().send("POST", "/api/v1/jobs", admin,
                Map.of("script", "#!/bin/bash\nsleep 600\n", "gpus", 1, "timeLimitSeconds", 3600));
        assertThat(forwarded.status()).as(forwarded.body()).isEqualTo(201);
        long longRunning = forwarded.json().get("jobId").asLong();
        JsonNode before = awaitState(leader.api(), admin, longRunning, "RUNNING", Duration.ofSeconds(60));

        // The burst: held jobs sent to both controllers; the leader dies in its middle.
        ConcurrentLinkedQueue<Long> accepted = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger refused = new AtomicInteger();
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            // Half the clients start on each controller; like a client given both URLs, one that cannot
            // reach its controller goes on with the other.
            ApiClient[] apis = i % 2 == 0 ? new ApiClient[] {first.api(), second.api()}
                    : new ApiClient[] {second.api(), first.api()};
            Thread t = new Thread(() -> {
                int current = 0;
                while (!stop.get()) {
                    try {
                        Response r = apis[current].send("POST", "/api/v1/jobs", admin,
                                Map.of("script", "#!/bin/bash\ntrue\n", "hold", true));
                        if (r.status() == 201) {
                            accepted.add(r.json().get("jobId").asLong());
                        } else {
                            refused.incrementAndGet();
                        }
                    } catch (IllegalStateException unreachable) {
                        refused.incrementAndGet();
                        current = 1 - current;
                    }
                }
            });
            t.start();
            clients.add(t);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> accepted.size() >= 100);
        leader.kill();
        Instant killedAt = Instant.now();
        int atKill = accepted.size();
        // The promise: within 10 s of the kill the standby holds the lock and tells the others it leads.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> String.valueOf(leaderUrl(db)).endsWith(":" + standby.port()));
        System.out.printf("failover: the standby advertised itself as the leader %d ms after the kill%n",
                Duration.between(killedAt, Instant.now()).toMillis());
        // The new leader knows the node that joined while it followed: a job for its feature is taken at
        // once and starts there within 10 s (it was refused as "could never run" for minutes).
        Instant led = Instant.now();
        Response featured = standby.api().send("POST", "/api/v1/jobs", admin,
                Map.of("script", "#!/bin/bash\nsleep 5\n", "constraints", "real", "timeLimitSeconds", 600));
        assertThat(featured.status()).as(featured.body()).isEqualTo(201);
        JsonNode onExtra = awaitState(standby.api(), admin, featured.json().get("jobId").asLong(), "RUNNING",
                Duration.ofSeconds(10));
        assertThat(onExtra.get("allocation").get(0).get("node").asString()).isEqualTo("extra1");
        System.out.printf("failover: a job for the joined node's feature started %d ms after the new leader led%n",
                Duration.between(led, Instant.now()).toMillis());
        await().atMost(Duration.ofSeconds(60)).until(() -> accepted.size() >= atKill + 100);
        stop.set(true);
        for (Thread t : clients) {
            t.join();
        }

        // The standby leads and schedules: a job sent to it runs on an agent.
        Response probe = standby.api().send("POST", "/api/v1/jobs", admin,
                Map.of("script", "#!/bin/bash\nsleep 2\n", "gpus", 1, "timeLimitSeconds", 600));
        assertThat(probe.status()).as(probe.body()).isEqualTo(201);
        long probeId = probe.json().get("jobId").asLong();
        awaitState(standby.api(), admin, probeId, "RUNNING", Duration.ofSeconds(30));
        System.out.printf("failover: the standby started a job %d ms after the leader was killed; %d submissions "
                + "accepted, %d refused while it took over%n", Duration.between(killedAt, Instant.now()).toMillis(),
                accepted.size(), refused.get());
        assertThat(leaderUrl(db)).endsWith(":" + standby.port());

        // Every job answered 201 exists exactly once.
        Set<Long> distinct = new HashSet<>(accepted);
        assertThat(distinct).as("no job id was answered twice").hasSize(accepted.size());
        Map<Long, Integer> rows = rowsPerJob(db, distinct);
        assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(distinct);
        assertThat(rows.values()).allMatch(n -> n == 1);

        // The job that ran before the kill runs on, on the same GPU; no GPU is held by two jobs.
        JsonNode after = standby.api().get("/api/v1/jobs/" + longRunning, admin).json();
        assertThat(after.get("state").asString()).isEqualTo("RUNNING");
        assertThat(after.get("startTime").asString()).isEqualTo(before.get("startTime").asString());
        assertThat(after.get("allocation").toString()).isEqualTo(before.get("allocation").toString());
        assertNoGpuHeldTwice(standby.api(), admin);

        // The agents found the new leader on their own: their heartbeats reach it, the probe completes there.
        awaitState(standby.api(), admin, probeId, "COMPLETED", Duration.ofSeconds(90));
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (JsonNode node : standby.api().get("/api/v1/nodes", admin).json().get("items")) {
                JsonNode heard = node.get("lastHeartbeat");
                if (heard == null || heard.isNull() || Instant.parse(heard.asString()).isBefore(killedAt)) {
                    return false;
                }
            }
            return true;
        });
        assertThat(standby.api().send("DELETE", "/api/v1/jobs/" + longRunning, admin, null).status()).isEqualTo(202);
        awaitState(standby.api(), admin, longRunning, "CANCELLED", Duration.ofSeconds(60));
    }

    private static void assertNoGpuHeldTwice(ApiClient api, String admin) {
        Set<String> held = new HashSet<>();
        JsonNode running = api.get("/api/v1/jobs?state=RUNNING,COMPLETING&size=500", admin).json().get("items");
        for (JsonNode job : running) {
            for (JsonNode a : job.get("allocation")) {
                for (JsonNode gpu : a.get("gpuIndices")) {
                    assertThat(held.add(a.get("node").asString() + "/" + gpu.asInt()))
                            .as("GPU %s/%s is held by one job only", a.get("node").asString(), gpu.asInt()).isTrue();
                }
            }
        }
    }

    private static String leaderUrl(TestDatabase db) throws SQLException {
        try (Connection c = DriverManager.getConnection(db.url(), db.username(), db.password());
                PreparedStatement s = c.prepareStatement("SELECT url FROM control_leader WHERE id = 1");
                ResultSet r = s.executeQuery()) {
            return r.next() ? r.getString(1) : null;
        } catch (SQLException notYetMigrated) {
            return null;
        }
    }

    private static Map<Long, Integer> rowsPerJob(TestDatabase db, Set<Long> jobIds) throws SQLException {
        Map<Long, Integer> rows = new HashMap<>();
        try (Connection c = DriverManager.getConnection(db.url(), db.username(), db.password());
                PreparedStatement s = c.prepareStatement(
                        "SELECT job_id, count(*) FROM jobs WHERE job_id = ANY (?) GROUP BY job_id")) {
            s.setArray(1, c.createArrayOf("bigint", jobIds.toArray()));
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    rows.put(r.getLong(1), r.getInt(2));
                }
            }
        }
        return rows;
    }

    private static JsonNode awaitState(ApiClient api, String admin, long id, String state, Duration patience) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(patience).pollInterval(Duration.ofMillis(100)).until(() -> {
            last[0] = api.get("/api/v1/jobs/" + id, admin).json();
            return state.equals(last[0].get("state").asString());
        });
        return last[0];
    }
}
