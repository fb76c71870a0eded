package io.gantry.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.TimesTheHost;
import tools.jackson.databind.JsonNode;

/**
 * The packaged controller on PostgreSQL with one real agent whose {@code gantry.agents.health-check}
 * is a script; a file says whether it passes. A failing check drains the node with what the script
 * printed, a passing one resumes it, but only from the check's own drain: an ADMIN's stays. No job runs.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HealthCheckIntegrationTests {

    private static final String JOIN_TOKEN = "health-test-join-token-0123456789";
    private static final String DATABASE = "gantry_health_it_" + ProcessHandle.current().pid();
    private static final String FAILING_REASON = "health check: disk /scratch full";
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private Path status;
    private Path runs;

    @BeforeAll
    void startControllerAndAgent() throws Exception {
        status = dir.resolve("status");
        runs = dir.resolve("runs");
        Files.writeString(status, "0");
        Path check = dir.resolve("healthcheck.sh");
        Files.writeString(check, """
                #!/bin/bash
                echo run >> %s
                if [ "$(cat %s)" = 0 ]; then exit 0; fi
                echo "disk /scratch full"
                exit 1
                """.formatted(runs, status));
        Files.setPosixFilePermissions(check, PosixFilePermissions.fromString("rwxr-xr-x"));
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  cluster:
                    name: health-test
                    nodes:
                      - names: node1
                        cpus: 2
                        memory-mb: 2000
                        simulated: false
                    partitions:
                      - name: batch
                        nodes: node1
                        default: true
                    switches:
                      - name: leaf1
                        nodes: node1
                    blocks:
                      - name: block1
                        nodes: node1
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    poll-wait: 2s
                    sync-interval: 3s
                    health-check: %s
                    health-check-interval: 1s
                """.formatted(JOIN_TOKEN, check.toAbsolutePath()));
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        cluster.startAgent(controller, JOIN_TOKEN, "node1", 2, 2000, "--gpus", "0");
        awaitNode("IDLE", null);
    }

    @AfterAll
    void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void aFailingCheckDrainsTheNodeWithWhatItPrintedAndAPassingOneResumesIt() throws Exception {
        Files.writeString(status, "1");
        JsonNode drained = awaitNode("DRAINED", FAILING_REASON);
        assertThat(drained.get("reasonUser").asString()).isEqualTo("gantry");

        Files.writeString(status, "0");
        awaitNode("IDLE", null);
        assertThat(controllerLog()).containsOnlyOnce("Node 'node1' drained: its health check failed: disk /scratch full")
                .containsOnlyOnce("Node 'node1' resumed: its health check passes again");
    }

    @Test
    @Order(2)
    void theChecksDrainOutlivesAControllerRestartAndIsStillItsToTakeBack() throws Exception {
        Files.writeString(status, "1");
        awaitNode("DRAINED", FAILING_REASON);
        controller.stop();
        controller.start();
        admin = api.adminToken();
        assertThat(node().get("reason").asString()).isEqualTo(FAILING_REASON);

        Files.writeString(status, "0");
        awaitNode("IDLE", null);
    }

    @Test
    @Order(3)
    void anAdminsDrainIsNeitherOverwrittenByAFailingCheckNorResumedByAPassingOne() throws Exception {
        Response drain = api.send("PATCH", "/api/v1/nodes/node1", admin,
                Map.of("state", "DRAIN", "reason", "bad DIMM, ticket 123"));
        assertThat(drain.status()).as(drain.body()).isEqualTo(200);

        Files.writeString(status, "1");
        awaitChecksAndSyncs();
        assertThat(node().get("reason").asString()).isEqualTo("bad DIMM, ticket 123");

        Files.writeString(status, "0");
        awaitChecksAndSyncs();
        JsonNode node = node();
        assertThat(node.get("state").asString()).isEqualTo("DRAINED");
        assertThat(node.get("reason").asString()).isEqualTo("bad DIMM, ticket 123");
        assertThat(node.get("reasonUser").asString()).isEqualTo("admin");
    }

    @Test
    @Order(4)
    void aNodeResumedByHandWhileItsCheckStillFailsIsDrainedAgain() throws Exception {
        Files.writeString(status, "1");
        Response resume = api.send("PATCH", "/api/v1/nodes/node1", admin, Map.of("state", "RESUME"));
        assertThat(resume.status()).as(resume.body()).isEqualTo(200);
        awaitNode("DRAINED", FAILING_REASON);

        Files.writeString(status, "0");
        awaitNode("IDLE", null);
    }

    /**
     * Lets the check run five more times (at 1 s intervals), so its verdict has travelled on more
     * than one poll (2 s) and sync (3 s) since the file changed.
     */
    private void awaitChecksAndSyncs() throws Exception {
        long before = Files.readAllLines(runs).size();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .until(() -> Files.readAllLines(runs).size() >= before + 5);
    }

    private JsonNode awaitNode(String state, String reason) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            Response response = api.get("/api/v1/nodes/node1", admin);
            if (response.status() != 200) {
                return false;
            }
            last[0] = response.json();
            JsonNode r = last[0].get("reason");
            String actual = r == null || r.isNull() ? null : r.asString();
            return state.equals(last[0].get("state").asString()) && Objects.equals(reason, actual);
        });
        return last[0];
    }

    private JsonNode node() {
        Response response = api.get("/api/v1/nodes/node1", admin);
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        return response.json();
    }

    private String controllerLog() throws Exception {
        return Files.readString(dir.resolve("controller/controller.log"));
    }
}
