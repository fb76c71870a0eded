package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.gantry.noded.protocol.StepProtocol.StepRequest;
import io.gantry.engine.TaskCounts;
import io.gantry.jobs.JobAllocation;

class StepLayoutTests {

    private static final List<JobAllocation> FOUR_NODES = List.of(node("n1"), node("n2"), node("n3"), node("n4"));

    private static JobAllocation node(String name) {
        return new JobAllocation(name, 4, 4000, List.of(0, 1));
    }

    private static StepRequest request(Integer ntasks, Integer nodes, Integer perNode) {
        return new StepRequest(null, List.of("true"), ntasks, nodes, perNode, null, null, null, null, null, null, null,
                false, false, null);
    }

    private static StepLayout.Plan plan(StepRequest r) {
        return StepLayout.plan("42", FOUR_NODES, 1, r, Map.of());
    }

    private static List<Integer> tasks(StepLayout.Plan plan) {
        return plan.shares().stream().map(StepLayout.Share::tasks).toList();
    }

    @Test
    void withoutCountsAStepRunsOneTaskOnEveryNode() {
        StepLayout.Plan plan = plan(request(null, null, null));
        assertThat(tasks(plan)).containsExactly(1, 1, 1, 1);
        assertThat(plan.tasks()).isEqualTo(4);
    }

    @Test
    void tasksOnlyAreSpreadInBlocksTheFirstNodesTakingTheRest() {
        StepLayout.Plan plan = plan(request(5, null, null));
        assertThat(tasks(plan)).containsExactly(2, 1, 1, 1);
        assertThat(TaskCounts.compressed(tasks(plan))).isEqualTo("2,1(x3)");
    }

    @Test
    void fewerTasksThanNodesUseAsManyNodes() {
        assertThat(plan(request(2, null, null)).nodes()).containsExactly("n1", "n2");
        StepLayout.Plan asked = plan(request(1, 2, null));
        assertThat(asked.nodes()).containsExactly("n1");
        assertThat(asked.warnings()).containsExactly("srun: Warning: can't run 1 processes on 2 nodes, setting nnodes to 1");
    }

    @Test
    void tasksPerNodeFillNodesInOrder() {
        StepLayout.Plan plan = plan(request(null, 2, 3));
        assertThat(plan.nodes()).containsExactly("n1", "n2");
        assertThat(tasks(plan)).containsExactly(3, 3);
        assertThat(tasks(plan(request(5, null, 2)))).containsExactly(2, 2, 1);
    }

    @Test
    void aNodeThatCannotHoldItsShareGivesTheRestToTheNext() {
        List<JobAllocation> uneven = List.of(new JobAllocation("a", 4, 1000, List.of()),
                new JobAllocation("b", 2, 1000, List.of()));
        StepLayout.Plan plan = StepLayout.plan("42", uneven, 1, request(6, null, null), Map.of());
        assertThat(tasks(plan)).containsExactly(4, 2);
    }

    @Test
    void moreThanTheAllocationIsRefusedWithSlurmsMessages() {
        assertThatThrownBy(() -> plan(request(17, null, null))).isInstanceOf(StepLayout.Refused.class)
                .hasMessage("srun: error: Unable to create step for job 42: More processors requested than permitted");
        assertThatThrownBy(() -> plan(request(null, 5, null)))
                .hasMessage("srun: error: Only allocated 4 nodes asked for 5");
        assertThatThrownBy(() -> plan(new StepRequest(null, List.of("true"), null, null, null, null, null, null, "n9",
                null, null, null, false, false, null)))
                .hasMessage("srun: error: Unable to create step for job 42: Requested node configuration is not available");
        assertThatThrownBy(() -> plan(new StepRequest(null, List.of("true"), 4, 1, null, null, 1, null, null, null, null,
                null, false, false, null)))
                .hasMessage("srun: error: Unable to create step for job 42: Invalid generic resource (gres) specification");
    }

    @Test
    void aStepThatFitsTheAllocationButNotWhatRunningStepsLeaveWaitsUnlessItOverlaps() {
        Map<String, StepLayout.Hold> held = Map.of("n1", new StepLayout.Hold(4, Set.of()));
        StepRequest oneNode = new StepRequest(null, List.of("true"), null, null, null, null, null, null, "n1", null, null,
                null, false, false, null);
        assertThatThrownBy(() -> StepLayout.plan("42", FOUR_NODES, 1, oneNode, held))
                .isInstanceOfSatisfying(StepLayout.Refused.class, r -> assertThat(r.busy()).isTrue())
                .hasMessage("srun: Job 42 step creation temporarily disabled, retrying (Requested nodes are busy)");
        StepRequest overlapping = new StepRequest(null, List.of("true"), null, null, null, null, null, null, "n1", null,
                null, null, true, false, null);
        assertThat(StepLayout.plan("42", FOUR_NODES, 1, overlapping, held).nodes()).containsExactly("n1");
        // without naming nodes, the step runs where CPUs are free
        assertThat(StepLayout.plan("42", FOUR_NODES, 1, request(2, null, null), held).nodes()).containsExactly("n2", "n3");
    }

    @Test
    void gpusPerTaskGiveEachTaskItsOwnOfTheFreeOnes() {
        StepRequest r = new StepRequest(null, List.of("true"), 2, 1, null, null, 1, null, null, null, null, null, false,
                true, null);
        Map<String, StepLayout.Hold> held = Map.of();
        StepLayout.Share share = StepLayout.plan("42", FOUR_NODES, 1, r, held).shares().get(0);
        assertThat(share.taskGpus()).containsExactly(List.of(0), List.of(1));
        assertThat(share.hold()).isEqualTo(new StepLayout.Hold(2, Set.of(0, 1)));
        StepLayout.Share unasked = plan(request(1, null, null)).shares().get(0);
        assertThat(unasked.taskGpus()).isNull();
        assertThat(unasked.gpus()).containsExactly(0, 1);
    }

    @Test
    void mpiPluginsOtherThanNoneAreRefused() {
        StepRequest pmix = new StepRequest(null, List.of("true"), null, null, null, null, null, null, null, null, null,
                null, false, false, "pmix");
        assertThatThrownBy(() -> plan(pmix)).hasMessageStartingWith("srun: error: Invalid MPI type 'pmix'");
    }

    @Test
    void tasksPerNodeIsWrittenAsSlurmCompressesIt() {
        assertThat(TaskCounts.compressed(List.of(2, 2))).isEqualTo("2(x2)");
        assertThat(TaskCounts.compressed(List.of(3, 3, 2, 1))).isEqualTo("3(x2),2,1");
    }

    @Test
    void exportAllPassesTheCallersEnvironmentButNotItsPerTaskVariables() {
        Map<String, String> caller = Map.of("PATH", "/bin", "CUDA_VISIBLE_DEVICES", "0", "SLURM_JOB_ID", "42");
        StepRequest all = new StepRequest(null, List.of("true"), null, null, null, null, null, null, null, null,
                "ALL,X=1", caller, false, false, null);
        assertThat(StepService.exported(all)).containsOnlyKeys("PATH", "SLURM_JOB_ID", "X");
        StepRequest none = new StepRequest(null, List.of("true"), null, null, null, null, null, null, null, null,
                "NONE", caller, false, false, null);
        assertThat(StepService.exported(none)).containsOnlyKeys("SLURM_JOB_ID");
    }
}
