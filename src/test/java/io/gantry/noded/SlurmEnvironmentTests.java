package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.AgentProtocol.JobContext;
import io.gantry.noded.protocol.AgentProtocol.JobIdentity;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.support.SlurmEnvironmentFixture;

/**
 * The batch step's environment against what a live Slurm 22.05 gave the same jobs
 * (src/test/resources/slurm-env): every variable of it, Slurm's value formats ({@code 2(x2)}).
 */
class SlurmEnvironmentTests {

    private static final UnixAccount OWNER = new UnixAccount("alice", 1234, 1234, List.of(1234L), "/home/alice",
            "/bin/bash");

    @Test
    void aTwoNodeJobWithTwoTasksPerNodeHasEverySlurmVariable() {
        // sbatch -N2 --ntasks-per-node=2 --mem=1000, as plain.sh was submitted to Slurm
        Launch launch = launch("7", 7, null, List.of(), new JobContext("gantry", "2(x2)", "2(x2)", 2, null, 0,
                null, null, null, null));
        Map<String, String> env = batchEnvironment(launch);

        SlurmEnvironmentFixture.assertMatches("batch step", SlurmEnvironmentFixture.load("batch.env"), env);
        assertThat(env).containsEntry("SLURM_TASKS_PER_NODE", "2(x2)").containsEntry("SLURM_CLUSTER_NAME", "gantry")
                .containsEntry("SLURM_SUBMIT_HOST", "login1").doesNotContainKey("SLURM_RESTART_COUNT");
    }

    @Test
    void aJobOnGpusHasSlurmsGpuVariables() {
        // sbatch -N2 --ntasks-per-node=2 --gpus-per-node=2 --mem=1000 (gpu.sh)
        Launch launch = launch("8", 8, null, List.of(0, 1), new JobContext("gantry", "2(x2)", "2(x2)", 2, 2, 0,
                null, null, null, null));
        SlurmEnvironmentFixture.assertMatches("batch step on GPUs", SlurmEnvironmentFixture.load("gpu-batch.env"),
                batchEnvironment(launch));
    }

    @Test
    void anArrayTaskHasTheArraysShape() {
        // sbatch --array=1-5:2 (array.sh), task 3 of 1,3,5
        Launch launch = new Launch("9_3", 9, 3, "arraytest", "alice", null, "batch", null, "#!/bin/bash\n", "/tmp",
                Map.of("SLURM_SUBMIT_HOST", "login1"), null, null, 60, Instant.EPOCH, "node2", List.of("node2"), 1, 1,
                1, 500, List.of(), new JobIdentity("alice", null, null), null, null,
                new JobContext("gantry", "1", "1", null, null, 0, 3, 1, 5, 2));
        SlurmEnvironmentFixture.assertMatches("array task", SlurmEnvironmentFixture.load("array.3.env"),
                batchEnvironment(launch));
    }

    @Test
    void aRequeuedJobKnowsHowOftenItRestarted() {
        // sbatch --requeue rq.sh, then scontrol requeue: its second run
        Launch launch = new Launch("6", 6, null, "rq.sh", "alice", null, "batch", null, "#!/bin/bash\n", "/tmp",
                Map.of("SLURM_SUBMIT_HOST", "login1"), null, null, 60, Instant.EPOCH, "node2", List.of("node2"), 1, 1,
                1, 500, List.of(), new JobIdentity("alice", null, null), null, null,
                new JobContext("gantry", "1", "1", null, null, 1, null, null, null, null));
        Map<String, String> env = batchEnvironment(launch);
        SlurmEnvironmentFixture.assertMatches("requeued job", SlurmEnvironmentFixture.load("requeued.env"), env);
        assertThat(env).containsEntry("SLURM_RESTART_COUNT", "1");
    }

    @Test
    void withoutTheControllersContextTheBatchStepStillHasItsOwnPlace() {
        Launch launch = launch("7", 7, null, List.of(), null);
        assertThat(batchEnvironment(launch)).containsEntry("SLURM_LOCALID", "0").containsEntry("SLURM_GTIDS", "0")
                .doesNotContainKeys("SLURM_TASKS_PER_NODE", "SLURM_CLUSTER_NAME");
    }

    @Test
    void theContextSurvivesTheAgentsLaunchRecord() throws Exception {
        // the agent keeps each launch on disk as JSON, and adopts its jobs from it after a restart
        Launch launch = launch("7", 7, null, List.of(0), new JobContext("gantry", "2(x2)", "2(x2)", 2, 1, 1,
                null, null, null, null));
        assertThat(AgentJson.MAPPER.readValue(AgentJson.MAPPER.writeValueAsString(launch), Launch.class))
                .isEqualTo(launch);
    }

    private static Launch launch(String id, long jobId, Integer arrayTaskId, List<Integer> gpus, JobContext context) {
        return new Launch(id, jobId, arrayTaskId, "envtest", "alice", null, "batch", null, "#!/bin/bash\n", "/tmp",
                Map.of("SLURM_SUBMIT_HOST", "login1"), null, null, 60, Instant.EPOCH, "node[1-2]",
                List.of("node1", "node2"), 4, 1, 2, 1000, gpus, new JobIdentity("alice", null, null), null, null,
                context);
    }

    /** As JobProcess builds it, and with the pid its second stage adds at exec. */
    private static Map<String, String> batchEnvironment(Launch launch) {
        Map<String, String> env = JobEnvironment.basics(OWNER);
        JobEnvironment.apply(env, launch, "node1", "/tmp");
        JobEnvironment.owner(env, OWNER);
        env.put("SLURM_TASK_PID", "4242");
        return env;
    }
}
