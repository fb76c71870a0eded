package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.TimesTheHost;
import tools.jackson.databind.JsonNode;

/**
 * A step as large as the bounds let it be, for real: the packaged controller and a real agent with a
 * short heartbeat timeout, one job running on the node while another job's srun starts 16 tasks, each
 * with an environment of about 1.8 MB. Starting them takes the agent seconds (each task's stage reads
 * its environment from a pipe); the agent's polls, its heartbeats, must keep their rhythm meanwhile,
 * or the node is taken for dead and the running job requeued, as the review saw.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LargeStepIntegrationTests {

    private static final String JOIN_TOKEN = "large-step-join-token-0123456789";
    private static final String DATABASE = "gantry_large_step_it_" + ProcessHandle.current().pid();
    private static final int TASKS = 16;

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ApiClient api;
    private String admin;

    @BeforeAll
    void start() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, ClusterYaml.oneRealAndOneSimulatedNode("large-step", TASKS + 2,
                64_000, JOIN_TOKEN, "heartbeat-timeout: 6s", "poll-wait: 1s"));
        ControllerProcess controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        cluster.startAgent(controller, JOIN_TOKEN, "node1", TASKS + 2, 64_000);
        api.awaitNodeState("node1", admin, Duration.ofSeconds(60), "IDLE");
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aLargeLegalStepStartsWhileTheNodesHeartbeatsKeepTheirTimeAndItsOtherJobRuns() throws Exception {
        Path work = Files.createDirectories(dir.resolve("work"));
        long victim = api.submitJob(admin, Map.of("name", "victim", "tasks", 1, "memoryMb", 100,
                "workdir", work.toString(), "script", "#!/bin/bash\nsleep 600\n"));
        api.awaitJobState(victim, admin, "RUNNING", Duration.ofSeconds(60));

        // 18 variables of 100,000 bytes: 1.8 MB of environment, near the 1,966,080 bytes a step may take
        long big = api.submitJob(admin, Map.of("name", "big", "tasks", TASKS, "memoryMb", 1000,
                "workdir", work.toString(), "script", """
                        #!/bin/bash
                        value=$(head -c 100000 /dev/zero | tr '\\0' x)
                        for i in $(seq 1 18); do export BIG_$i="$value"; done
                        srun -n %d bash -c 'echo "task $SLURM_PROCID ${#BIG_18}"'
                        echo "srun exit $?"
                        """.formatted(TASKS)));

        // Sampled every 250 ms until the big job ends: each sample checks the node's last heartbeat.
        List<String> stale = new ArrayList<>();
        long[] worst = {0};
        String[] bigState = {""};
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250)).until(() -> {
            JsonNode node = api.get("/api/v1/nodes/node1", admin).json();
            Instant now = Instant.now();
            if (node.hasNonNull("lastHeartbeat")) {
                long age = Duration.between(Instant.parse(node.get("lastHeartbeat").asString()), now).toMillis();
                worst[0] = Math.max(worst[0], age);
                if (age > 4000) {
                    stale.add(now + ": last heartbeat " + age + " ms ago, node " + node.get("state").asString());
                }
            }
            assertThat(node.get("state").asString()).as("node1 never goes DOWN (not responding)")
                    .isNotEqualTo("DOWN");
            bigState[0] = api.get("/api/v1/jobs/" + big, admin).json().get("state").asString();
            return !List.of("PENDING", "RUNNING", "COMPLETING").contains(bigState[0]);
        });
        String out = Files.readString(work.resolve("gantry-" + big + ".out"));
        assertThat(bigState[0]).as(out).isEqualTo("COMPLETED");
        assertThat(out.lines().filter(l -> l.matches("task \\d+ 100000"))).as(out).hasSize(TASKS);
        assertThat(stale).as("heartbeats while the step started (worst gap %d ms)", worst[0]).isEmpty();

        JsonNode victimJob = api.get("/api/v1/jobs/" + victim, admin).json();
        assertThat(victimJob.get("state").asString()).isEqualTo("RUNNING");
        assertThat(victimJob.get("requeueCount").asInt()).isZero();
        api.send("DELETE", "/api/v1/jobs/" + victim, admin, null);
    }
}
