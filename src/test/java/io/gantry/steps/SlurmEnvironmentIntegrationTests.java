package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.SlurmEnvironmentFixture;
import io.gantry.support.TwoNodes;
import tools.jackson.databind.JsonNode;

/**
 * The environment of a 2-node batch job with two tasks per node, and of its srun tasks, on two real
 * agents, against what a live Slurm 22.05 gave the same job (src/test/resources/slurm-env): every
 * variable of it is there, with Slurm's value wherever the value is not this run's host, user or ids.
 */
@TwoNodes.Use
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlurmEnvironmentIntegrationTests {

    private static final String SCRIPT = """
            #!/bin/bash
            env | sort > %1$sbatch.env
            srun bash -c 'env | sort > %1$sstep.$SLURM_PROCID.env'
            """;

    @TempDir
    static Path dir;

    private TwoNodes nodes;
    private ApiClient api;
    private String admin;

    @BeforeAll
    void useTheTwoNodes(TwoNodes nodes) {
        this.nodes = nodes;
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
    void aTwoNodeJobAndItsSrunTasksHaveEveryVariableSlurmGives() throws Exception {
        // sbatch -N2 --ntasks-per-node=2 --mem=1000, as the fixture's plain.sh
        Path work = Files.createDirectories(dir.resolve("plain"));
        long id = api.submitJob(admin, Map.of("nodes", 2, "ntasksPerNode", 2, "memoryMb", 1000,
                "workdir", work.toString(), "script", SCRIPT.formatted("")));
        awaitCompleted(id, work);

        Map<String, String> batch = read(work.resolve("batch.env"));
        SlurmEnvironmentFixture.assertMatches("batch step", SlurmEnvironmentFixture.load("batch.env"), batch);
        assertThat(batch).containsEntry("SLURM_TASKS_PER_NODE", "2(x2)").containsEntry("SLURM_JOB_CPUS_PER_NODE", "2(x2)")
                .containsEntry("SLURM_CLUSTER_NAME", TwoNodes.CLUSTER).containsEntry("SLURM_SUBMIT_HOST", "127.0.0.1");
        assertThat(Long.parseLong(batch.get("SLURM_TASK_PID"))).isPositive();
        for (int rank = 0; rank < 4; rank++) {
            Map<String, String> task = read(work.resolve("step." + rank + ".env"));
            SlurmEnvironmentFixture.assertMatches("srun task " + rank,
                    SlurmEnvironmentFixture.load("step." + rank + ".env"), task);
            assertThat(task.get("SLURMD_NODENAME")).isEqualTo(rank < 2 ? "node1" : "node2");
            assertThat(task.get("SLURM_TASK_PID")).isNotEqualTo(batch.get("SLURM_TASK_PID"));
        }
    }

    @Test
    void aJobOnGpusAndItsSrunTasksHaveSlurmsGpuVariables() throws Exception {
        // sbatch -N2 --ntasks-per-node=2 --gpus-per-node=2 --mem=1000, as the fixture's gpu.sh
        Path work = Files.createDirectories(dir.resolve("gpu"));
        long id = api.submitJob(admin, Map.of("nodes", 2, "ntasksPerNode", 2, "gpusPerNode", 2, "memoryMb", 1000,
                "workdir", work.toString(), "script", SCRIPT.formatted("gpu-")));
        awaitCompleted(id, work);

        SlurmEnvironmentFixture.assertMatches("batch step on GPUs", SlurmEnvironmentFixture.load("gpu-batch.env"),
                read(work.resolve("gpu-batch.env")));
        for (int rank : List.of(0, 2)) {
            SlurmEnvironmentFixture.assertMatches("srun task " + rank + " on GPUs",
                    SlurmEnvironmentFixture.load("gpu-step." + rank + ".env"),
                    read(work.resolve("gpu-step." + rank + ".env")));
        }
    }

    private void awaitCompleted(long id, Path work) throws IOException {
        JsonNode job = api.awaitJobState(id, admin, "COMPLETED", Duration.ofSeconds(90));
        assertThat(job.get("state").asString()).as(output(id, work)).isEqualTo("COMPLETED");
    }

    private static String output(long id, Path work) throws IOException {
        Path out = work.resolve("gantry-" + id + ".out");
        return Files.exists(out) ? Files.readString(out) : "(no output)";
    }

    private static Map<String, String> read(Path file) throws IOException {
        assertThat(file).exists();
        return SlurmEnvironmentFixture.parse(Files.readString(file));
    }
}
