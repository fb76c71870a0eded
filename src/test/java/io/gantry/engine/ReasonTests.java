package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReasonTests {

    private static PendingReason reasonOf(Plan plan, EngineFixtures.JobBuilder job) {
        return plan.waiting(job.id()).orElseThrow(() -> new AssertionError(job.id() + " started")).reason();
    }

    @Test
    void reasons_are_spelled_as_slurm_spells_them() {
        assertThat(PendingReason.QOS_MAX_JOBS_PER_USER_LIMIT).hasToString("QOSMaxJobsPerUserLimit");
        assertThat(PendingReason.ASSOC_GRP_GRES.slurmName()).isEqualTo("AssocGrpGRES");
        assertThat(PendingReason.REQ_NODE_NOT_AVAIL).hasToString("ReqNodeNotAvail");
        assertThat(PendingReason.fromSlurmName("PartitionTimeLimit")).isEqualTo(PendingReason.PARTITION_TIME_LIMIT);
    }

    @Test
    void a_job_held_by_the_caller_keeps_the_callers_reason() {
        var job = aJob().heldBy(PendingReason.DEPENDENCY);
        assertThat(reasonOf(aCluster().scenario().with(job).plan(), job)).isEqualTo(PendingReason.DEPENDENCY);
    }

    @Test
    void a_job_before_its_begin_time_waits_for_it() {
        var job = aJob().eligibleAt(2_000_000);
        assertThat(reasonOf(aCluster().scenario().with(job).plan(), job)).isEqualTo(PendingReason.BEGIN_TIME);
    }

    @Test
    void a_time_limit_over_the_partition_maximum_is_partition_time_limit() {
        var job = aJob().timeLimit(7200);
        assertThat(reasonOf(aCluster().maxTimeSeconds(3600).scenario().with(job).plan(), job))
                .isEqualTo(PendingReason.PARTITION_TIME_LIMIT);
    }

    @Test
    void a_job_whose_only_fitting_nodes_are_down_is_req_node_not_avail() {
        var job = aJob().gpus(1).gpuType("h100");
        Plan plan = aCluster().nodes(2).gpusPerNode(8).gpuTypes(i -> i == 0 ? "h100" : "a100")
                .state(0, NodeState.DRAIN).scenario().with(job).plan();
        assertThat(reasonOf(plan, job)).isEqualTo(PendingReason.REQ_NODE_NOT_AVAIL);
    }

    @Test
    void more_gpus_than_the_partition_has_is_partition_config() {
        var job = aJob().gpus(64);
        assertThat(reasonOf(aCluster().nodes(2).gpusPerNode(8).scenario().with(job).plan(), job))
                .isEqualTo(PendingReason.PARTITION_CONFIG);
    }

    @Test
    void a_feature_no_node_has_is_bad_constraints() {
        var job = aJob().constraint("quantum");
        assertThat(reasonOf(aCluster().scenario().with(job).plan(), job)).isEqualTo(PendingReason.BAD_CONSTRAINTS);
    }

    @Test
    void a_user_at_the_qos_job_limit_waits_with_qos_max_jobs_per_user_limit() {
        var job = aJob().user("bob");
        Plan plan = aCluster().scenario()
                .qos(new Qos("normal", 0, 0, 1, null, null, null))
                .runningOn(0, 1, 0, List.of(), 2_000_000)
                .with(job).plan();
        assertThat(reasonOf(plan, job)).isEqualTo(PendingReason.QOS_MAX_JOBS_PER_USER_LIMIT);
    }

    @Test
    void the_qos_job_limit_counts_jobs_started_in_the_same_plan() {
        var first = aJob();
        var second = aJob();
        Plan plan = aCluster().scenario().qos(new Qos("normal", 0, 0, 1, null, null, null))
                .with(first, second).plan();
        assertThat(plan.start(first.id())).isPresent();
        assertThat(reasonOf(plan, second)).isEqualTo(PendingReason.QOS_MAX_JOBS_PER_USER_LIMIT);
    }

    @Test
    void an_account_over_its_gpu_limit_waits_with_assoc_grp_gres() {
        var job = aJob().gpus(4).account("physics");
        Plan plan = aCluster().nodes(2).gpusPerNode(8).scenario()
                .association(new Association("physics", null, 0.5, 0, Tres.parse("gres/gpu=6", Tres.UNLIMITED)))
                .runningOn(0, 4, 0, List.of(0, 1, 2, 3), 2_000_000)
                .with(job).plan();
        assertThat(reasonOf(plan, job)).isEqualTo(PendingReason.ASSOC_GRP_GRES);
    }

    @Test
    void a_job_over_the_qos_wall_limit_waits_with_its_reason() {
        var job = aJob().timeLimit(10_000);
        Plan plan = aCluster().scenario().qos(new Qos("normal", 0, 3600, 0, null, null, null)).with(job).plan();
        assertThat(reasonOf(plan, job)).isEqualTo(PendingReason.QOS_MAX_WALL_DURATION_PER_JOB_LIMIT);
    }

    @Test
    void a_job_limited_by_its_account_does_not_block_others() {
        var limited = aJob().account("chem").gpus(8).submittedAt(1);
        var other = aJob().account("physics").gpus(8).submittedAt(2);
        Plan plan = aCluster().nodes(1).gpusPerNode(8).scenario()
                .association(new Association("chem", null, 0.5, 0, Tres.parse("gres/gpu=4", Tres.UNLIMITED)))
                .with(limited, other).plan();
        assertThat(plan.start(other.id())).isPresent();
        assertThat(plan.start(other.id()).orElseThrow().backfilled()).isFalse();
    }
}
