package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.TestDatabase;
import tools.jackson.databind.JsonNode;

/**
 * What a user submits beyond resources, seen through the packaged controller on PostgreSQL: the
 * umask and {@code --signal} a job runs with, names and paths refused for control characters, the
 * partition's memory default in a job's allocation, and a running job's new time limit reaching the
 * agent that runs it. The agent of node {@code fake1} is this test, speaking the protocol over HTTP.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SubmissionFieldsIntegrationTests {

    private static final String JOIN_TOKEN = "submission-fields-join-token-0123456789";
    private static final String DATABASE = "gantry_submission_it_" + ProcessHandle.current().pid();

    @TempDir
    static Path dir;

    private ControllerProcess controller;
    private ApiClient api;
    private String admin;

    @BeforeAll
    void startController() throws Exception {
        TestDatabase db = TestDatabase.migrated(DATABASE);
        Path cluster = dir.resolve("cluster.yml");
        Files.writeString(cluster, """
                gantry:
                  cluster:
                    name: submission-fields
                    nodes:
                      - names: fake1
                        cpus: 4
                        memory-mb: 4000
                        simulated: false
                      - names: sim[1-2]
                        cpus: 8
                        memory-mb: 16000
                        simulated: true
                      - names: whole1
                        cpus: 8
                        memory-mb: 32000
                        simulated: true
                    partitions:
                      - name: batch
                        nodes: fake1
                        default-time: "10:00"
                        max-time: "1:00:00"
                        default-mem-per-cpu: 1000
                      - name: sim
                        nodes: sim[1-2]
                        default: true
                        default-time: "10:00"
                        default-mem-per-cpu: 1500
                      - name: pernode
                        nodes: sim[1-2]
                        default-mem-per-node: 6000
                      - name: whole
                        nodes: whole1
                    switches:
                      - name: leaf1
                        nodes: fake1,sim[1-2],whole1
                    blocks:
                      - name: block1
                        nodes: fake1
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    heartbeat-timeout: 60s
                    poll-wait: 2s
                """.formatted(JOIN_TOKEN));
        Files.createDirectories(dir.resolve("controller"));
        controller = new ControllerProcess(dir.resolve("controller"), "--spring.profiles.active=postgres",
                "--spring.datasource.url=" + db.url(), "--spring.datasource.username=" + db.username(),
                "--spring.datasource.password=" + db.password(),
                "--spring.config.additional-location=file:" + cluster.toAbsolutePath());
        api = controller.start().api();
        admin = api.adminToken();
    }

    @AfterAll
    void stop() throws Exception {
        if (controller != null) {
            controller.stop();
        }
        TestDatabase.drop(DATABASE);
    }

    @Test
    void theUmaskAndSignalAsSubmittedAreShownWithTheJob() {
        long json = submit(Map.of("name", "json", "partition", "sim", "hold", true, "umask", "027",
                "signal", "b:sigusr1@120", "script", "#!/bin/bash\ntrue\n"));
        JsonNode job = api.get("/api/v1/jobs/" + json, admin).json();
        assertThat(job.get("umask").asString()).isEqualTo("0027");
        assertThat(job.get("signal").asString()).isEqualTo("B:USR1@120");

        long script = submit(Map.of("name", "script", "partition", "sim", "hold", true,
                "environment", Map.of("SLURM_UMASK", "0022"),
                "script", "#!/bin/bash\n#SBATCH --signal=TERM\ntrue\n"));
        JsonNode fromScript = api.get("/api/v1/jobs/" + script, admin).json();
        assertThat(fromScript.get("umask").asString()).as("SLURM_UMASK, as sbatch passes it").isEqualTo("0022");
        assertThat(fromScript.get("signal").asString()).as("60 s when no time is given").isEqualTo("TERM@60");

        long plain = submit(Map.of("name", "plain", "partition", "sim", "hold", true, "script", "#!/bin/bash\ntrue\n"));
        JsonNode none = api.get("/api/v1/jobs/" + plain, admin).json();
        assertThat(none.get("umask").isNull()).isTrue();
        assertThat(none.get("signal").isNull()).isTrue();
        assertThat(none.get("memoryMb").asLong()).as("while it waits: its partition's default, not 0").isEqualTo(1500);
    }

    @Test
    void aBadUmaskSignalOrAControlCharacterInANameOrPathIsRefusedNamingTheField() {
        assertRefused(Map.of("umask", "0999"), "umask");
        assertRefused(Map.of("environment", Map.of("SLURM_UMASK", "u=rwx")), "umask");
        assertRefused(Map.of("signal", "USR1@70000"), "signal");
        assertRefused(Map.of("signal", "SIGFOO"), "signal");
        assertRefused(Map.of("name", "two\nlines"), "name");
        assertRefused(Map.of("workdir", "/tmp/a\u0000b"), "workdir");
        assertRefused(Map.of("stdout", "out\r.txt"), "stdout");
        assertRefused(Map.of("stderr", "err\u001b[2J.txt"), "stderr");
        assertRefused(Map.of("comment", "bell\u0007"), "comment");

        Response directive = api.send("POST", "/api/v1/jobs", admin, Map.of("partition", "sim",
                "script", "#!/bin/bash\n#SBATCH -o 'out\u0001.txt'\n#SBATCH --signal=B:NOPE\ntrue\n"));
        assertThat(directive.status()).isEqualTo(400);
        assertThat(fields(directive)).containsExactly("script:2", "script:3");
        assertThat(directive.body()).contains("control characters", "NOPE");
    }

    @Test
    void aJobThatNamesNoMemoryGetsItsPartitionsDefaultInItsAllocation() {
        long perCpu = submit(Map.of("name", "per-cpu", "partition", "sim", "tasks", 3, "simulatedRunSeconds", 600,
                "script", "#!/bin/bash\nsleep 600\n"));
        JsonNode job = awaitRunning(perCpu);
        assertThat(job.get("allocation").get(0).get("memoryMb").asLong()).isEqualTo(3 * 1500);
        assertThat(job.get("memoryMb").asLong()).isEqualTo(3 * 1500);

        long perNode = submit(Map.of("name", "per-node", "partition", "pernode", "simulatedRunSeconds", 600,
                "script", "#!/bin/bash\nsleep 600\n"));
        assertThat(awaitRunning(perNode).get("allocation").get(0).get("memoryMb").asLong()).isEqualTo(6000);

        long asked = submit(Map.of("name", "asked", "partition", "sim", "memoryMb", 700, "simulatedRunSeconds", 600,
                "script", "#!/bin/bash\nsleep 600\n"));
        assertThat(awaitRunning(asked).get("allocation").get(0).get("memoryMb").asLong()).isEqualTo(700);

        long whole = submit(Map.of("name", "whole", "partition", "whole", "simulatedRunSeconds", 600,
                "script", "#!/bin/bash\nsleep 600\n"));
        JsonNode wholeJob = awaitRunning(whole);
        assertThat(wholeJob.get("allocation").get(0).get("memoryMb").asLong())
                .as("no default: the node's whole memory, as in Slurm").isEqualTo(32000);
        JsonNode node = api.get("/api/v1/nodes/whole1", admin).json();
        assertThat(node.get("allocMemoryMb").asLong()).isEqualTo(32000);

        // The node's memory is all held: another one-CPU job waits although 7 CPUs are free.
        long second = submit(Map.of("name", "whole-2", "partition", "whole", "simulatedRunSeconds", 600,
                "script", "#!/bin/bash\nsleep 600\n"));
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() ->
                "PENDING".equals(api.get("/api/v1/jobs/" + second, admin).json().get("state").asString()));
        for (long id : List.of(perCpu, perNode, asked, whole, second)) {
            api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        }
    }

    @Test
    void theAgentGetsTheUmaskAndSignalAtLaunchAndARunningJobsNewTimeLimit() {
        Response registered = agent("/api/v1/agents/register", JOIN_TOKEN, Map.of("name", "fake1", "cpus", 4,
                "memoryMb", 4000, "agentVersion", "test", "runningJobs", List.of()));
        assertThat(registered.status()).as(registered.body()).isEqualTo(200);
        String credential = registered.json().get("credential").asString();
        await().atMost(Duration.ofSeconds(30)).until(() ->
                "IDLE".equals(api.get("/api/v1/nodes/fake1", admin).json().get("state").asString()));

        long id = submit(Map.of("name", "owner", "partition", "batch", "cpusPerTask", 2, "umask", "0007",
                "script", "#!/bin/bash\n#SBATCH --signal=B:USR1@30\nsleep 600\n"));
        awaitRunning(id);

        JsonNode launch = awaitCommand(credential, List.of(), "LAUNCH").get("launch");
        assertThat(launch.get("jobId").asString()).isEqualTo(String.valueOf(id));
        assertThat(launch.get("identity").get("umask").asString()).isEqualTo("0007");
        assertThat(launch.get("identity").get("signal").asString()).isEqualTo("B:USR1@30");
        assertThat(launch.get("memoryMbOnNode").asLong()).as("2 CPUs at 1000 MB each").isEqualTo(2000);

        Response patched = api.send("PATCH", "/api/v1/jobs/" + id, admin, Map.of("timeLimitSeconds", 1800));
        assertThat(patched.status()).as(patched.body()).isEqualTo(200);

        JsonNode update = awaitCommand(credential, List.of(String.valueOf(id)), "UPDATE");
        assertThat(update.get("jobId").asString()).isEqualTo(String.valueOf(id));
        assertThat(update.get("timeLimitSeconds").asLong()).isEqualTo(1800);
        api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
    }

    /** Polls as fake1's agent until a command of {@code type} comes. */
    private JsonNode awaitCommand(String credential, List<String> running, String type) {
        List<JsonNode> seen = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Response poll = agent("/api/v1/agents/fake1/poll", credential,
                    Map.of("runningJobs", running, "sync", false));
            assertThat(poll.status()).as(poll.body()).isEqualTo(200);
            poll.json().get("commands").forEach(seen::add);
            return seen.stream().anyMatch(c -> type.equals(c.get("type").asString()));
        });
        return seen.stream().filter(c -> type.equals(c.get("type").asString())).findFirst().orElseThrow();
    }

    private void assertRefused(Map<String, Object> fields, String field) {
        Map<String, Object> job = new HashMap<>(Map.of("partition", "sim", "hold", true, "script", "#!/bin/bash\ntrue\n"));
        job.putAll(fields);
        Response response = api.send("POST", "/api/v1/jobs", admin, job);
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.isProblem()).isTrue();
        assertThat(fields(response)).as(response.body()).containsExactly(field);
    }

    private static List<String> fields(Response response) {
        List<String> fields = new ArrayList<>();
        response.json().get("errors").forEach(e -> fields.add(e.get("field").asString()));
        return fields;
    }

    private long submit(Map<String, Object> job) {
        Response response = api.send("POST", "/api/v1/jobs", admin, job);
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return response.json().get("jobId").asLong();
    }

    private JsonNode awaitRunning(long id) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
            last[0] = api.get("/api/v1/jobs/" + id, admin).json();
            return "RUNNING".equals(last[0].get("state").asString());
        });
        return last[0];
    }

    private Response agent(String path, String bearer, Object body) {
        return new ApiClient(controller.port()).send("POST", path, bearer, body);
    }
}
