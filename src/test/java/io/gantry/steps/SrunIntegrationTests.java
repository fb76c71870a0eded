package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
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
import io.gantry.support.TwoNodes;
import tools.jackson.databind.JsonNode;

/**
 * Multi-node jobs for real: the packaged controller on PostgreSQL and two real agent processes
 * ({@link TwoNodes}), each declaring 2 GPUs; a 2-node job's batch script runs {@code srun}, whose tasks start on both
 * nodes through their agents and whose output comes back through the controller.
 */
@TwoNodes.Use
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SrunIntegrationTests {

    @TempDir
    static Path dir;

    private TwoNodes nodes;
    private ApiClient api;
    private String admin;

    @BeforeAll
    void useTheTwoNodes(TwoNodes twoNodes) {
        nodes = twoNodes;
        api = nodes.api();
        admin = nodes.admin();
    }

    @AfterAll
    void leaveThemIdle() throws Exception {
        if (nodes != null) {
            nodes.release();
        }
    }

    @Test
    void srunStartsLabelledTasksOnBothNodesWithTheirOwnRanksAndGpus() throws Exception {
        Path work = Files.createDirectories(dir.resolve("out-ranks"));
        long id = submit(Map.of("nodes", 2, "ntasksPerNode", 2, "gpusPerNode", 2, "workdir", work.toString(), "script", """
                #!/bin/bash
                srun -l --ntasks-per-node=2 bash -c 'echo $SLURM_PROCID $SLURM_NODEID $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES'
                echo "srun exit $?"
                """));
        JsonNode job = awaitState(id, "COMPLETED");
        String out = Files.readString(work.resolve("gantry-" + id + ".out"));
        List<String> labelled = out.lines().filter(l -> l.matches("\\s*\\d+: .*")).map(String::strip).sorted().toList();
        assertThat(labelled).as(out).hasSize(4);
        Map<String, String> gpusByNode = new HashMap<>();
        for (JsonNode a : job.get("allocation")) {
            List<String> gpus = new ArrayList<>();
            a.get("gpuIndices").forEach(g -> gpus.add(g.asString()));
            gpusByNode.put(a.get("node").asString(), String.join(",", gpus));
        }
        assertThat(gpusByNode).containsOnlyKeys("node1", "node2");
        for (String line : labelled) {
            String[] f = line.split("\\s+");
            assertThat(f).as(line).hasSize(5);
            assertThat(f[0]).isEqualTo(f[1] + ":"); // the label is the rank
            int rank = Integer.parseInt(f[1]);
            assertThat(Integer.parseInt(f[2])).as(line).isEqualTo(rank / 2);
            assertThat(f[4]).as(line + " sees its node's own GPUs").isEqualTo(gpusByNode.get(f[3]));
        }
        assertThat(labelled.stream().map(l -> l.split("\\s+")[3]).distinct().sorted().toList())
                .containsExactly("node1", "node2");
        assertThat(out).contains("srun exit 0");

        Response steps = api.get("/api/v1/jobs/" + id + "/steps", admin);
        assertThat(steps.status()).as(steps.body()).isEqualTo(200);
        assertThat(steps.body()).contains("\"batch\"");
        Response sacct = api.get("/api/v1/accounting/jobs?includeSteps=true&jobId=" + id, admin);
        assertThat(sacct.body()).contains(id + ".batch", id + ".0");
    }

    @Test
    void aFailingTaskMakesSrunFailAndTheJobFailWithItsCode() throws Exception {
        Path work = Files.createDirectories(dir.resolve("out-fail"));
        long id = submit(Map.of("nodes", 2, "workdir", work.toString(), "script", """
                #!/bin/bash
                srun --ntasks-per-node=1 bash -c 'if [ "$SLURM_PROCID" = 1 ]; then exit 7; fi; echo fine'
                """));
        JsonNode job = awaitState(id, "FAILED");
        assertThat(job.get("exitCode").asInt()).as(Files.readString(work.resolve("gantry-" + id + ".out"))).isEqualTo(7);
    }

    @Test
    void cancellingDuringATwoNodeStepLeavesNoTaskOnEitherNode() throws Exception {
        Path work = Files.createDirectories(dir.resolve("out-cancel"));
        String marker = "98" + (ProcessHandle.current().pid() % 1000) + "7";
        long id = submit(Map.of("nodes", 2, "workdir", work.toString(), "script", """
                #!/bin/bash
                srun --ntasks-per-node=1 sleep %s
                """.formatted(marker)));
        awaitState(id, "RUNNING");
        await().atMost(Duration.ofSeconds(40)).until(() -> sleepers(marker) == 2);
        assertThat(api.send("DELETE", "/api/v1/jobs/" + id, admin, null).status()).isBetween(200, 299);
        awaitState(id, "CANCELLED");
        await().atMost(Duration.ofSeconds(15)).until(() -> sleepers(marker) == 0);
    }

    @Test
    void aRestartedAgentAdoptsItsRunningJobAndReportsItsRealEnd() throws Exception {
        Path work = Files.createDirectories(dir.resolve("out-adopt"));
        // the job runs until the test lets it end, after the new agent has adopted it (not for a fixed time,
        // which an agent's restart on a busy machine can outlast)
        Path release = work.resolve("release");
        long id = submit(Map.of("nodes", 1, "nodelist", "node1", "workdir", work.toString(), "script", """
                #!/bin/bash
                echo started
                until [ -e %s ]; do sleep 0.2; done
                echo finished
                exit 3
                """.formatted(release)));
        awaitState(id, "RUNNING");
        Path out = work.resolve("gantry-" + id + ".out");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(out) && Files.readString(out).contains("started"));
        nodes.killAgent("node1"); // the job runs on, in its own session
        long logged = Files.size(nodes.agentLog("node1"));
        nodes.startAgent("node1");
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> newLog(logged).contains("adopted 1 job(s)"));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("node1's new agent did not adopt job " + id + ":\n" + newLog(logged), e);
        }
        Files.writeString(release, "");
        JsonNode ended;
        try {
            ended = awaitState(id, "FAILED");
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("job " + id + ": " + api.get("/api/v1/jobs/" + id + "/events", admin).body()
                    + "\nnode1's agent:\n" + newLog(logged), e);
        }
        assertThat(ended.get("exitCode").asInt()).isEqualTo(3);
        assertThat(Files.readString(out)).contains("finished");
    }

    /** What node1's agents logged after its first {@code from} bytes: the restarted agent's lines. */
    private String newLog(long from) throws IOException {
        byte[] log = Files.readAllBytes(nodes.agentLog("node1"));
        return new String(log, (int) Math.min(from, log.length), (int) Math.max(0, log.length - from),
                java.nio.charset.StandardCharsets.UTF_8);
    }

    /** How many {@code sleep <marker>} processes run on this machine (both nodes' agents run here). */
    private static long sleepers(String marker) throws IOException {
        try (var procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().matches("\\d+")).filter(p -> {
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline"))).replace('\0', ' ').strip();
                    return cmd.equals("sleep " + marker);
                } catch (IOException e) {
                    return false;
                }
            }).count();
        }
    }

    private long submit(Map<String, Object> job) {
        return api.submitJob(admin, job);
    }

    private JsonNode awaitState(long id, String state) {
        try {
            return api.awaitJobState(id, admin, state, Duration.ofSeconds(90));
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError("job " + id + " not " + state + ": " + api.get("/api/v1/jobs/" + id, admin).body()
                    + "\nevents: " + api.get("/api/v1/jobs/" + id + "/events", admin).body(), e);
        }
    }
}
