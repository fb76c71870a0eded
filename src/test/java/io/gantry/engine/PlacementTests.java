package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlacementTests {

    private static NodeAllocation only(Plan plan, EngineFixtures.JobBuilder job) {
        Start s = plan.start(job.id()).orElseThrow(() -> new AssertionError(job.id() + " did not start: "
                + plan.waiting(job.id())));
        assertThat(s.allocation()).hasSize(1);
        return s.allocation().get(0);
    }

    @Test
    void a_one_gpu_job_gets_the_lowest_free_gpu_on_the_fullest_node() {
        var job = aJob().gpus(1);
        Plan plan = aCluster().nodes(2).gpusPerNode(8).scenario()
                .runningOn(1, 4, 0, List.of(0, 1, 2), 2_000_000)
                .with(job).plan();
        NodeAllocation a = only(plan, job);
        assertThat(a.node()).isEqualTo("n001");
        assertThat(a.gpuIndices()).containsExactly(3);
    }

    @Test
    void a_job_asking_sixteen_gpus_gets_two_whole_eight_gpu_nodes() {
        var job = aJob().gpus(16);
        Plan plan = aCluster().nodes(4).gpusPerNode(8).scenario().with(job).plan();
        Start s = plan.start(job.id()).orElseThrow();
        assertThat(s.allocation()).hasSize(2)
                .allSatisfy(a -> assertThat(a.gpuIndices()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7));
    }

    @Test
    void gpus_per_node_are_given_on_every_node() {
        var job = aJob().nodes(3).gpusPerNode(2).tasks(3);
        Plan plan = aCluster().nodes(4).gpusPerNode(8).scenario().with(job).plan();
        assertThat(plan.start(job.id()).orElseThrow().allocation()).hasSize(3)
                .allSatisfy(a -> assertThat(a.gpus()).isEqualTo(2));
    }

    @Test
    void tasks_and_cpus_per_task_are_spread_over_the_fewest_nodes() {
        var job = aJob().tasks(100).cpusPerTask(2);
        Plan plan = aCluster().nodes(4).cpusPerNode(128).scenario().with(job).plan();
        Start s = plan.start(job.id()).orElseThrow();
        assertThat(s.allocation()).hasSize(2);
        assertThat(s.tres().cpu()).isEqualTo(200);
    }

    @Test
    void a_job_is_never_given_a_gpu_a_running_job_holds() {
        var job = aJob().gpus(4);
        Plan plan = aCluster().nodes(1).gpusPerNode(8).scenario()
                .runningOn(0, 4, 0, List.of(0, 2, 4, 6), 2_000_000).with(job).plan();
        assertThat(only(plan, job).gpuIndices()).containsExactly(1, 3, 5, 7);
    }

    @Test
    void a_job_asking_a_gpu_type_lands_only_on_nodes_of_that_type() {
        var job = aJob().gpus(1).gpuType("h100");
        Plan plan = aCluster().nodes(4).gpusPerNode(8).gpuTypes(i -> i == 2 ? "h100" : "a100").scenario()
                .with(job).plan();
        assertThat(only(plan, job).node()).isEqualTo("n002");
    }

    @Test
    void a_constraint_with_and_needs_every_feature() {
        var job = aJob().constraint("ib&nvme");
        Plan plan = aCluster().nodes(4)
                .features(i -> i == 3 ? Set.of("ib", "nvme") : Set.of("ib")).scenario().with(job).plan();
        assertThat(only(plan, job).node()).isEqualTo("n003");
    }

    @Test
    void a_constraint_with_or_takes_any_of_the_features() {
        var job = aJob().constraint("skylake|icelake");
        Plan plan = aCluster().nodes(4)
                .features(i -> i == 1 ? Set.of("icelake") : Set.of("haswell")).scenario().with(job).plan();
        assertThat(only(plan, job).node()).isEqualTo("n001");
    }

    @Test
    void an_exclusive_job_takes_whole_idle_nodes_only() {
        var job = aJob().exclusive();
        Plan plan = aCluster().nodes(2).gpusPerNode(4).scenario()
                .runningOn(0, 1, 0, List.of(), 2_000_000).with(job).plan();
        NodeAllocation a = only(plan, job);
        assertThat(a.node()).isEqualTo("n001");
        assertThat(a.cpus()).isEqualTo(64);
        assertThat(a.gpuIndices()).containsExactly(0, 1, 2, 3);
    }

    @Test
    void down_and_drained_nodes_get_no_new_jobs() {
        var job = aJob().nodes(2);
        Plan plan = aCluster().nodes(4).state(0, NodeState.DOWN).state(1, NodeState.DRAIN).scenario()
                .with(job).plan();
        assertThat(plan.start(job.id()).orElseThrow().nodeNames()).containsExactly("n002", "n003");
    }

    @Test
    void memory_per_node_is_a_limit_like_cpus() {
        var job = aJob().memoryMb(200_000);
        Plan plan = aCluster().nodes(2).memoryMbPerNode(256_000).scenario()
                .runningOn(0, 1, 100_000, List.of(), 2_000_000).with(job).plan();
        assertThat(only(plan, job).node()).isEqualTo("n001");
    }

    @Test
    void a_multi_node_job_lands_on_the_fewest_leaf_switches() {
        var job = aJob().nodes(4);
        // Switches of 4 nodes; switch 0 has one busy node, so the job goes whole to switch 1.
        Plan plan = aCluster().nodes(8).nodesPerSwitch(4).scenario()
                .runningOn(0, 64, 0, List.of(), 2_000_000).with(job).plan();
        assertThat(plan.start(job.id()).orElseThrow().nodeNames()).containsExactly("n004", "n005", "n006", "n007");
    }

    @Test
    void a_job_that_fits_in_one_switch_takes_the_fullest_switch_that_holds_it() {
        var job = aJob().nodes(2);
        // Switch 0 has 4 free nodes, switch 1 has 2: best fit keeps switch 0's big hole whole.
        Plan plan = aCluster().nodes(8).nodesPerSwitch(4).scenario()
                .runningOn(4, 64, 0, List.of(), 2_000_000).runningOn(5, 64, 0, List.of(), 2_000_000)
                .with(job).plan();
        assertThat(plan.start(job.id()).orElseThrow().nodeNames()).containsExactly("n006", "n007");
    }

    @Test
    void a_job_bigger_than_any_switch_takes_the_largest_switches_first() {
        var job = aJob().nodes(5);
        Plan plan = aCluster().nodes(12).nodesPerSwitch(4).scenario()
                .runningOn(0, 64, 0, List.of(), 2_000_000).runningOn(1, 64, 0, List.of(), 2_000_000)
                .runningOn(8, 64, 0, List.of(), 2_000_000)
                .with(job).plan();
        // Switch 1 (4 free) whole, then the best fit for one more: switch 0 (2 free) over switch 2 (3 free).
        assertThat(plan.start(job.id()).orElseThrow().nodeNames())
                .containsExactlyInAnyOrder("n002", "n004", "n005", "n006", "n007");
    }

    @Test
    void a_one_block_job_never_straddles_blocks() {
        var job = aJob().nodes(3).oneBlock();
        Plan plan = aCluster().nodes(8).nodesPerBlock(4).scenario()
                .runningOn(0, 64, 0, List.of(), 2_000_000).runningOn(4, 64, 0, List.of(), 2_000_000)
                .runningOn(5, 64, 0, List.of(), 2_000_000)
                .with(job).plan();
        assertThat(plan.start(job.id()).orElseThrow().nodeNames()).containsExactly("n001", "n002", "n003");
    }

    @Test
    void a_one_block_job_waits_when_no_block_has_room_though_the_cluster_has() {
        var job = aJob().nodes(3).oneBlock();
        Plan plan = aCluster().nodes(8).nodesPerBlock(4).scenario()
                .runningOn(0, 64, 0, List.of(), 2_000_000).runningOn(1, 64, 0, List.of(), 2_000_000)
                .runningOn(4, 64, 0, List.of(), 2_100_000).runningOn(5, 64, 0, List.of(), 2_100_000)
                .with(job).plan();
        Waiting w = plan.waiting(job.id()).orElseThrow();
        assertThat(w.reason()).as("four nodes are free, but no block has three").isEqualTo(PendingReason.TOPOLOGY_WAIT);
        assertThat(w.expectedStart()).hasValue(2_000_000);
        assertThat(w.reservedNodes()).hasSize(3).allMatch(n -> List.of("n000", "n001", "n002", "n003").contains(n));
    }

    @Test
    void a_multi_node_gpu_job_prefers_one_block() {
        var job = aJob().nodes(2).gpusPerNode(8);
        Plan plan = aCluster().nodes(8).gpusPerNode(8).nodesPerBlock(3).scenario()
                .runningOn(0, 1, 0, List.of(0), 2_000_000)
                .with(job).plan();
        List<String> nodes = plan.start(job.id()).orElseThrow().nodeNames();
        // Block 0 has two whole free nodes (n001, n002): the smallest block that holds the job.
        assertThat(nodes).containsExactly("n001", "n002");
    }

    @Test
    void a_job_runs_only_on_the_nodes_of_its_partition() {
        var job = aJob().partitions("debug");
        Plan plan = aCluster().nodes(4).partition("debug", 2, 4, 0, 0).scenario().with(job).plan();
        assertThat(only(plan, job).node()).isIn("n002", "n003");
    }
}
