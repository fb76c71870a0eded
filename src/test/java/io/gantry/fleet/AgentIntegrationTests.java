package io.gantry.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.AgentProcess;
import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.TimesTheHost;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The packaged controller on PostgreSQL with two real agent processes on this machine, each
 * declaring 4 GPUs: {@code node1} is named by the configuration (feature {@code alpha}),
 * {@code node2} joins the default partition unannounced (feature {@code beta}). Jobs are real bash
 * scripts; their output files, exit codes and process groups are checked on disk.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AgentIntegrationTests {

    private static final String JOIN_TOKEN = "agents-test-join-token-0123456789";
    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(6);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Its own database: this controller's cluster differs from the one the other tests share. */
    private static final String DATABASE = "gantry_agents_it_" + ProcessHandle.current().pid();

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private final Map<String, AgentProcess> agents = new HashMap<>();

    @BeforeAll
    void startControllerAndAgents() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  cluster:
                    name: agents-test
                    nodes:
                      - names: node1
                        cpus: 4
                        memory-mb: 4000
                        gpus: 4
                        gpu-type: test
                        features: [alpha]
                        simulated: false
                      - names: big1
                        cpus: 64
                        memory-mb: 512000
                        simulated: false
                      - names: sim1
                        cpus: 4
                        memory-mb: 4000
                        simulated: true
                    partitions:
                      - name: batch
                        nodes: node1
                        default: true
                        default-time: "10:00"
                        max-time: "1:00:00"
                        default-mem-per-cpu: 1000
                      - name: spare
                        nodes: big1,sim1
                        default-mem-per-cpu: 1000
                    switches:
                      - name: leaf1
                        nodes: node1
                    blocks:
                      - name: block1
                        nodes: node1
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    heartbeat-timeout: %ds
                    kill-wait: 2s
                    # the bootstrap admin has no Unix account: its jobs run as whoever runs the tests
                    allow-root-jobs: true
                    user-map:
                      admin: "%s"
                """.formatted(JOIN_TOKEN, HEARTBEAT_TIMEOUT.toSeconds(), System.getProperty("user.name")));
        // the jar itself: a new machine downloads the jar this controller runs
        controller = cluster.controller("controller").packaged().start();
        api = controller.api();
        admin = api.adminToken();
        startAgent("node1", "alpha");
        startAgent("node2", "beta");
        awaitNodeState("node1", "IDLE");
        awaitNodeState("node2", "IDLE");
    }

    @AfterAll
    void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void bothAgentsJoinedWithTheirDeclaredGpus() {
        JsonNode node1 = api.get("/api/v1/nodes/node1", admin).json();
        JsonNode node2 = api.get("/api/v1/nodes/node2", admin).json();
        assertThat(node1.get("gpus").asInt()).isEqualTo(4);
        assertThat(node2.get("gpus").asInt()).isEqualTo(4);
        assertThat(node2.get("partitions").toString()).contains("batch");
        assertThat(node1.get("lastHeartbeat").isNull()).isFalse();
    }

    @Test
    @Order(1)
    void aNewMachineGetsTheJoinCommandAndTheJarFromTheController() throws Exception {
        JsonNode join = api.get("/api/v1/agents/join-token", admin).json();
        assertThat(join.get("joinToken").asString()).isEqualTo(JOIN_TOKEN);
        assertThat(join.get("agentCommand").asString()).contains("/api/v1/agents/gantry.jar",
                "java -jar gantry.jar agent --controller http://127.0.0.1:" + controller.port(), JOIN_TOKEN);
        assertThat(api.get("/api/v1/agents/join-token", null).status()).isEqualTo(401);
        java.net.http.HttpResponse<byte[]> jar = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + controller.port()
                        + "/api/v1/agents/gantry.jar")).build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
        assertThat(jar.statusCode()).isEqualTo(200);
        assertThat(jar.body()).hasSize((int) Files.size(ControllerProcess.JAR));
    }

    @Test
    @Order(2)
    void registrationsAreCheckedAndASmallerMachineThanConfiguredIsDrained() {
        Response invalid = agentCall("/api/v1/agents/register", JOIN_TOKEN,
                Map.of("name", "bad name!", "cpus", 0, "memoryMb", 1000));
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.body()).contains("\"name\"", "\"cpus\"");

        Response simulated = agentCall("/api/v1/agents/register", JOIN_TOKEN,
                Map.of("name", "sim1", "cpus", 4, "memoryMb", 4000));
        assertThat(simulated.status()).isEqualTo(409);

        Response small = agentCall("/api/v1/agents/register", JOIN_TOKEN,
                Map.of("name", "big1", "cpus", 8, "memoryMb", 16000));
        assertThat(small.status()).as(small.body()).isEqualTo(200);
        assertThat(small.json().get("credential").asString()).startsWith("gnc_");
        JsonNode big1 = api.get("/api/v1/nodes/big1", admin).json();
        assertThat(big1.get("state").asString()).isEqualTo("DRAINED");
        assertThat(big1.get("reason").asString())
                .isEqualTo("Low CPUs (8 < 64 configured); Low RealMemory (16000 MB < 512000 MB configured)");
    }

    @Test
    @Order(3)
    void aScriptJobSeesItsIdNodeListAndExactlyItsGpus() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out-env"));
        long id = submit(Map.of("name", "env-check", "gpus", 2, "constraints", "alpha", "workdir", out.toString(),
                "stdout", "env-%j.out", "script", """
                        #!/bin/bash
                        echo "SLURM_JOB_ID=$SLURM_JOB_ID"
                        echo "SLURM_JOB_NODELIST=$SLURM_JOB_NODELIST"
                        echo "SLURM_NTASKS=$SLURM_NTASKS"
                        echo "GANTRY_JOB_ID=$GANTRY_JOB_ID"
                        echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"
                        """));
        JsonNode job = awaitState(id, "COMPLETED");
        List<String> gpus = new ArrayList<>();
        job.get("allocation").get(0).get("gpuIndices").forEach(g -> gpus.add(g.asString()));
        assertThat(gpus).hasSize(2);
        String output = Files.readString(out.resolve("env-" + id + ".out"));
        assertThat(output).contains("SLURM_JOB_ID=" + id + "\n", "SLURM_JOB_NODELIST=node1\n", "SLURM_NTASKS=1\n",
                "GANTRY_JOB_ID=" + id + "\n", "CUDA_VISIBLE_DEVICES=" + String.join(",", gpus) + "\n");
        assertThat(job.get("allocatedNodes").asString()).isEqualTo("node1");
        assertThat(job.get("exitCode").asInt()).isZero();
    }

    @Test
    @Order(3)
    void everyTaskOfAnArrayRunsTheScriptAndEnvironmentStoredOnceForIt() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out-array"));
        long id = submit(Map.of("name", "array-check", "array", "0-2", "constraints", "alpha",
                "workdir", out.toString(), "stdout", "arr-%A_%a.out", "environment", Map.of("GREETING", "hello"),
                "script", """
                        #!/bin/bash
                        echo "task=$SLURM_ARRAY_TASK_ID greeting=$GREETING"
                        """));
        for (int task = 0; task < 3; task++) {
            String taskId = id + "_" + task;
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> "COMPLETED".equals(api.get("/api/v1/jobs/" + taskId, admin).json()
                            .get("state").asString()));
            assertThat(Files.readString(out.resolve("arr-" + id + "_" + task + ".out")))
                    .isEqualTo("task=" + task + " greeting=hello\n");
        }
    }

    @Test
    @Order(4)
    void twoTwoGpuJobsOnOneNodeGetDisjointGpus() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out-gpus"));
        String script = """
                #!/bin/bash
                echo "$CUDA_VISIBLE_DEVICES"
                sleep 4
                """;
        long first = submit(Map.of("gpus", 2, "constraints", "beta", "workdir", out.toString(), "script", script));
        long second = submit(Map.of("gpus", 2, "constraints", "beta", "workdir", out.toString(), "script", script));
        JsonNode a = awaitState(first, "RUNNING");
        JsonNode b = awaitState(second, "RUNNING");
        Set<String> gpusA = gpus(a);
        Set<String> gpusB = gpus(b);
        assertThat(gpusA).hasSize(2).doesNotContainAnyElementsOf(gpusB);
        assertThat(gpusB).hasSize(2);
        awaitState(first, "COMPLETED");
        awaitState(second, "COMPLETED");
        assertThat(Files.readString(out.resolve("gantry-" + first + ".out")).strip())
                .isEqualTo(String.join(",", gpusA.stream().sorted().toList()));
        assertThat(Files.readString(out.resolve("gantry-" + second + ".out")).strip())
                .isEqualTo(String.join(",", gpusB.stream().sorted().toList()));
    }

    @Test
    @Order(5)
    void aJobOverItsTimeLimitEndsTimeoutWithItsWholeProcessGroup() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out-timeout"));
        long id = submit(Map.of("timeLimitSeconds", 3, "workdir", out.toString(), "script", """
                #!/bin/bash
                sleep 300 &
                echo $! > child.pid
                wait
                """));
        awaitState(id, "TIMEOUT");
        long child = Long.parseLong(Files.readString(out.resolve("child.pid")).strip());
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(child).isEmpty());
    }

    @Test
    @Order(6)
    void cancelKillsARunningJob() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out-cancel"));
        long id = submit(Map.of("workdir", out.toString(), "script", """
                #!/bin/bash
                sleep 300 &
                echo $! > child.pid
                wait
                """));
        awaitState(id, "RUNNING");
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(out.resolve("child.pid")));
        long child = Long.parseLong(Files.readString(out.resolve("child.pid")).strip());
        Response cancel = api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        assertThat(cancel.status()).isEqualTo(202);
        awaitState(id, "CANCELLED");
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(child).isEmpty());
    }

    @Test
    @Order(7)
    void exitCodeThreeIsFailedWithExitCodeThree() throws Exception {
        long id = submit(Map.of("workdir", Files.createDirectories(dir.resolve("out-exit")).toString(),
                "script", "#!/bin/bash\necho failing\nexit 3\n"));
        JsonNode job = awaitState(id, "FAILED");
        assertThat(job.get("exitCode").asInt()).isEqualTo(3);
    }

    @Test
    @Order(8)
    void wrongJoinTokensAndForgedOrForeignCredentialsAreRefused() throws Exception {
        Map<String, Object> registration = Map.of("name", "intruder", "cpus", 1, "memoryMb", 1000);
        Response wrongToken = agentCall("/api/v1/agents/register", "not-the-join-token", registration);
        assertThat(wrongToken.status()).isEqualTo(401);
        assertThat(wrongToken.isProblem()).isTrue();
        Response noToken = agentCall("/api/v1/agents/register", null, registration);
        assertThat(noToken.status()).isEqualTo(401);

        Response forged = agentCall("/api/v1/agents/node1/poll", "gnc_forgedforgedforgedforgedforgedforgedfor",
                Map.of("runningJobs", List.of(), "sync", false));
        assertThat(forged.status()).isEqualTo(401);

        // node1's own credential, read where its agent keeps it, cannot poll as node2 or report on node2's job.
        String node1Credential = JSON.readTree(Files.readString(dir.resolve("agent-node1/state/credential.json")))
                .get("credential").asString();
        Response asOther = agentCall("/api/v1/agents/node2/poll", node1Credential,
                Map.of("runningJobs", List.of(), "sync", false));
        assertThat(asOther.status()).isEqualTo(403);
        long onNode2 = submit(Map.of("constraints", "beta", "workdir", dir.toString(),
                "script", "#!/bin/bash\nsleep 5\n"));
        awaitState(onNode2, "RUNNING");
        Response foreignReport = agentCall("/api/v1/agents/node1/reports", node1Credential, Map.of("reports", List.of(
                Map.of("jobId", Long.toString(onNode2), "type", "ENDED", "time", "2026-01-01T00:00:00Z",
                        "state", "FAILED", "exitCode", 1))));
        assertThat(foreignReport.status()).isEqualTo(400);
        assertThat(foreignReport.body()).contains("reports[0].jobId");
        Response nullReport = agentCall("/api/v1/agents/node1/reports", node1Credential,
                Map.of("reports", java.util.Arrays.asList((Object) null)));
        assertThat(nullReport.status()).as(nullReport.body()).isEqualTo(400);
        assertThat(nullReport.body()).contains("reports[0]", "must not be null");
        Response nullStepReport = agentCall("/api/v1/agents/node1/step-reports", node1Credential,
                Map.of("reports", java.util.Arrays.asList((Object) null)));
        assertThat(nullStepReport.status()).as(nullStepReport.body()).isEqualTo(400);
        assertThat(nullStepReport.body()).contains("reports[0]", "must not be null");
        assertThat(awaitState(onNode2, "COMPLETED").get("exitCode").asInt()).isZero();
        assertThat(Files.readString(dir.resolve("controller/controller.log")))
                .contains("Refused an agent registration", "Refused an agent call", "Refused reports from node 'node1'");
    }

    @Test
    @Order(9)
    void aKilledAgentsNodeGoesDownItsJobsFailOrRequeueAndItRejoinsWhenRestarted() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out-kill"));
        long failing = submit(Map.of("constraints", "beta", "requeue", false, "workdir", out.toString(),
                "script", "#!/bin/bash\nsleep 300\n"));
        long requeued = submit(Map.of("constraints", "beta", "requeue", true, "workdir", out.toString(),
                "script", "#!/bin/bash\nsleep 2\n"));
        awaitState(failing, "RUNNING");
        awaitState(requeued, "RUNNING");

        agents.get("node2").close();
        long killedAt = System.nanoTime();
        awaitNodeState("node2", "DOWN");
        JsonNode failed = awaitState(failing, "NODE_FAIL");
        assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).isLessThan(HEARTBEAT_TIMEOUT.plusSeconds(8));
        assertThat(api.get("/api/v1/nodes/node2", admin).json().get("reason").asString()).isEqualTo("Not responding");
        assertThat(failed.get("state").asString()).isEqualTo("NODE_FAIL");
        JsonNode back = awaitState(requeued, "PENDING");
        assertThat(back.get("requeueCount").asInt()).isEqualTo(1);

        startAgent("node2", "beta");
        awaitNodeState("node2", "IDLE", "MIXED", "ALLOCATED");
        try {
            awaitState(requeued, "COMPLETED");
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("job " + requeued + ": " + api.get("/api/v1/jobs/" + requeued + "/events", admin)
                    .body() + "\nnode2's agent:\n" + Files.readString(cluster.agentLog("node2")), e);
        }
    }

    /**
     * A held long poll is a waiting answer, not a request thread: with 40 agents' polls held at once,
     * the controller's busy request threads (its own gauge) stay a handful. Last: these pseudo-agents
     * stop polling and their nodes go DOWN.
     */
    @Test
    @Order(10)
    void heldPollsHoldNoRequestThreads() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        List<java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>>> polls = new ArrayList<>();
        List<String> credentials = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Response joined = agentCall("/api/v1/agents/register", JOIN_TOKEN,
                    Map.of("name", "pseudo" + i, "cpus", 1, "memoryMb", 1000));
            assertThat(joined.status()).as(joined.body()).isEqualTo(200);
            credentials.add(joined.json().get("credential").asString());
        }
        for (int i = 0; i < 40; i++) {
            String body = JSON.writeValueAsString(Map.of("runningJobs", List.of(), "sync", false));
            polls.add(http.sendAsync(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                    "http://127.0.0.1:" + controller.port() + "/api/v1/agents/pseudo" + i + "/poll"))
                    .header("Authorization", "Bearer " + credentials.get(i))
                    .header("Content-Type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()));
        }
        // Count the busy request threads in the same scrape that shows the controller holding the polls
        // (for the poll wait, 2 s here). Polls still being authenticated and parsed do hold a thread for a
        // moment, so on a busy machine the first scrape may catch some; a poll that held its thread for the
        // whole wait would keep the count at or above the number held in every scrape.
        double[] seen = new double[2];
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            String scrape = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                    "http://127.0.0.1:" + controller.port() + "/actuator/prometheus")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            seen[0] = metric(scrape, "gantry_agents_polls_held");
            seen[1] = metric(scrape, "gantry_http_threads_busy_threads");
            // The metrics request itself is served by one of the busy threads.
            return seen[0] >= 20 && seen[1] <= 5;
        });
        assertThat(seen[1]).isBetween(1.0, 5.0);
        for (var poll : polls) {
            java.net.http.HttpResponse<String> answered = poll.get(30, TimeUnit.SECONDS);
            assertThat(answered.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(answered.body()).get("commands")).isEmpty();
        }
    }

    private static double metric(String prometheus, String name) {
        return prometheus.lines().filter(l -> l.startsWith(name + " ")).findFirst()
                .map(l -> Double.parseDouble(l.split(" ")[1])).orElse(Double.NaN);
    }

    private void startAgent(String name, String feature) throws IOException {
        agents.put(name, cluster.startAgent(controller, JOIN_TOKEN, name, 4, 4000, "--gpus", "4", "--gpu-type", "test",
                "--features", feature));
    }

    private long submit(Map<String, Object> job) {
        Response response = api.send("POST", "/api/v1/jobs", admin, job);
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return response.json().get("jobId").asLong();
    }

    private JsonNode awaitState(long id, String state) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            last[0] = api.get("/api/v1/jobs/" + id, admin).json();
            return state.equals(last[0].get("state").asString());
        });
        return last[0];
    }

    private void awaitNodeState(String node, String... states) {
        api.awaitNodeState(node, admin, Duration.ofSeconds(60), states);
    }

    private static Set<String> gpus(JsonNode job) {
        Set<String> gpus = new HashSet<>();
        assertThat(job.get("allocation")).hasSize(1);
        job.get("allocation").get(0).get("gpuIndices").forEach(g -> gpus.add(g.asString()));
        return gpus;
    }

    private Response agentCall(String path, String bearer, Object body) {
        return new ApiClient(controller.port()).send("POST", path, bearer, body);
    }
}
