package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.gantry.engine.Constraint;
import io.gantry.engine.JobId;
import io.gantry.engine.NodeAllocation;
import io.gantry.engine.PendingJob;
import io.gantry.engine.Request;
import io.gantry.engine.RunningJob;

/** The bridge from a stored job to the engine: every field the engine places by arrives, named. */
class EngineRequestsTests {

    private static final Instant SUBMIT = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void aStoredJobAsksTheEngineForEveryPartOfItsShape() {
        ActiveJob job = job(JobState.PENDING, "a&b", "topo", "2@0", 300L, 2, null, null, null);

        Request request = EngineRequests.request(job);

        assertThat(request).isEqualTo(Request.builder().nodes(4).maxNodes(8).tasks(16).cpusPerTask(2)
                .memoryMb(1000).gpusPerNode(2).gpuType("h100").constraint(Constraint.parse("a&b")).exclusive(true)
                .topoExclusive(true).nodelist("n[1-4]").exclude("n9").switches(2).switchWaitSeconds(0)
                .timeMinSeconds(300).segment(2).build());
    }

    @Test
    void optionsAJobLeftOutAskTheEngineForNothing() {
        Request request = EngineRequests.request(job(JobState.PENDING, null, null, null, null, null, null, null, null));

        assertThat(request.constraint()).isEqualTo(Constraint.NONE);
        assertThat(request.topoExclusive()).isFalse();
        assertThat(request.switches()).isZero();
        assertThat(request.switchWaitSeconds()).isZero();
        assertThat(request.timeMinSeconds()).isZero();
        assertThat(request.segment()).isZero();
        assertThat(request.shards()).isZero();
    }

    @Test
    void aPendingJobIsEligibleFromItsBeginTimeElseFromItsSubmission() {
        Instant begin = SUBMIT.plusSeconds(3600);

        PendingJob waiting = EngineRequests.pending(job(JobState.PENDING, null, null, null, null, null, begin, null,
                null));
        PendingJob submitted = EngineRequests.pending(job(JobState.PENDING, null, null, null, null, null, null, null,
                null));

        assertThat(waiting.id()).isEqualTo(JobId.of(7, 3));
        assertThat(waiting.eligibleTime()).isEqualTo(begin.getEpochSecond());
        assertThat(submitted.eligibleTime()).isEqualTo(SUBMIT.getEpochSecond());
        assertThat(waiting.nice()).isEqualTo(5);
        assertThat(waiting.reservation()).isEqualTo("maint");
        assertThat(waiting.partitions()).containsExactly("gpu", "cpu");
    }

    @Test
    void aRunningJobHoldsItsAllocationUntilItsTimeLimit() {
        Instant start = SUBMIT.plusSeconds(60);
        JobAllocation allocation = new JobAllocation("n1", 8, 1000, List.of(0, 1), List.of(), null, 0, 0);

        RunningJob running = EngineRequests.running(job(JobState.RUNNING, null, "topo", null, null, null, null, start,
                List.of(allocation)));

        assertThat(running.startTime()).isEqualTo(start.getEpochSecond());
        assertThat(running.expectedEnd()).isEqualTo(start.getEpochSecond() + 3600);
        assertThat(running.allocation()).containsExactly(new NodeAllocation("n1", 8, 1000, List.of(0, 1), List.of(),
                -1, 0));
        assertThat(running.topoExclusive()).isTrue();
    }

    private static ActiveJob job(JobState state, String constraints, String exclusiveMode, String switches,
            Long timeMin, Integer segment, Instant eligible, Instant start, List<JobAllocation> allocation) {
        return new ActiveJob(1, 1, 7, 3, "j", "alice", "physics", "normal", List.of("gpu", "cpu"), state, Hold.NONE,
                SUBMIT, eligible, 3600, 5, 4, 16, 2, 1000, 0, 2, "h100", constraints, exclusiveMode != null, null,
                null, start == null ? null : "gpu", start, allocation == null ? List.of() : allocation, true, null,
                null, null, 0, null, "maint", "n[1-4]", "n9", switches, 8, timeMin, segment, exclusiveMode, null, null, null);
    }
}
