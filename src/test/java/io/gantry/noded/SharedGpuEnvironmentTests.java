package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import io.gantry.noded.protocol.AgentProtocol.Launch;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a job on shared GPUs sees: its MIG instances by UUID, or the one GPU its shards are on. */
class SharedGpuEnvironmentTests {

    private static final List<String> UUIDS = List.of("MIG-6e4a8ec7-8a1b-5f2e-9f4c-8b4c4d3b2a11",
            "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f", "MIG-cba663e8-9bed-5b7f-aa4e-3dd7a8a4dbb8");

    private static Launch launch(List<Integer> gpus, List<Integer> mig, Integer shardGpu) {
        return new Launch("7", 7, null, "job", "alice", "physics", "gpu", "normal", "#!/bin/bash\n", "/tmp",
                Map.of(), null, null, 600, Instant.EPOCH, "node1", List.of("node1"), 1, 1, 1, 1000, gpus, null, mig,
                shardGpu);
    }

    @Test
    void aJobOnMigInstancesSeesExactlyTheirUuids() {
        Map<String, String> env = new HashMap<>();
        JobEnvironment.apply(env, launch(List.of(), List.of(2, 0), null), "node1", "/tmp", UUIDS);
        assertThat(env).containsEntry("CUDA_VISIBLE_DEVICES", UUIDS.get(2) + "," + UUIDS.get(0));
        assertThat(env).doesNotContainKey("SLURM_JOB_GPUS");
    }

    @Test
    void aJobOnShardsSeesTheOneGpuTheyAreOn() {
        Map<String, String> env = new HashMap<>();
        JobEnvironment.apply(env, launch(List.of(), null, 1), "node1", "/tmp", UUIDS);
        assertThat(env).containsEntry("CUDA_VISIBLE_DEVICES", "1").containsEntry("SLURM_JOB_GPUS", "1");
    }

    @Test
    void aJobOnWholeGpusIsUnchangedAndAJobWithoutGpusSeesNone() {
        Map<String, String> env = new HashMap<>();
        JobEnvironment.apply(env, launch(List.of(0, 3), null, null), "node1", "/tmp", UUIDS);
        assertThat(env).containsEntry("CUDA_VISIBLE_DEVICES", "0,3");
        Map<String, String> none = new HashMap<>();
        JobEnvironment.apply(none, launch(List.of(), List.of(), null), "node1", "/tmp", UUIDS);
        assertThat(none).doesNotContainKey("CUDA_VISIBLE_DEVICES");
    }
}
