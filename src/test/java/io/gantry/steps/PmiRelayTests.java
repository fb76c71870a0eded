package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.CommandType;
import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import io.gantry.noded.protocol.PmiProtocol;
import io.gantry.noded.protocol.StepProtocol.StepTaskExit;
import io.gantry.jobs.JobState;

/** The leader's side of an srun --mpi=pmi2 step: fences merged over the step's nodes, and a failed rank. */
class PmiRelayTests {

    private static StepRun run() {
        StepRun run = new StepRun(new StepRecord(1, "7", 0, "hello", List.of("./hello"), List.of("node1", "node2"), 4, 1,
                List.of(2, 2), "node1:2:;node2:2:", false, JobState.RUNNING, null, null, null));
        run.pmi();
        return run;
    }

    private static StepReport fence(int procId, int round, Map<String, String> pairs) {
        return new StepReport("7", 0, procId, StepReportType.PMI_FENCE, null, round, PmiProtocol.encode(pairs), null,
                null);
    }

    @Test
    void aFenceIsAnsweredOnceEveryNodeSentItsPartAndThenToEveryNode() {
        StepRun run = run();
        assertThat(PmiRelay.report(run, "node2", fence(2, 0, Map.of("card-2", "b", "card-3", "c")))).isEmpty();
        // the agent sends its part again (not acknowledged in time): nothing more
        assertThat(PmiRelay.report(run, "node2", fence(2, 0, Map.of("card-2", "b", "card-3", "c")))).isEmpty();
        Map<String, List<Command>> done = PmiRelay.report(run, "node1", fence(0, 0, Map.of("card-0", "a")));
        assertThat(done).containsOnlyKeys("node1", "node2");
        Command command = done.get("node2").get(0);
        assertThat(command.type()).isEqualTo(CommandType.PMI_FENCE);
        assertThat(command.step().nodeId()).isZero();
        assertThat(command.step().environment()).containsOnly(Map.entry("card-0", "a"), Map.entry("card-2", "b"),
                Map.entry("card-3", "c"));
        // a late repeat of fence 0 starts nothing; fence 1 begins empty
        assertThat(PmiRelay.report(run, "node1", fence(0, 0, Map.of("card-0", "a")))).isEmpty();
        assertThat(PmiRelay.report(run, "node1", fence(0, 1, Map.of()))).isEmpty();
        assertThat(PmiRelay.report(run, "node2", fence(2, 1, Map.of())).get("node1").get(0).step().nodeId())
                .isEqualTo(1);
    }

    @Test
    void aFenceOverTheBoundKillsTheStep() {
        StepRun run = run();
        Map<String, String> big = new LinkedHashMap<>();
        String value = "x".repeat(1000);
        for (int i = 0; i <= PmiProtocol.MAX_KVS_BYTES / 1000; i++) {
            big.put("k" + i, value);
        }
        Map<String, List<Command>> kill = PmiRelay.report(run, "node1", fence(0, 0, big));
        assertThat(kill).containsOnlyKeys("node1", "node2");
        assertThat(kill.get("node1").get(0).type()).isEqualTo(CommandType.STEP_SIGNAL);
        assertThat(kill.get("node1").get(0).step().signal()).isEqualTo("KILL");
    }

    @Test
    void aRankThatExitsFiveKillsTheOthersAndTheStepEndsFailedWithFive() {
        StepRun run = run();
        assertThat(PmiRelay.failed(run, 2, null)).containsOnlyKeys("node1", "node2");
        assertThat(PmiRelay.failed(run, 2, null)).as("killed once").isEmpty();
        assertThat(run.ended(2, 5, null, 1)).isFalse();
        run.ended(0, null, 9, 2);
        run.ended(1, null, 9, 3);
        assertThat(run.ended(3, null, 9, 4)).isTrue();
        assertThat(run.endState()).isEqualTo(JobState.FAILED);
        assertThat(run.endExit()).isEqualTo(5);
        // srun's exit code is the highest of the tasks': the ranks the kill ended are no failures of their own
        assertThat(run.io(0).exits()).containsExactly(new StepTaskExit(0, null, null), new StepTaskExit(1, null, null),
                new StepTaskExit(2, 5, null), new StepTaskExit(3, null, null));
    }

    @Test
    void aRankThatAbortsEndsWithItsAbortsCode() {
        StepRun run = run();
        StepReport abort = new StepReport("7", 0, 1, StepReportType.PMI_ABORT, null, 0, "task 1 called PMI abort", 5,
                null);
        assertThat(PmiRelay.report(run, "node1", abort)).containsOnlyKeys("node1", "node2");
        for (int procId = 0; procId < 4; procId++) {
            run.ended(procId, null, 9, procId);
        }
        assertThat(run.endState()).isEqualTo(JobState.FAILED);
        assertThat(run.endExit()).isEqualTo(5);
        assertThat(run.io(0).exits()).contains(new StepTaskExit(1, 5, null));
    }

    @Test
    void theTasksGetSlurmsMpiTypeAndNoPmiServerOfTheCaller() {
        Map<String, String> env = new LinkedHashMap<>(Map.of("PMI_PORT", "127.0.0.1:1", "PMI_ID", "3",
                "SLURM_MPI_TYPE", "pmi2", "HOME", "/h"));
        PmiRelay.environment(env, "none");
        assertThat(env).containsOnlyKeys("HOME");
        PmiRelay.environment(env, "pmi2");
        assertThat(env).containsEntry("SLURM_MPI_TYPE", "pmi2");
    }

    @Test
    void mpiTypesAreSlurmsWithPmixRefusedNamingWhatWorks() {
        assertThat(StepLayout.mpi(null)).isEqualTo("none");
        assertThat(StepLayout.mpi("openmpi")).isEqualTo("none");
        assertThat(StepLayout.mpi(" PMI2")).isEqualTo("pmi2");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> StepLayout.mpi("pmix"))
                .hasMessageStartingWith("srun: error: Invalid MPI type 'pmix', --mpi=list for acceptable types")
                .hasMessageContaining("mpirun").hasMessageContaining("pmi2");
    }
}
