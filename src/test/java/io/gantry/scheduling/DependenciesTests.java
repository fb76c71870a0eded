package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobOutcome;
import io.gantry.jobs.JobState;
import io.gantry.scheduling.Dependencies.Status;

/** aftercorr and --kill-on-invalid-dep as Slurm resolves them, judged against the jobs a dependency names. */
class DependenciesTests {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final List<JobOutcome> outcomes = new ArrayList<>();

    @Test
    void anAftercorrTaskWaitsForTheTaskOfTheOtherArrayWithItsOwnIdAndNoOther() {
        task(10, 0, JobState.COMPLETED);
        task(10, 1, JobState.RUNNING);
        task(10, 2, JobState.FAILED);

        assertThat(judge(task(20, 0, "aftercorr:10"))).isEqualTo(Status.SATISFIED);
        assertThat(judge(task(20, 1, "aftercorr:10"))).isEqualTo(Status.WAITING);
        assertThat(judge(task(20, 2, "aftercorr:10"))).as("its task failed: never").isEqualTo(Status.NEVER);
    }

    @Test
    void whereTheOtherArrayHasNoSuchTaskAnAftercorrTaskWaitsForTheWholeOtherJobToComplete() {
        task(10, 0, JobState.COMPLETED);
        task(10, 1, JobState.RUNNING);

        assertThat(judge(task(20, 5, "aftercorr:10"))).isEqualTo(Status.WAITING);
        outcomes.set(1, new JobOutcome(10, 1, "j", "u", JobState.COMPLETED, NOW, NOW));
        assertThat(judge(task(20, 5, "aftercorr:10"))).isEqualTo(Status.SATISFIED);
        outcomes.set(1, new JobOutcome(10, 1, "j", "u", JobState.CANCELLED, NOW, NOW));
        assertThat(judge(task(20, 5, "aftercorr:10"))).isEqualTo(Status.NEVER);
    }

    @Test
    void aJobThatIsNoArrayWithAftercorrWaitsForTheWholeOtherJobAsAfterok() {
        task(10, -1, JobState.COMPLETED);
        task(11, -1, JobState.OUT_OF_MEMORY);

        assertThat(judge(task(30, -1, "aftercorr:10"))).isEqualTo(Status.SATISFIED);
        assertThat(judge(task(31, -1, "aftercorr:11"))).isEqualTo(Status.NEVER);
        assertThat(judge(task(32, -1, "aftercorr:99"))).as("a job that does not exist").isEqualTo(Status.NEVER);
    }

    @Test
    void aJobWhoseDependencyCanNeverHoldIsCancelledWhenItAskedOrTheClusterSaysSoAndItDidNotSayOtherwise() {
        assertThat(Dependencies.cancelledWhenNever(killOnInvalidDep(30, true), false)).isTrue();
        assertThat(Dependencies.cancelledWhenNever(killOnInvalidDep(31, false), false)).isFalse();
        assertThat(Dependencies.cancelledWhenNever(killOnInvalidDep(32, null), false)).as("Slurm's default: pends")
                .isFalse();
        assertThat(Dependencies.cancelledWhenNever(killOnInvalidDep(33, null), true)).as("kill_invalid_depend")
                .isTrue();
        assertThat(Dependencies.cancelledWhenNever(killOnInvalidDep(34, false), true)).as("the job's own word wins")
                .isFalse();
    }

    private Status judge(ActiveJob job) {
        return new Dependencies(outcomes, List.of(), NOW).of(job);
    }

    private void task(long jobId, int taskId, JobState state) {
        outcomes.add(new JobOutcome(jobId, taskId, "j", "u", state, state == JobState.PENDING ? null : NOW, NOW));
    }

    private static ActiveJob task(long jobId, int taskId, String dependency) {
        return job(jobId, taskId, dependency, null);
    }

    private static ActiveJob killOnInvalidDep(long jobId, Boolean kill) {
        return job(jobId, -1, "afterok:1", kill);
    }

    private static ActiveJob job(long jobId, int taskId, String dependency, Boolean kill) {
        return new ActiveJob(jobId * 100 + taskId + 1, 1, jobId, taskId, "j", "u", "a", "normal", List.of("gpu"),
                JobState.PENDING, null, NOW, null, 600, 0, 1, 1, 1, 0, 1, 0, null, null, false, dependency, null, null,
                null, List.of(), false, null, null, null, 0, null, null, null, null, null, null, null, null, null,
                null, null, kill);
    }
}
