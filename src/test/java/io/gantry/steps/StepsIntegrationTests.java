package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

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
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import tools.jackson.databind.JsonNode;

/**
 * Job steps end to end with the packaged controller on PostgreSQL and two agents played over HTTP: a
 * 2-node job's credential creates a step, each node gets its tasks with Slurm's environment, the tasks'
 * output and exits travel back to srun's long poll, the steps are recorded (GET /steps, sacct) and the
 * credential dies with the job.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StepsIntegrationTests {

    private static final String JOIN_TOKEN = "steps-test-join-token-0123456789";
    private static final String DATABASE = "gantry_steps_it_" + ProcessHandle.current().pid();

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private String alice;
    private final Map<String, String> credentials = new HashMap<>();
    /** Every command each fake agent was sent, in order, and how many of them a test consumed. */
    private final Map<String, List<JsonNode>> mailbox = new HashMap<>();
    private long jobId;
    private String jobToken;
    private List<String> nodes;

    @BeforeAll
    void startController() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, ClusterYaml.twoGpuNodes("steps-test", 4, 0) + """
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    heartbeat-timeout: 600s
                    poll-wait: 1s
                """.formatted(JOIN_TOKEN));
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        alice = api.createUser(admin, "alice", "alice-password");
        for (String node : List.of("node1", "node2")) {
            Response registered = api.send("POST", "/api/v1/agents/register", JOIN_TOKEN, Map.of("name", node,
                    "cpus", 4, "memoryMb", 4000, "gpus", List.of(Map.of("index", 0, "uuid", "GPU-" + node + "-0",
                            "model", "test"), Map.of("index", 1, "uuid", "GPU-" + node + "-1", "model", "test")),
                    "gpuType", "test", "features", List.of(), "agentVersion", "test", "runningJobs", List.of()));
            assertThat(registered.status()).as(registered.body()).isEqualTo(200);
            credentials.put(node, registered.json().get("credential").asString());
            mailbox.put(node, new ArrayList<>());
        }
        for (String node : List.of("node1", "node2")) {
            api.awaitNodeState(node, admin, Duration.ofSeconds(30), "IDLE");
        }
    }

    @AfterAll
    void stopController() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void aTwoNodeJobsLaunchCarriesItsCredential() {
        jobId = submit(alice, Map.of("name", "train", "nodes", 2, "tasks", 8, "gpusPerNode", 2,
                "script", "#!/bin/bash\nsrun hostname\n"));
        JsonNode job = awaitState(jobId, "RUNNING");
        nodes = new ArrayList<>();
        job.get("allocation").forEach(a -> nodes.add(a.get("node").asString()));
        assertThat(nodes).containsExactlyInAnyOrder("node1", "node2");
        JsonNode launch = awaitCommand(nodes.get(0), c -> "LAUNCH".equals(c.get("type").asString())).get("launch");
        jobToken = launch.get("environment").get("GANTRY_JOB_TOKEN").asString();
        assertThat(jobToken).isNotBlank();
        Response started = agent(nodes.get(0), "reports", Map.of("reports", List.of(Map.of("jobId", "" + jobId,
                "type", "STARTED", "time", Instant.now().toString()))));
        assertThat(started.status()).as(started.body()).isEqualTo(200);

        Response whoami = api.get("/api/v1/auth/whoami", jobToken);
        assertThat(whoami.status()).as(whoami.body()).isEqualTo(200);
        assertThat(whoami.json().get("username").asString()).isEqualTo("alice");
        // sbatch inside the job: a follow-up job as its owner
        long followUp = submit(jobToken, Map.of("name", "follow-up", "hold", true, "script", "#!/bin/bash\ntrue\n"));
        assertThat(api.get("/api/v1/jobs/" + followUp, admin).json().get("user").asString()).isEqualTo("alice");
        api.send("DELETE", "/api/v1/jobs/" + followUp, admin, null);
        // A program in the job may not sign its owner out everywhere.
        Response revoke = api.send("POST", "/api/v1/auth/tokens/revoke", jobToken, null);
        assertThat(revoke.status()).as(revoke.body()).isEqualTo(403);
        assertThat(api.get("/api/v1/auth/whoami", alice).status()).as("the owner's token still works").isEqualTo(200);
    }

    @Test
    @Order(2)
    void aStepWithTwoTasksPerNodeSendsEachNodeItsRanksAndSlurmsEnvironment() {
        Map<String, Object> step = new LinkedHashMap<>();
        step.put("argv", List.of("bash", "-c", "echo $SLURM_PROCID"));
        step.put("ntasksPerNode", 2);
        step.put("environment", Map.of("FOO", "bar", "CUDA_VISIBLE_DEVICES", "0,1", "SLURM_PROCID", "0"));
        Response created = api.send("POST", "/api/v1/jobs/" + jobId + "/steps", jobToken, step);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().get("stepId").asInt()).isZero();
        assertThat(created.json().get("nodelist").asString()).isEqualTo("node[1-2]");
        assertThat(created.json().get("tasksPerNode").toString()).isEqualTo("[[0,1],[2,3]]");

        for (int nodeId = 0; nodeId < 2; nodeId++) {
            String node = nodes.get(nodeId);
            JsonNode launch = awaitCommand(node, c -> "STEP_LAUNCH".equals(c.get("type").asString())).get("step");
            assertThat(launch.get("stepId").asInt()).isZero();
            assertThat(launch.get("nodeId").asInt()).isEqualTo(nodeId);
            assertThat(launch.get("argv").toString()).isEqualTo("[\"bash\",\"-c\",\"echo $SLURM_PROCID\"]");
            List<Integer> ranks = new ArrayList<>();
            launch.get("tasks").forEach(t -> ranks.add(t.get("procId").asInt()));
            assertThat(ranks).containsExactly(nodeId * 2, nodeId * 2 + 1);
            assertThat(launch.get("tasks").get(1).get("localId").asInt()).isEqualTo(1);
            JsonNode env = launch.get("environment");
            assertThat(env.get("SLURM_NODEID").asString()).isEqualTo("" + nodeId);
            assertThat(env.get("SLURM_STEP_ID").asString()).isEqualTo("0");
            assertThat(env.get("SLURM_NTASKS").asString()).isEqualTo("4");
            assertThat(env.get("SLURM_STEP_NUM_NODES").asString()).isEqualTo("2");
            assertThat(env.get("SLURM_TASKS_PER_NODE").asString()).isEqualTo("2(x2)");
            assertThat(env.get("SLURM_STEP_NODELIST").asString()).isEqualTo("node[1-2]");
            assertThat(env.get("SLURM_JOB_NODELIST").asString()).isEqualTo("node[1-2]");
            assertThat(env.get("SLURM_GPUS_ON_NODE").asString()).isEqualTo("2");
            assertThat(env.get("MASTER_ADDR").asString()).isEqualTo("127.0.0.1");
            assertThat(env.get("MASTER_PORT").asString()).isNotBlank();
            assertThat(env.get("FOO").asString()).isEqualTo("bar");
            // tasks without GPUs of their own see this node's share of the job's, not the srun caller's
            assertThat(env.get("SLURM_JOB_GPUS").asString().split(",")).hasSize(2);
            assertThat(env.get("CUDA_VISIBLE_DEVICES").asString()).isEqualTo(env.get("SLURM_JOB_GPUS").asString());
            assertThat(env.has("SLURM_PROCID")).as("set per task by the agent").isFalse();
        }
    }

    @Test
    @Order(3)
    void aSecondStepWaitsForTheFirstUnlessItOverlaps() {
        Response busy = api.send("POST", "/api/v1/jobs/" + jobId + "/steps", jobToken,
                Map.of("argv", List.of("true")));
        assertThat(busy.status()).as(busy.body()).isEqualTo(409);
        assertThat(busy.json().get("detail").asString())
                .isEqualTo("srun: Job " + jobId + " step creation temporarily disabled, retrying (Requested nodes are busy)");

        Response overlapping = api.send("POST", "/api/v1/jobs/" + jobId + "/steps", jobToken,
                Map.of("argv", List.of("sleep", "600"), "overlap", true, "nodes", 1));
        assertThat(overlapping.status()).as(overlapping.body()).isEqualTo(201);
        assertThat(overlapping.json().get("stepId").asInt()).isEqualTo(1);
        awaitCommand(nodes.get(0), c -> "STEP_LAUNCH".equals(c.get("type").asString()));

        Response signalled = api.send("POST", "/api/v1/jobs/" + jobId + "/steps/1/signal?signal=TERM", jobToken, null);
        assertThat(signalled.status()).as(signalled.body()).isEqualTo(202);
        JsonNode signal = awaitCommand(nodes.get(0), c -> "STEP_SIGNAL".equals(c.get("type").asString()));
        assertThat(signal.get("step").get("signal").asString()).isEqualTo("TERM");
        assertThat(signal.get("step").get("stepId").asInt()).isEqualTo(1);
        Response ended = stepReports(nodes.get(0), ended(1, 0, null, 15));
        assertThat(ended.status()).as(ended.body()).isEqualTo(200);
    }

    @Test
    @Order(4)
    void tasksOutputAndExitsReachSrunsPoll() {
        Response wrongNode = stepReports(nodes.get(0), output(0, 2, 0, "not mine\n"));
        assertThat(wrongNode.status()).as(wrongNode.body()).isEqualTo(400);

        assertThat(stepReports(nodes.get(0), output(0, 0, 0, "rank 0\n"), output(0, 1, 0, "rank 1\n"),
                output(0, 0, 0, "rank 0\n")).status()).isEqualTo(200);
        Response first = api.get("/api/v1/jobs/" + jobId + "/steps/0/io?after=0", jobToken);
        assertThat(first.status()).as(first.body()).isEqualTo(200);
        assertThat(first.json().get("chunks")).hasSize(2);
        assertThat(first.json().get("done").asBoolean()).isFalse();
        long next = first.json().get("next").asLong();

        assertThat(stepReports(nodes.get(1), output(0, 2, 0, "rank 2\n"), output(0, 3, 0, "rank 3\n"),
                ended(0, 2, 0, null), ended(0, 3, 3, null)).status()).isEqualTo(200);
        assertThat(stepReports(nodes.get(0), ended(0, 0, 0, null), ended(0, 1, 0, null)).status()).isEqualTo(200);
        Response rest = api.get("/api/v1/jobs/" + jobId + "/steps/0/io?after=" + next, jobToken);
        assertThat(rest.status()).as(rest.body()).isEqualTo(200);
        List<String> data = new ArrayList<>();
        rest.json().get("chunks").forEach(c -> data.add(c.get("procId").asInt() + ":" + c.get("data").asString()));
        assertThat(data).containsExactly("2:rank 2\n", "3:rank 3\n");
        assertThat(rest.json().get("done").asBoolean()).isTrue();
        assertThat(rest.json().get("exits")).hasSize(4);
        assertThat(rest.json().get("exits").get(3).get("exitCode").asInt()).isEqualTo(3);
    }

    @Test
    @Order(5)
    void theStepsListAndSacctShowTheBatchStepAndEachSrunStep() {
        Response steps = api.get("/api/v1/jobs/" + jobId + "/steps", alice);
        assertThat(steps.status()).as(steps.body()).isEqualTo(200);
        List<String> lines = new ArrayList<>();
        steps.json().get("items").forEach(s -> lines.add(s.get("stepId").asString() + " " + s.get("state").asString()
                + " " + (s.path("exitCode").isNumber() ? s.get("exitCode").asInt() : "-") + " " + s.get("tasks").asInt()));
        assertThat(lines).containsExactly("batch RUNNING - 1", "0 FAILED 3 4", "1 CANCELLED 143 1");

        Response sacct = api.get("/api/v1/accounting/jobs?jobId=" + jobId + "&includeSteps=true", alice);
        assertThat(sacct.status()).as(sacct.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        sacct.json().get("items").forEach(r -> ids.add(r.get("jobId").asString() + " " + r.get("state").asString()));
        assertThat(ids).containsExactly(jobId + " RUNNING", jobId + ".batch RUNNING", jobId + ".0 FAILED",
                jobId + ".1 CANCELLED");
    }

    @Test
    @Order(6)
    void stepsBeyondTheAllocationAreRefusedWithSlurmsMessages() {
        assertRefused(Map.of("argv", List.of("true"), "ntasks", 9), "srun: error: Unable to create step for job "
                + jobId + ": More processors requested than permitted");
        assertRefused(Map.of("argv", List.of("true"), "nodes", 3), "srun: error: Only allocated 2 nodes asked for 3");
        assertRefused(Map.of("argv", List.of("true"), "gpusPerTask", 2, "ntasksPerNode", 2),
                "srun: error: Unable to create step for job " + jobId + ": Invalid generic resource (gres) specification");
        assertRefused(Map.of("argv", List.of("true"), "nodelist", "node9"),
                "srun: error: Unable to create step for job " + jobId + ": Requested node configuration is not available");
        Response pmix = api.send("POST", "/api/v1/jobs/" + jobId + "/steps", jobToken,
                Map.of("argv", List.of("true"), "mpi", "pmix"));
        assertThat(pmix.status()).isEqualTo(400);
        assertThat(pmix.json().get("detail").asString()).startsWith("srun: error: Invalid MPI type 'pmix'");
    }

    @Test
    @Order(6)
    void oversizedStepsAreRefusedBeforeAnythingIsStoredOrSent() {
        drainMailboxes();
        int stepsBefore = api.get("/api/v1/jobs/" + jobId + "/steps", alice).json().get("items").size();
        // The review's request: 200,000 environment entries, about 10 MB; refused unread.
        Map<String, String> huge = new LinkedHashMap<>();
        for (int i = 0; i < 200_000; i++) {
            huge.put("VARIABLE_" + i, "value-of-variable-number-" + i);
        }
        Response tenMegabytes = createStep(Map.of("argv", List.of("true"), "environment", huge));
        assertThat(tenMegabytes.status()).as(tenMegabytes.body()).isEqualTo(413);
        assertThat(tenMegabytes.isProblem()).isTrue();
        // A 12 MB argv.
        List<String> longArgv = new ArrayList<>(List.of("echo"));
        for (int i = 0; i < 12; i++) {
            longArgv.add("x".repeat(1_000_000));
        }
        Response twelveMegabytes = createStep(Map.of("argv", longArgv));
        assertThat(twelveMegabytes.status()).as(twelveMegabytes.body()).isEqualTo(413);
        // Under the body cap but over what execve takes: 400 naming the field.
        Map<String, String> many = new LinkedHashMap<>();
        for (int i = 0; i < 20_000; i++) {
            many.put("V" + i, "v");
        }
        assertFieldRefused(Map.of("argv", List.of("true"), "environment", many), "environment", "at most 8,192");
        Map<String, String> large = new LinkedHashMap<>();
        for (int i = 0; i < 30; i++) {
            large.put("LARGE_" + i, "y".repeat(100_000));
        }
        assertFieldRefused(Map.of("argv", List.of("true"), "environment", large), "environment", "ARG_MAX");
        assertFieldRefused(Map.of("argv", List.of("echo", "z".repeat(200_000))), "argv[1]", "131,071");
        List<String> manyArgs = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            manyArgs.add("a");
        }
        assertFieldRefused(Map.of("argv", manyArgs), "argv", "at most 4,096");
        assertFieldRefused(Map.of("argv", List.of("true"), "name", "n".repeat(300)), "name", "at most 256");
        assertFieldRefused(Map.of("argv", List.of("true"), "workdir", "/" + "d".repeat(5000)), "workdir", "4,095");

        assertThat(api.get("/api/v1/jobs/" + jobId + "/steps", alice).json().get("items").size())
                .as("no step was stored").isEqualTo(stepsBefore);
        assertNoStepLaunch();
    }

    @Test
    @Order(6)
    void nulAndRelativeDirectoriesAreRefusedAtTheController() {
        drainMailboxes();
        int stepsBefore = api.get("/api/v1/jobs/" + jobId + "/steps", alice).json().get("items").size();
        assertFieldRefused(Map.of("argv", List.of("echo", "a", "b\0c")), "argv[2]", "NUL");
        assertFieldRefused(Map.of("argv", List.of("true"), "workdir", "/tmp/a\0b"), "workdir", "NUL");
        assertFieldRefused(Map.of("argv", List.of("true"), "workdir", "relative/dir"), "workdir", "absolute");
        assertFieldRefused(Map.of("argv", List.of("true"), "environment", Map.of("A", "x\0y")), "environment.A", "NUL");
        assertFieldRefused(Map.of("argv", List.of("true"), "environment", Map.of("A=B", "x")), "environment.A=B",
                "variable name");
        assertThat(api.get("/api/v1/jobs/" + jobId + "/steps", alice).json().get("items").size())
                .as("no step was stored").isEqualTo(stepsBefore);
        assertNoStepLaunch();

        // Jobs: a relative workdir means nothing on the node, in JSON or in a directive.
        Response relative = api.send("POST", "/api/v1/jobs", alice, Map.of("name", "rel", "workdir", "some/dir",
                "script", "#!/bin/bash\ntrue\n"));
        assertThat(relative.status()).as(relative.body()).isEqualTo(400);
        assertThat(relative.body()).contains("\"workdir\"", "absolute");
        Response directive = api.send("POST", "/api/v1/jobs", alice, Map.of("name", "rel",
                "script", "#!/bin/bash\n#SBATCH -D some/dir\ntrue\n"));
        assertThat(directive.status()).as(directive.body()).isEqualTo(400);
        assertThat(directive.body()).contains("script:2", "absolute");
    }

    @Test
    @Order(6)
    void onlyTheOwnerAndOperatorsReadAStepsArgv() {
        String bob = api.createUser(admin, "bob", "bob-password");
        JsonNode mine = api.get("/api/v1/jobs/" + jobId + "/steps", alice).json().get("items");
        JsonNode others = api.get("/api/v1/jobs/" + jobId + "/steps", bob).json().get("items");
        JsonNode admins = api.get("/api/v1/jobs/" + jobId + "/steps", admin).json().get("items");
        assertThat(mine.get(1).get("argv").toString()).isEqualTo("[\"bash\",\"-c\",\"echo $SLURM_PROCID\"]");
        assertThat(admins.get(1).get("argv").toString()).isEqualTo(mine.get(1).get("argv").toString());
        assertThat(others.size()).isEqualTo(mine.size());
        for (JsonNode step : others) {
            assertThat(step.get("argv").isNull()).as(step.toString()).isTrue();
        }
        assertThat(others.get(1).get("id").asString()).isEqualTo(jobId + ".0");
        // a second ordinary user cannot read it either, nor through the job
        String carol = api.createUser(admin, "carol", "carol-password");
        assertThat(api.get("/api/v1/jobs/" + jobId + "/steps", carol).body()).doesNotContain("SLURM_PROCID");
        assertThat(api.get("/api/v1/jobs/" + jobId, carol).body()).doesNotContain("srun hostname");
    }

    @Test
    @Order(7)
    void anotherUsersTokenCannotCreateSteps() {
        // the owner's own token may (srun --jobid from a login node: SrunOutsideJobIntegrationTests); an admin's not
        Response admins = api.send("POST", "/api/v1/jobs/" + jobId + "/steps", admin, Map.of("argv", List.of("true")));
        assertThat(admins.status()).as(admins.body()).isEqualTo(403);
    }

    @Test
    @Order(8)
    void gpusPerTaskGiveEachTaskItsOwnGpus() {
        Response created = api.send("POST", "/api/v1/jobs/" + jobId + "/steps", jobToken,
                Map.of("argv", List.of("nvidia-smi"), "ntasksPerNode", 2, "gpusPerTask", 1, "exact", true));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        int step = created.json().get("stepId").asInt();
        JsonNode launch = awaitCommand(nodes.get(1), c -> "STEP_LAUNCH".equals(c.get("type").asString())
                && c.get("step").get("stepId").asInt() == step).get("step");
        assertThat(launch.get("tasks").get(0).get("gpuIndices").toString()).isEqualTo("[0]");
        assertThat(launch.get("tasks").get(1).get("gpuIndices").toString()).isEqualTo("[1]");
        awaitCommand(nodes.get(0), c -> "STEP_LAUNCH".equals(c.get("type").asString()));
    }

    @Test
    @Order(9)
    void theJobsEndKillsItsRunningStepsOnEveryNodeAndItsCredential() {
        Response ended = agent(nodes.get(0), "reports", Map.of("reports", List.of(Map.of("jobId", "" + jobId,
                "type", "ENDED", "time", Instant.now().toString(), "state", "COMPLETED", "exitCode", 0))));
        assertThat(ended.status()).as(ended.body()).isEqualTo(200);
        awaitState(jobId, "COMPLETED");
        for (String node : nodes) {
            JsonNode kill = awaitCommand(node, c -> "STEP_SIGNAL".equals(c.get("type").asString()));
            assertThat(kill.get("step").get("signal").asString()).isEqualTo("KILL");
        }
        JsonNode last = api.get("/api/v1/jobs/" + jobId + "/steps", alice).json().get("items");
        assertThat(last.get(last.size() - 1).get("state").asString()).isEqualTo("CANCELLED");
        Response late = stepReports(nodes.get(0), output(2, 0, 7, "late\n"), ended(2, 0, null, 9));
        assertThat(late.status()).as("acknowledged, so the agent stops repeating it: " + late.body()).isEqualTo(200);
        assertThat(stepReports(nodes.get(0), output(7, 0, 0, "no such step\n")).status()).isEqualTo(400);

        Response refused = api.get("/api/v1/auth/whoami", jobToken);
        assertThat(refused.status()).as(refused.body()).isEqualTo(401);
        Response noStep = api.send("POST", "/api/v1/jobs/" + jobId + "/steps", jobToken, Map.of("argv", List.of("true")));
        assertThat(noStep.status()).isEqualTo(401);
    }

    @Test
    @Order(10)
    void aCancelKillsARunningStepOnEveryNodeOfIt() {
        long second = submit(alice, Map.of("name", "sleepy", "nodes", 2, "tasks", 2, "script", "#!/bin/bash\nsrun sleep 600\n"));
        JsonNode job = awaitState(second, "RUNNING");
        String batchHost = job.get("allocation").get(0).get("node").asString();
        JsonNode launch = awaitCommand(batchHost, c -> "LAUNCH".equals(c.get("type").asString())
                && c.get("jobId").asString().equals("" + second)).get("launch");
        String token = launch.get("environment").get("GANTRY_JOB_TOKEN").asString();
        assertThat(token).isNotEqualTo(jobToken);
        Response created = api.send("POST", "/api/v1/jobs/" + second + "/steps", token, Map.of("argv", List.of("sleep", "600")));
        assertThat(created.status()).as(created.body()).isEqualTo(201);

        Response cancelled = api.send("DELETE", "/api/v1/jobs/" + second, alice, null);
        assertThat(cancelled.status()).as(cancelled.body()).isIn(200, 202);
        for (String node : nodes) {
            JsonNode kill = awaitCommand(node, c -> "STEP_SIGNAL".equals(c.get("type").asString())
                    && c.get("jobId").asString().equals("" + second));
            assertThat(kill.get("step").get("signal").asString()).isEqualTo("KILL");
        }
        awaitCommand(batchHost, c -> "KILL".equals(c.get("type").asString()));
        Response ended = agent(batchHost, "reports", Map.of("reports", List.of(Map.of("jobId", "" + second,
                "type", "ENDED", "time", Instant.now().toString(), "state", "CANCELLED"))));
        assertThat(ended.status()).as(ended.body()).isEqualTo(200);
        awaitState(second, "CANCELLED");
        JsonNode steps = api.get("/api/v1/jobs/" + second + "/steps", alice).json().get("items");
        assertThat(steps.get(1).get("state").asString()).isEqualTo("CANCELLED");
    }

    private Response createStep(Map<String, Object> step) {
        return api.send("POST", "/api/v1/jobs/" + jobId + "/steps", jobToken, step);
    }

    private void assertFieldRefused(Map<String, Object> step, String field, String message) {
        Response refused = createStep(step);
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.isProblem()).isTrue();
        JsonNode errors = refused.json().get("errors");
        assertThat(errors).as(refused.body()).isNotNull();
        assertThat(errors.get(0).get("field").asString()).as(refused.body()).isEqualTo(field);
        assertThat(errors.get(0).get("message").asString()).as(refused.body()).contains(message);
    }

    /** Takes every command the agents were sent so far (a poll with none waits the poll wait, 1 s). */
    private void drainMailboxes() {
        for (String node : nodes) {
            while (true) {
                Response poll = agent(node, "poll", Map.of("runningJobs", List.of(), "sync", false));
                assertThat(poll.status()).as(poll.body()).isEqualTo(200);
                JsonNode commands = poll.json().get("commands");
                if (commands.isEmpty()) {
                    break;
                }
                commands.forEach(mailbox.get(node)::add);
            }
        }
    }

    private void assertNoStepLaunch() {
        for (String node : nodes) {
            Response poll = agent(node, "poll", Map.of("runningJobs", List.of(), "sync", false));
            assertThat(poll.status()).as(poll.body()).isEqualTo(200);
            List<JsonNode> launches = new ArrayList<>();
            poll.json().get("commands").forEach(c -> {
                mailbox.get(node).add(c);
                if ("STEP_LAUNCH".equals(c.get("type").asString())) {
                    launches.add(c);
                }
            });
            assertThat(launches).as("nothing reached node " + node).isEmpty();
        }
    }

    private void assertRefused(Map<String, Object> step, String message) {
        Response refused = api.send("POST", "/api/v1/jobs/" + jobId + "/steps", jobToken, step);
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.isProblem()).isTrue();
        assertThat(refused.json().get("detail").asString()).isEqualTo(message);
    }

    private static Map<String, Object> output(int step, int procId, long seq, String data) {
        return Map.of("jobId", "", "stepId", step, "procId", procId, "type", "OUTPUT", "stream", "stdout", "seq", seq,
                "data", data);
    }

    private static Map<String, Object> ended(int step, int procId, Integer exitCode, Integer signal) {
        Map<String, Object> report = new HashMap<>(Map.of("jobId", "", "stepId", step, "procId", procId,
                "type", "ENDED", "seq", 0));
        if (exitCode != null) {
            report.put("exitCode", exitCode);
        }
        if (signal != null) {
            report.put("signal", signal);
        }
        return report;
    }

    @SafeVarargs
    private Response stepReports(String node, Map<String, Object>... reports) {
        List<Map<String, Object>> withJob = new ArrayList<>();
        for (Map<String, Object> r : reports) {
            Map<String, Object> copy = new HashMap<>(r);
            copy.put("jobId", "" + jobId);
            withJob.add(copy);
        }
        return agent(node, "step-reports", Map.of("reports", withJob));
    }

    private Response agent(String node, String call, Object body) {
        return api.send("POST", "/api/v1/agents/" + node + "/" + call, credentials.get(node), body);
    }

    /** Polls as {@code node}'s agent until a command that matches comes; takes it out of the node's mailbox. */
    private JsonNode awaitCommand(String node, Predicate<JsonNode> wanted) {
        List<JsonNode> box = mailbox.get(node);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            if (box.stream().anyMatch(wanted)) {
                return true;
            }
            Response poll = agent(node, "poll", Map.of("runningJobs", List.of(), "sync", false));
            assertThat(poll.status()).as(poll.body()).isEqualTo(200);
            poll.json().get("commands").forEach(box::add);
            return box.stream().anyMatch(wanted);
        });
        JsonNode found = box.stream().filter(wanted).findFirst().orElseThrow();
        box.remove(found);
        return found;
    }

    private long submit(String token, Map<String, Object> job) {
        Response response = api.send("POST", "/api/v1/jobs", token, job);
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return response.json().get("jobId").asLong();
    }

    private JsonNode awaitState(long id, String state) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
            last[0] = api.get("/api/v1/jobs/" + id, admin).json();
            return state.equals(last[0].get("state").asString());
        });
        return last[0];
    }
}
