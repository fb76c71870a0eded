package io.gantry.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
import tools.jackson.databind.JsonNode;

/**
 * QOS preemption with the victim QOS's GraceTime (issue 32), through the packaged controller and a real
 * agent running a real script: the victim is warned with SIGTERM as its grace starts, writes its
 * checkpoint in its trap, keeps running through its grace, and is killed when the grace is over, ending
 * PREEMPTED; the preemptor waits for it and then runs on the node it freed. The victim's history says
 * by which job and why.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreemptionGraceIntegrationTests {

    private static final String JOIN_TOKEN = "preempt-test-join-token-0123456789";
    private static final String DATABASE = "gantry_preempt_it_" + ProcessHandle.current().pid();
    private static final long GRACE = 5;
    /** The kill wait of the cluster file (SIGKILL that long after the signal). */
    private static final long KILL_WAIT = 2;

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ApiClient api;
    private String admin;

    @BeforeAll
    void startControllerAndAgent() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE,
                ClusterYaml.oneRealAndOneSimulatedNode("preempt-test", 4, 4000, JOIN_TOKEN, "poll-wait: 1s"));
        ControllerProcess controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        cluster.startAgent(controller, JOIN_TOKEN, "node1", 4, 4000);
        api.awaitNodeState("node1", admin, Duration.ofSeconds(60), "IDLE");
    }

    @AfterAll
    void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aPreemptedJobCheckpointsInItsGraceTimeThenEndsPreemptedAndThePreemptorRunsAfterIt() throws Exception {
        created(api.send("POST", "/api/v1/qos", admin, Map.of("name", "scavenger", "priority", 0,
                "graceSeconds", GRACE)));
        created(api.send("POST", "/api/v1/qos", admin, Map.of("name", "urgent", "priority", 100,
                "preempt", List.of("scavenger"), "preemptMode", "CANCEL")));

        Path work = Files.createDirectories(dir.resolve("grace"));
        Path ready = work.resolve("ready");
        Path checkpoint = work.resolve("checkpoint");
        Path preemptorRan = work.resolve("preemptor-ran");
        // The training step traps SIGTERM, saves its state and goes on: only the kill after the grace stops it.
        long victim = api.submitJob(admin, Map.of("name", "train", "workdir", work.toString(), "cpusPerTask", 4,
                "qos", "scavenger", "script", """
                        #!/bin/bash
                        ( trap 'date +%%s.%%N > %2$s' TERM; echo ready > %1$s
                          while true; do sleep 0.1; done ) &
                        wait
                        """.formatted(ready, checkpoint)));
        api.awaitJobState(victim, admin, "RUNNING", Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> Files.exists(ready));

        long preemptor = api.submitJob(admin, Map.of("name", "urgent", "workdir", work.toString(), "cpusPerTask", 4,
                "qos", "urgent", "script", "#!/bin/bash\ndate +%s.%N > " + preemptorRan + "\n"));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> Files.exists(checkpoint) && Files.size(checkpoint) > 0);
        Instant warned = Instant.now();
        assertThat(state(preemptor)).as("the preemptor waits for its victim's grace").isEqualTo("PENDING");

        // Through its grace the victim keeps its node and runs on; the preemptor still waits.
        await().during(Duration.ofSeconds(GRACE - 2)).atMost(Duration.ofSeconds(GRACE))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> state(victim).equals("RUNNING") && state(preemptor).equals("PENDING"));

        await().atMost(Duration.ofSeconds(GRACE + KILL_WAIT + 10)).pollInterval(Duration.ofMillis(200))
                .until(() -> state(victim).equals("PREEMPTED"));
        assertThat(Duration.between(warned, Instant.now())).as("ended within its grace plus the kill wait")
                .isLessThan(Duration.ofSeconds(GRACE + KILL_WAIT + 10));

        api.awaitJobState(preemptor, admin, "COMPLETED", Duration.ofSeconds(60));
        assertThat(Files.exists(preemptorRan)).as("the preemptor ran on the freed node").isTrue();
        JsonNode v = api.get("/api/v1/jobs/" + victim, admin).json();
        JsonNode p = api.get("/api/v1/jobs/" + preemptor, admin).json();
        assertThat(Instant.parse(p.get("startTime").asString()))
                .as("the preemptor started once the victim's grace was over")
                .isAfterOrEqualTo(Instant.parse(v.get("endTime").asString()));
        assertThat(Double.parseDouble(Files.readString(preemptorRan).strip())
                - Double.parseDouble(Files.readString(checkpoint).strip()))
                .as("the preemptor ran a grace time after the victim was warned").isGreaterThanOrEqualTo(GRACE - 1);

        String history = api.get("/api/v1/jobs/" + victim + "/events", admin).body();
        assertThat(history).contains("preempted by job " + preemptor + " (QOS urgent may preempt QOS scavenger)",
                "grace time of " + GRACE + " s", "SIGTERM sent to its processes but the batch shell", "PREEMPTED");
    }

    private String state(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json().get("state").asString();
    }

    private static void created(Response r) {
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }
}
