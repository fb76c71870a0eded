package io.gantry.fleet;

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

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import tools.jackson.databind.JsonNode;

/**
 * Containers as the controller handles them (issue 30): a container asked for in the JSON or with
 * {@code #SBATCH --container-*} is checked field by field, kept with the job, shown in its view and
 * sent in the LAUNCH its node's agent gets; an srun step's own container reaches STEP_LAUNCH (and a
 * step without one gets none, as with pyxis); the agent's IMAGE report records the digest and an
 * event and never ends the job. The packaged controller on PostgreSQL; node1's agent is this test,
 * speaking the agent protocol over HTTP (the node side, pulling and running images, is tested with it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContainerIntegrationTests {

    private static final String JOIN_TOKEN = "container-test-join-token-0123456789";
    private static final String DATABASE = "gantry_container_it_" + ProcessHandle.current().pid();
    private static final String DIGEST = "sha256:" + "3f".repeat(32);
    private static final String STEP_DIGEST = "sha256:" + "a1".repeat(32);

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private String node1;

    @BeforeAll
    void startControllerAndJoinNode() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  cluster:
                    name: container-test
                    nodes:
                      - names: node1
                        cpus: 4
                        memory-mb: 4000
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
                      - name: sim
                        nodes: sim1
                        default-time: "10:00"
                    switches:
                      - name: leaf1
                        nodes: node1,sim1
                    blocks:
                      - name: block1
                        nodes: node1
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    heartbeat-timeout: 600s
                    poll-wait: 1s
                """.formatted(JOIN_TOKEN));
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        Response joined = api.send("POST", "/api/v1/agents/register", JOIN_TOKEN, Map.of("name", "node1", "cpus", 4,
                "memoryMb", 4000, "gpus", List.of()));
        assertThat(joined.status()).as(joined.body()).isEqualTo(200);
        node1 = joined.json().get("credential").asString();
        await().atMost(Duration.ofSeconds(30)).until(() ->
                "IDLE".equals(api.get("/api/v1/nodes/node1", admin).json().get("state").asString()));
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aJobsContainerReachesItsViewItsLaunchAndItsImageReportRecordsTheDigest() throws Exception {
        Map<String, Object> container = new LinkedHashMap<>();
        container.put("image", "127.0.0.1:5000/test:1");
        container.put("mounts", List.of("/srv/data:/data:ro", "/scratch:/scratch"));
        container.put("workdir", "/data");
        container.put("env", List.of("HF_TOKEN"));
        container.put("remapRoot", true);
        long id = submit(Map.of("name", "in-image", "nodelist", "node1", "container", container,
                "script", "#!/bin/sh\ncat /marker\n"));
        JsonNode running = awaitState(id, "RUNNING");
        assertThat(running.get("container").get("image").asString()).isEqualTo("127.0.0.1:5000/test:1");
        assertThat(running.get("container").get("mounts").toString())
                .isEqualTo("[\"/srv/data:/data:ro\",\"/scratch:/scratch\"]");
        assertThat(running.get("container").get("remapRoot").asBoolean()).isTrue();
        assertThat(running.get("containerImageDigest").isNull()).as("no node has the image yet").isTrue();

        JsonNode launch = awaitCommand(List.of(), "LAUNCH", c -> c.get("jobId").asString().equals(id + ""))
                .get("launch");
        JsonNode sent = launch.get("container");
        assertThat(sent.get("image").asString()).isEqualTo("127.0.0.1:5000/test:1");
        assertThat(sent.get("mounts").toString()).isEqualTo("[\"/srv/data:/data:ro\",\"/scratch:/scratch\"]");
        assertThat(sent.get("workdir").asString()).isEqualTo("/data");
        assertThat(sent.get("env").toString()).isEqualTo("[\"HF_TOKEN\"]");
        assertThat(sent.get("remapRoot").asBoolean()).isTrue();

        // The node pulls the image before it starts the script: IMAGE, then STARTED.
        Instant start = Instant.parse(running.get("startTime").asString());
        Response reported = report(image(id, start, "127.0.0.1:5000/test:1", DIGEST, true, null),
                started(id, start));
        assertThat(reported.status()).as(reported.body()).isEqualTo(200);

        JsonNode job = api.get("/api/v1/jobs/" + id, admin).json();
        assertThat(job.get("state").asString()).as("an image on the node is no end").isEqualTo("RUNNING");
        assertThat(job.get("containerImageDigest").asString()).isEqualTo(DIGEST);
        List<JsonNode> events = new ArrayList<>();
        api.get("/api/v1/jobs/" + id + "/events", admin).json().forEach(events::add);
        assertThat(events).anySatisfy(e -> {
            assertThat(e.get("type").asString()).isEqualTo("IMAGE");
            assertThat(e.get("detail").asString()).contains("127.0.0.1:5000/test:1", DIGEST, "pulled on node1");
        });
        assertThat(events).noneSatisfy(e -> assertThat(e.get("type").asString()).isIn("COMPLETED", "FAILED"));

        // sacct's record carries the image.
        JsonNode sacct = api.get("/api/v1/accounting/jobs?jobId=" + id, admin).json().get("items").get(0);
        assertThat(sacct.get("containerImage").asString()).isEqualTo("127.0.0.1:5000/test:1");
        assertThat(sacct.get("containerImageDigest").asString()).isEqualTo(DIGEST);

        // srun with its own --container-image: STEP_LAUNCH carries it; its IMAGE report names the step.
        Map<String, Object> step = stepRequest(List.of("cat", "/etc/os-release"));
        step.put("container", Map.of("image", "nvcr.io#nvidia/pytorch:24.05-py3", "name", "torch"));
        Response created = api.send("POST", "/api/v1/jobs/" + id + "/steps", admin, step);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        int stepId = created.json().get("stepId").asInt();
        JsonNode stepLaunch = awaitCommand(List.of(id + ""), "STEP_LAUNCH",
                c -> c.get("step").get("stepId").asInt() == stepId).get("step");
        assertThat(stepLaunch.get("container").get("image").asString()).isEqualTo("nvcr.io#nvidia/pytorch:24.05-py3");
        assertThat(stepLaunch.get("container").get("name").asString()).isEqualTo("torch");

        reported = report(image(id, start, "nvcr.io#nvidia/pytorch:24.05-py3", STEP_DIGEST, false, stepId));
        assertThat(reported.status()).as(reported.body()).isEqualTo(200);
        JsonNode steps = api.get("/api/v1/jobs/" + id + "/steps", admin).json().get("items");
        JsonNode batch = steps.get(0);
        assertThat(batch.get("containerImage").asString()).isEqualTo("127.0.0.1:5000/test:1");
        assertThat(batch.get("containerImageDigest").asString()).isEqualTo(DIGEST);
        JsonNode srunStep = steps.get(1);
        assertThat(srunStep.get("containerImage").asString()).isEqualTo("nvcr.io#nvidia/pytorch:24.05-py3");
        assertThat(srunStep.get("containerImageDigest").asString()).isEqualTo(STEP_DIGEST);
        job = api.get("/api/v1/jobs/" + id, admin).json();
        assertThat(job.get("containerImageDigest").asString()).as("the step's image is not the job's")
                .isEqualTo(DIGEST);
        assertThat(job.get("state").asString()).isEqualTo("RUNNING");
        events.clear();
        api.get("/api/v1/jobs/" + id + "/events", admin).json().forEach(events::add);
        assertThat(events).anySatisfy(e -> assertThat(e.get("detail").asString())
                .contains("step " + stepId + ": image nvcr.io#nvidia/pytorch:24.05-py3", "node1's image cache"));

        // A step without a container of its own runs on the node, as pyxis runs it, though the job is in one.
        Response plain = api.send("POST", "/api/v1/jobs/" + id + "/steps", admin, stepRequest(List.of("hostname")));
        assertThat(plain.status()).as(plain.body()).isEqualTo(201);
        int plainId = plain.json().get("stepId").asInt();
        JsonNode plainLaunch = awaitCommand(List.of(id + ""), "STEP_LAUNCH",
                c -> c.get("step").get("stepId").asInt() == plainId).get("step");
        assertThat(plainLaunch.get("container") == null || plainLaunch.get("container").isNull())
                .as(plainLaunch.toString()).isTrue();

        // A bad step container is refused by field, before any node hears of it.
        Map<String, Object> bad = stepRequest(List.of("true"));
        bad.put("container", Map.of("workdir", "relative"));
        Response refused = api.send("POST", "/api/v1/jobs/" + id + "/steps", admin, bad);
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(fields(refused)).containsExactlyInAnyOrder("container.image", "container.workdir");

        // An IMAGE report without a digest is refused; the job goes on.
        Response malformed = report(image(id, start, "127.0.0.1:5000/test:1", "latest", true, null));
        assertThat(malformed.status()).as(malformed.body()).isEqualTo(400);
        assertThat(fields(malformed)).containsExactly("reports[0].image.digest");
        assertThat(api.get("/api/v1/jobs/" + id, admin).json().get("state").asString()).isEqualTo("RUNNING");

        Response ended = report(Map.of("jobId", Long.toString(id), "type", "ENDED", "time",
                start.plusSeconds(3).toString(), "state", "COMPLETED", "exitCode", 0, "runStart", start.toString()));
        assertThat(ended.status()).as(ended.body()).isEqualTo(200);
        assertThat(api.get("/api/v1/jobs/" + id, admin).json().get("state").asString()).isEqualTo("COMPLETED");
    }

    @Test
    void sbatchDirectivesGiveTheContainerAndTheirMistakesNameTheirLines() {
        long id = submit(Map.of("name", "directives", "partition", "sim", "hold", true, "script", """
                #!/bin/bash
                #SBATCH --container-image nvcr.io\\#nvidia/pytorch:24.05-py3
                #SBATCH --container-mounts=/data:/data:ro,/home
                #SBATCH --container-workdir=/data --no-container-mount-home --container-readonly
                #SBATCH --container-name=torch --container-env=NCCL_DEBUG,HF_HOME --container-entrypoint
                python train.py
                """));
        JsonNode container = api.get("/api/v1/jobs/" + id, admin).json().get("container");
        assertThat(container.get("image").asString()).isEqualTo("nvcr.io#nvidia/pytorch:24.05-py3");
        assertThat(container.get("mounts").toString()).isEqualTo("[\"/data:/data:ro\",\"/home:/home\"]");
        assertThat(container.get("workdir").asString()).isEqualTo("/data");
        assertThat(container.get("mountHome").asBoolean()).isFalse();
        assertThat(container.get("writable").asBoolean()).isFalse();
        assertThat(container.get("name").asString()).isEqualTo("torch");
        assertThat(container.get("env").toString()).isEqualTo("[\"NCCL_DEBUG\",\"HF_HOME\"]");
        assertThat(container.get("entrypoint").asBoolean()).isTrue();

        // Slurm's --container: an OCI bundle.
        long bundled = submit(Map.of("name", "bundle", "partition", "sim", "hold", true,
                "script", "#!/bin/sh\n#SBATCH --container=/srv/bundles/hello\n./hello\n"));
        JsonNode bundle = api.get("/api/v1/jobs/" + bundled, admin).json().get("container");
        assertThat(bundle.get("bundle").asString()).isEqualTo("/srv/bundles/hello");
        assertThat(bundle.get("image").isNull()).isTrue();

        Response refused = api.send("POST", "/api/v1/jobs", admin, Map.of("partition", "sim", "hold", true,
                "script", "#!/bin/sh\n#SBATCH --container-image=ubuntu:22.04\n#SBATCH --container-mounts=data:/data\n"
                        + "true\n"));
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.isProblem()).isTrue();
        JsonNode error = refused.json().get("errors").get(0);
        assertThat(error.get("field").asString()).isEqualTo("script:3");
        assertThat(error.get("message").asString()).startsWith("--container-mounts: ").contains("absolute path");
    }

    @Test
    void eachMistakeInAJsonContainerIsA400NamingItsField() {
        Map<String, Object> container = new LinkedHashMap<>();
        container.put("image", "Ubuntu Latest");
        container.put("bundle", "bundles/hello");
        container.put("mounts", List.of("/data:/data:rbind"));
        container.put("name", "my container");
        container.put("env", List.of("1BAD"));
        Response refused = api.send("POST", "/api/v1/jobs", admin, Map.of("partition", "sim", "hold", true,
                "container", container, "script", "#!/bin/sh\ntrue\n"));
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(fields(refused)).containsExactlyInAnyOrder("container.image", "container.bundle",
                "container.bundle", "container.mounts[0]", "container.name", "container.env[0]");

        Response nameAlone = api.send("POST", "/api/v1/jobs", admin, Map.of("partition", "sim", "hold", true,
                "container", Map.of("name", "torch"), "script", "#!/bin/sh\ntrue\n"));
        assertThat(nameAlone.status()).as(nameAlone.body()).isEqualTo(400);
        assertThat(fields(nameAlone)).containsExactly("container.image");
    }

    private Map<String, Object> stepRequest(List<String> argv) {
        Map<String, Object> step = new HashMap<>();
        step.put("argv", argv);
        step.put("ntasks", 1);
        step.put("nodes", 1);
        step.put("overlap", true);
        return step;
    }

    private static Map<String, Object> image(long id, Instant runStart, String reference, String digest,
            boolean pulled, Integer stepId) {
        Map<String, Object> image = new HashMap<>();
        image.put("reference", reference);
        image.put("digest", digest);
        image.put("pulled", pulled);
        image.put("seconds", pulled ? 2.5 : 0.0);
        image.put("stepId", stepId);
        return Map.of("jobId", Long.toString(id), "type", "IMAGE", "time", runStart.plusSeconds(1).toString(),
                "runStart", runStart.toString(), "image", image);
    }

    private static Map<String, Object> started(long id, Instant runStart) {
        return Map.of("jobId", Long.toString(id), "type", "STARTED", "time", runStart.plusSeconds(1).toString(),
                "runStart", runStart.toString());
    }

    @SafeVarargs
    private Response report(Map<String, Object>... reports) {
        return api.send("POST", "/api/v1/agents/node1/reports", node1, Map.of("reports", List.of(reports)));
    }

    /** Polls as node1's agent until a command of {@code type} that {@code which} accepts comes. */
    private JsonNode awaitCommand(List<String> running, String type, java.util.function.Predicate<JsonNode> which) {
        List<JsonNode> seen = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Response poll = api.send("POST", "/api/v1/agents/node1/poll", node1,
                    Map.of("runningJobs", running, "sync", false));
            assertThat(poll.status()).as(poll.body()).isEqualTo(200);
            poll.json().get("commands").forEach(seen::add);
            return seen.stream().anyMatch(c -> type.equals(c.get("type").asString()) && which.test(c));
        });
        return seen.stream().filter(c -> type.equals(c.get("type").asString()) && which.test(c)).findFirst()
                .orElseThrow();
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

    private static List<String> fields(Response response) {
        List<String> fields = new ArrayList<>();
        response.json().get("errors").forEach(e -> fields.add(e.get("field").asString()));
        return fields;
    }
}
