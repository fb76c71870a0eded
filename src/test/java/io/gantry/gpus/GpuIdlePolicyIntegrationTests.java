package io.gantry.gpus;

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
import io.gantry.support.FakeNvidiaSmi;
import io.gantry.support.OwnCluster;
import io.gantry.support.TimesTheHost;
import tools.jackson.databind.JsonNode;

/**
 * The GPU idle policy end to end (issue 33, done-when 2) with a real agent whose {@code nvidia-smi} reads
 * each GPU's utilisation from a file its job writes: on one node, job A sets its GPU to 0 %, job B to 80 %,
 * job C (under a QOS with gpuIdleExempt) to 0 %. The partition's policy (idle 4 s below 5 %, grace 4 s,
 * CANCEL) warns A with an event and SIGUSR1 (which its own trap records), then cancels it with a reason that
 * says why, while B runs on, and C, as idle as A, is never touched.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GpuIdlePolicyIntegrationTests {

    private static final String JOIN_TOKEN = "gpuidle-test-join-token-0123456789";
    private static final String DATABASE = "gantry_gpuidle_it_" + ProcessHandle.current().pid();
    private static final int TIMEOUT = 4;
    private static final int GRACE = 4;
    /** The grace of partition lab (REQUEUE), long enough for the test to make a warned job busy again. */
    private static final int LAB_GRACE = 6;

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ApiClient api;
    private String admin;
    private FakeNvidiaSmi smi;

    @BeforeAll
    void start() throws Exception {
        smi = FakeNvidiaSmi.install(dir, 5);
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  gpus:
                    idle-check-period: 500ms
                  cluster:
                    name: gpuidle-test
                    nodes:
                      - names: node1
                        cpus: 6
                        memory-mb: 4000
                        gpus: 5
                        gpu-type: test
                        simulated: false
                    partitions:
                      - name: batch
                        nodes: node1
                        default: true
                        default-time: "10:00"
                        default-mem-per-cpu: 500
                        gpu-idle-timeout-seconds: %d
                        gpu-idle-grace-seconds: %d
                        gpu-idle-action: CANCEL
                      - name: lab
                        nodes: node1
                        default-time: "10:00"
                        default-mem-per-cpu: 500
                        gpu-idle-timeout-seconds: %d
                        gpu-idle-grace-seconds: %d
                        gpu-idle-action: REQUEUE
                    switches:
                      - name: leaf1
                        nodes: node1
                    blocks:
                      - name: block1
                        nodes: node1
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    kill-wait: 2s
                    poll-wait: 1s
                    gpu-sample-interval: 500ms
                """.formatted(TIMEOUT, GRACE, TIMEOUT, LAB_GRACE, JOIN_TOKEN) + ClusterYaml.adminRunsJobsAsTester());
        ControllerProcess controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        cluster.startAgent(controller, Map.of("PATH", smi.bin() + ":" + System.getenv("PATH")), JOIN_TOKEN, "node1", 6,
                4000, "--gpu-type", "test");
        api.awaitNodeState("node1", admin, Duration.ofSeconds(60), "IDLE");
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void anIdleJobIsWarnedThenCancelledWhileABusyOneAndAnExemptOneRunOn() {
        JsonNode policy = api.get("/api/v1/partitions/batch", admin).json().get("gpuIdle");
        assertThat(policy.get("timeoutSeconds").asLong()).isEqualTo(TIMEOUT);
        assertThat(policy.get("thresholdPercent").asDouble()).as("the report's threshold by default").isEqualTo(5.0);
        assertThat(policy.get("graceSeconds").asLong()).isEqualTo(GRACE);
        assertThat(policy.get("action").asString()).isEqualTo("CANCEL");

        Response qos = api.send("POST", "/api/v1/qos", admin, Map.of("name", "notebooks", "gpuIdleExempt", true));
        assertThat(qos.status()).as(qos.body()).isEqualTo(201);
        assertThat(qos.json().get("gpuIdleExempt").asBoolean()).isTrue();

        Path usr1 = dir.resolve("a-got-usr1");
        // A's batch shell waits while a child that traps USR1 (the warning) records it and keeps its GPU idle
        long idle = submit("idle", smi.setOwnUtilization(0) + "\nbash -c 'trap \"touch " + usr1
                + "\" USR1; while true; do sleep 0.2; done' &\nwait", null);
        long busy = submit("busy", smi.setOwnUtilization(80) + "\nsleep 300", null);
        long exempt = submit("exempt", smi.setOwnUtilization(0) + "\nsleep 300", "notebooks");
        for (long id : List.of(idle, busy, exempt)) {
            api.awaitJobState(id, admin, "RUNNING", Duration.ofSeconds(60));
        }

        JsonNode warning = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> event(idle, "GPU_IDLE"), e -> e != null);
        assertThat(warning.get("detail").asString()).matches("GPUs idle for \\d+ s below 5 %: CANCEL in " + GRACE
                + " s unless they get busy \\(partition batch's GPU idle policy\\)");
        assertThat(event(idle, "SIGNALLED").get("detail").asString())
                .isEqualTo("SIGUSR1 sent to its processes but the batch shell as its GPUs are idle");
        await().atMost(Duration.ofSeconds(15)).until(() -> Files.exists(usr1));

        api.awaitJobState(idle, admin, "CANCELLED", Duration.ofSeconds(30));
        JsonNode cancelled = event(idle, "CANCELLED");
        assertThat(cancelled.get("detail").asString()).matches("cancelled: GPUs idle for \\d+ s below 5 % "
                + "\\(partition batch's GPU idle policy, grace " + GRACE + " s\\)");
        assertThat(Duration.between(Instant.parse(warning.get("time").asString()),
                Instant.parse(cancelled.get("time").asString())).toMillis()).as("after the grace")
                .isGreaterThanOrEqualTo(GRACE * 1000L);
        int idleFor = Integer.parseInt(cancelled.get("detail").asString().replaceAll("\\D*(\\d+) s.*", "$1"));
        assertThat(idleFor).isGreaterThanOrEqualTo(TIMEOUT + GRACE);

        // the exempt job, idle longer than what got A cancelled (and a check period more), and the busy one
        // run on, never warned
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250)).until(() -> api.get(
                "/api/v1/jobs/" + exempt, admin).json().path("gpuUsage").path("idleGpuSeconds").asDouble()
                >= TIMEOUT + GRACE + 2);
        for (long id : List.of(busy, exempt)) {
            assertThat(api.get("/api/v1/jobs/" + id, admin).json().get("state").asString()).isEqualTo("RUNNING");
            assertThat(event(id, "GPU_IDLE")).as("job " + id + " warned").isNull();
            assertThat(event(id, "SIGNALLED")).isNull();
        }
        assertThat(api.get("/api/v1/jobs/" + busy, admin).json().get("gpuUsage").get("peakUtilization").asDouble())
                .as("its GPU was read busy").isEqualTo(80.0);
        for (long id : List.of(busy, exempt)) {
            api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        }
    }

    @Test
    void underRequeueAnIdleJobGoesBackToTheQueueWhileOneBusyAgainInItsGraceStartsItsCountdownAgain() {
        // both ignore the warning's SIGUSR1 (inherited by their sleeps), which would end them otherwise
        String ignoring = "\ntrap '' USR1\nbash -c 'while true; do sleep 0.2; done' &\nwait";
        long idle = submit("lab-idle", smi.setOwnUtilization(0) + ignoring, null, "lab");
        long waking = submit("lab-waking", smi.setOwnUtilization(0) + ignoring, null, "lab");
        for (long id : List.of(idle, waking)) {
            api.awaitJobState(id, admin, "RUNNING", Duration.ofSeconds(60));
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> event(waking, "GPU_IDLE"), e -> e != null);
        // the notebook's user comes back: its GPU gets busy within the grace
        int gpu = api.get("/api/v1/jobs/" + waking, admin).json().get("allocation").get(0).get("gpuIndices").get(0)
                .asInt();
        write(smi.bin().resolve("gpu-" + gpu + ".util"), "80");
        JsonNode reset = await().atMost(Duration.ofSeconds(LAB_GRACE)).pollInterval(Duration.ofMillis(250))
                .until(() -> event(waking, "GPU_BUSY"), e -> e != null);
        assertThat(reset.get("detail").asString()).isEqualTo("GPUs busy again: the GPU idle countdown starts again");

        JsonNode requeued = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> event(idle, "REQUEUED"), e -> e != null);
        assertThat(requeued.get("detail").asString()).matches("requeued: GPUs idle for \\d+ s below 5 % "
                + "\\(partition lab's GPU idle policy, grace " + LAB_GRACE + " s\\)");
        assertThat(api.get("/api/v1/jobs/" + idle, admin).json().get("state").asString()).isIn("PENDING", "RUNNING");
        // the job made busy again outlives its old countdown's grace, never requeued
        await().during(Duration.ofSeconds(LAB_GRACE + 1)).atMost(Duration.ofSeconds(LAB_GRACE + 5))
                .pollInterval(Duration.ofMillis(500)).until(() -> event(waking, "REQUEUED") == null
                        && "RUNNING".equals(api.get("/api/v1/jobs/" + waking, admin).json().get("state").asString()));
        for (long id : List.of(idle, waking)) {
            api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private long submit(String name, String body, String qos) {
        return submit(name, body, qos, null);
    }

    private long submit(String name, String body, String qos, String partition) {
        Map<String, Object> job = new java.util.HashMap<>(Map.of("name", name, "nodes", 1, "gpusPerNode", 1,
                "workdir", dir.toString(), "script", "#!/bin/bash\n" + body + "\n"));
        if (qos != null) {
            job.put("qos", qos);
        }
        if (partition != null) {
            job.put("partition", partition);
        }
        return api.submitJob(admin, job);
    }

    /** The job's latest event of {@code type}, or null. */
    private JsonNode event(long id, String type) {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode e : api.get("/api/v1/jobs/" + id + "/events", admin).json()) {
            if (e.get("type").asString().equals(type)) {
                found.add(e);
            }
        }
        return found.isEmpty() ? null : found.get(found.size() - 1);
    }
}
