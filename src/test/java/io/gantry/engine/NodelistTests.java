package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code -w/--nodelist} and {@code -x/--exclude} as the engine honours them. */
class NodelistTests {

    private final Engine engine = new Engine();

    private static Start startOf(Plan plan, EngineFixtures.JobBuilder job) {
        return plan.starts().stream().filter(s -> s.job().equals(job.id())).findFirst()
                .orElseThrow(() -> new AssertionError(job.id() + " did not start: " + plan.waiting(job.id())));
    }

    private static Waiting waitingOf(Plan plan, EngineFixtures.JobBuilder job) {
        return plan.waiting(job.id()).orElseThrow(() -> new AssertionError(job.id() + " started"));
    }

    private Feasibility feasibility(EngineFixtures.ClusterBuilder cluster, EngineFixtures.JobBuilder job) {
        return engine.feasibility(cluster.scenario().snapshot(), job.build());
    }

    @Test
    void an_excluded_node_is_never_chosen_even_when_it_fits_best() {
        // n000 is the best fit (GPUs already partly taken); excluding it sends the job elsewhere.
        var job = aJob().gpus(2).exclude("n000");
        Plan plan = aCluster().nodes(3).gpusPerNode(8).scenario()
                .runningOn(0, 1, 0, List.of(0, 1, 2, 3, 4, 5), 2_000_000).with(job).plan();
        assertThat(startOf(plan, job).nodeNames()).doesNotContain("n000").hasSize(1);
    }

    @Test
    void a_nodelist_job_runs_on_the_named_node() {
        var job = aJob().gpus(1).nodelist("n002");
        Plan plan = aCluster().nodes(4).gpusPerNode(8).scenario().with(job).plan();
        assertThat(startOf(plan, job).nodeNames()).containsExactly("n002");
    }

    @Test
    void a_nodelist_of_several_nodes_gives_the_job_at_least_that_many_nodes() {
        var job = aJob().tasks(1).nodelist("n[001,003]");
        Plan plan = aCluster().nodes(4).scenario().with(job).plan();
        assertThat(startOf(plan, job).nodeNames()).containsExactly("n001", "n003");
    }

    @Test
    void a_job_asking_for_more_nodes_than_it_lists_gets_the_listed_ones_and_others() {
        var job = aJob().nodes(3).nodelist("n003").exclude("n000");
        Plan plan = aCluster().nodes(5).scenario().with(job).plan();
        assertThat(startOf(plan, job).nodeNames()).hasSize(3).contains("n003").doesNotContain("n000");
    }

    @Test
    void a_nodelist_job_whose_node_is_busy_waits_with_req_node_not_avail_and_a_start_when_it_frees() {
        var job = aJob().gpus(8).nodelist("n000");
        Plan plan = aCluster().nodes(2).gpusPerNode(8).scenario()
                .runningOn(0, 8, 0, List.of(0, 1, 2, 3, 4, 5, 6, 7), 1_005_000).with(job).plan();
        Waiting w = waitingOf(plan, job);
        assertThat(w.reason()).isEqualTo(PendingReason.REQ_NODE_NOT_AVAIL);
        assertThat(w.expectedStart()).hasValue(1_005_000);
        assertThat(w.reservedNodes()).containsExactly("n000");
    }

    @Test
    void a_nodelist_job_whose_node_is_down_waits_with_req_node_not_avail() {
        var job = aJob().nodelist("n001");
        Plan plan = aCluster().nodes(2).state(1, NodeState.DOWN).scenario().with(job).plan();
        assertThat(waitingOf(plan, job).reason()).isEqualTo(PendingReason.REQ_NODE_NOT_AVAIL);
    }

    @Test
    void a_nodelist_naming_a_node_that_left_the_cluster_waits_with_req_node_not_avail() {
        var job = aJob().nodelist("n009");
        Plan plan = aCluster().nodes(2).scenario().with(job).plan();
        assertThat(waitingOf(plan, job).reason()).isEqualTo(PendingReason.REQ_NODE_NOT_AVAIL);
    }

    @Test
    void a_busy_nodelist_job_does_not_keep_a_smaller_job_off_other_nodes() {
        var listed = aJob().gpus(8).nodelist("n000").submittedAt(1);
        var other = aJob().gpus(8).submittedAt(2);
        Plan plan = aCluster().nodes(2).gpusPerNode(8).scenario()
                .runningOn(0, 8, 0, List.of(0, 1, 2, 3, 4, 5, 6, 7), 1_005_000).with(listed, other).plan();
        assertThat(startOf(plan, other).nodeNames()).containsExactly("n001");
    }

    @Test
    void one_block_nodelist_jobs_take_their_other_nodes_from_the_listed_nodes_block() {
        var job = aJob().nodes(2).oneBlock().nodelist("n003");
        Plan plan = aCluster().nodes(6).nodesPerBlock(3).scenario().with(job).plan();
        assertThat(startOf(plan, job).nodeNames()).containsExactlyInAnyOrder("n003", "n004").hasSize(2)
                .allMatch(n -> List.of("n003", "n004", "n005").contains(n));
    }

    @Test
    void a_gpu_request_bigger_than_the_listed_node_can_never_fit() {
        Feasibility f = feasibility(aCluster().nodes(2).gpusPerNode(8), aJob().nodes(1).gpus(16).nodelist("n000"));
        assertThat(f.fits()).isFalse();
        assertThat(f.cause()).isEqualTo(Feasibility.Cause.NODELIST);
        assertThat(f.message()).contains("n000", "8 GPUs", "16 GPUs");
    }

    @Test
    void excluding_every_node_that_could_run_it_can_never_fit() {
        Feasibility f = feasibility(aCluster().nodes(2), aJob().exclude("n[000-001]"));
        assertThat(f.fits()).isFalse();
        assertThat(f.cause()).isEqualTo(Feasibility.Cause.EXCLUDE);
        assertThat(f.message()).contains("all excluded");
    }

    @Test
    void a_node_both_listed_and_excluded_can_never_fit() {
        Feasibility f = feasibility(aCluster().nodes(2), aJob().nodelist("n000").exclude("n000"));
        assertThat(f.cause()).isEqualTo(Feasibility.Cause.NODELIST);
        assertThat(f.message()).contains("both");
    }

    @Test
    void a_listed_node_outside_the_partition_can_never_fit_there() {
        Feasibility f = feasibility(aCluster().nodes(4).partition("half", 0, 2, 0, 0),
                aJob().partitions("half").nodelist("n003"));
        assertThat(f.cause()).isEqualTo(Feasibility.Cause.NODELIST);
        assertThat(f.message()).contains("not in partition half");
    }

    @Test
    void a_job_with_node_lists_that_the_cluster_can_hold_fits() {
        assertThat(feasibility(aCluster().nodes(4).gpusPerNode(8), aJob().gpus(16).nodelist("n001")
                .exclude("n000")).fits()).isTrue();
    }
}
