package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FeasibilityTests {

    private final Engine engine = new Engine();

    private Feasibility of(EngineFixtures.ClusterBuilder cluster, EngineFixtures.JobBuilder job) {
        return engine.feasibility(cluster.scenario().snapshot(), job.build());
    }

    @Test
    void a_request_the_partition_can_hold_fits_even_while_the_cluster_is_busy() {
        var scenario = aCluster().nodes(2).gpusPerNode(8).scenario().allBusyUntil(5_000_000);
        assertThat(engine.feasibility(scenario.snapshot(), aJob().gpus(16).build()).fits()).isTrue();
    }

    @Test
    void more_gpus_than_exist_can_never_fit() {
        Feasibility f = of(aCluster().nodes(2).gpusPerNode(8), aJob().gpus(17));
        assertThat(f.fits()).isFalse();
        assertThat(f.reason()).isEqualTo(PendingReason.PARTITION_CONFIG);
        assertThat(f.message()).isEqualTo("the job needs 3 nodes with 1 CPU, 6 GPUs each; main has only 2 such nodes");
    }

    @Test
    void more_gpus_on_one_node_than_any_has_says_what_the_largest_has() {
        Feasibility f = of(aCluster().nodes(2).gpusPerNode(8), aJob().nodes(1).gpus(16));
        assertThat(f.reason()).isEqualTo(PendingReason.PARTITION_CONFIG);
        assertThat(f.message()).isEqualTo("no node in main has 16 GPUs; the largest has 8");
    }

    @Test
    void a_time_limit_over_the_partition_maximum_can_never_fit() {
        Feasibility f = of(aCluster().maxTimeSeconds(3600), aJob().timeLimit(3601));
        assertThat(f.reason()).isEqualTo(PendingReason.PARTITION_TIME_LIMIT);
    }

    @Test
    void more_nodes_than_the_partition_has_can_never_fit() {
        assertThat(of(aCluster().nodes(4), aJob().nodes(5)).reason()).isEqualTo(PendingReason.PARTITION_NODE_LIMIT);
    }

    @Test
    void a_gpu_type_the_partition_lacks_can_never_fit() {
        assertThat(of(aCluster().gpusPerNode(4).gpuType("a100"), aJob().gpus(1).gpuType("h100")).reason())
                .isEqualTo(PendingReason.BAD_CONSTRAINTS);
    }

    @Test
    void a_one_block_job_bigger_than_every_block_can_never_fit() {
        assertThat(of(aCluster().nodes(8).nodesPerBlock(4), aJob().nodes(5).oneBlock()).reason())
                .isEqualTo(PendingReason.PARTITION_CONFIG);
    }

    @Test
    void an_unknown_partition_can_never_fit() {
        assertThat(of(aCluster(), aJob().partitions("nope")).reason()).isEqualTo(PendingReason.PARTITION_CONFIG);
    }

    @Test
    void a_job_fits_when_any_of_its_partitions_can_hold_it() {
        var cluster = aCluster().nodes(4).partition("small", 0, 1, 0, 0);
        assertThat(of(cluster, aJob().nodes(3).partitions("small", "main")).fits()).isTrue();
    }

    @Test
    void a_qos_per_job_gpu_limit_can_never_be_met() {
        var scenario = aCluster().nodes(2).gpusPerNode(8).scenario()
                .qos(new Qos("normal", 0, 0, 0, null, Tres.parse("gres/gpu=4", Tres.UNLIMITED), null));
        Feasibility f = engine.feasibility(scenario.snapshot(), aJob().gpus(8).build());
        assertThat(f.reason()).isEqualTo(PendingReason.QOS_MAX_GRES_PER_JOB);
        assertThat(List.of(f.message())).allMatch(m -> m.contains("QOS normal"));
    }
}
