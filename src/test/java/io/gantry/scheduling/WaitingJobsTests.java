package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

import io.gantry.engine.JobId;
import io.gantry.engine.PendingReason;
import io.gantry.engine.Plan;
import io.gantry.engine.Priority;
import io.gantry.engine.Waiting;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobState;

/** What the idle-cause report reads of the last full pass: its pending jobs, less those started since. */
class WaitingJobsTests {

    private final PriorityBoard board = new PriorityBoard();
    private final WaitingJobs waiting = new WaitingJobs(board);

    @Test
    void jobsAQuickCycleStartedAfterTheFullPassAreNoLongerPending() {
        ActiveJob first = job(1);
        ActiveJob second = job(2);
        record(first, second);
        assertThat(rows()).containsExactly(1L, 2L);

        waiting.on(new JobStarted(List.of(first)));
        assertThat(rows()).containsExactly(2L);

        // The next full pass lists what is pending then; a job requeued since is pending again.
        record(first, second);
        assertThat(rows()).containsExactly(1L, 2L);
    }

    private void record(ActiveJob... jobs) {
        List<Waiting> list = java.util.Arrays.stream(jobs).map(j -> new Waiting(JobId.of(j.jobId(), -1),
                PendingReason.RESOURCES, OptionalLong.empty(), null, List.of(), priority(j.jobId()))).toList();
        Map<JobId, ActiveJob> byId = new java.util.HashMap<>();
        for (ActiveJob j : jobs) {
            byId.put(JobId.of(j.jobId(), -1), j);
        }
        board.record(Instant.EPOCH, null, new Plan(0, List.of(), list), byId);
    }

    private List<Long> rows() {
        return waiting.lastFullPass().stream().map(p -> p.job().row()).toList();
    }

    private static Priority priority(long id) {
        return new Priority(1000 - id, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    private static ActiveJob job(long id) {
        return new ActiveJob(id, 1, id, -1, "j" + id, "u", "a", "normal", List.of("gpu"), JobState.PENDING, null,
                Instant.EPOCH, null, 600, 0, 1, 1, 1, 0, 1, 0, null, null, false, null, null, null, null, List.of(),
                false, null, null, null, 0, null, null, null, null, null, null, null, null, null, null, null, null);
    }
}
