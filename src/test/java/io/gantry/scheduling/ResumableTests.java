package io.gantry.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.gantry.cluster.ClusterLayout;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobAllocation;
import io.gantry.jobs.JobState;

/** A suspended job resumes only when all it held, its very GPUs, is free again of the jobs that run. */
class ResumableTests {

    private static final Map<String, ClusterLayout.NodeSpec> NODES = Map.of("n1",
            new ClusterLayout.NodeSpec("n1", 8, 8000, 4, "h100", List.of(), false, List.of("p"), null, null));

    @Test
    void aSuspendedJobWaitsWhileItsPreemptorHoldsItsGpusAndResumesOnceItEnded() {
        ActiveJob victim = job(1, JobState.SUSPENDED, 100, 4, List.of(0, 1));
        ActiveJob preemptor = job(2, JobState.RUNNING, 200, 4, List.of(0, 1));
        assertThat(Resumable.of(List.of(victim), List.of(preemptor), NODES)).isEmpty();
        assertThat(Resumable.of(List.of(victim), List.of(), NODES)).containsExactly(victim);
    }

    @Test
    void otherGpusFreeAreNotEnoughItsProcessesKeepTheDevicesTheyWereGiven() {
        ActiveJob victim = job(1, JobState.SUSPENDED, 100, 2, List.of(0, 1));
        // Two GPUs free (2 and 3) and CPUs to spare, but GPU 1 is another job's.
        ActiveJob other = job(3, JobState.RUNNING, 300, 2, List.of(1));
        assertThat(Resumable.of(List.of(victim), List.of(other), NODES)).isEmpty();
    }

    @Test
    void twoSuspendedJobsOnTheSameGpusResumeOneAtATimeTheOldestFirst() {
        ActiveJob older = job(1, JobState.SUSPENDED, 100, 2, List.of(0));
        ActiveJob younger = job(2, JobState.SUSPENDED, 200, 2, List.of(0));
        assertThat(Resumable.of(List.of(younger, older), List.of(), NODES)).containsExactly(older);
    }

    @Test
    void cpusInUseKeepItSuspendedToo() {
        ActiveJob victim = job(1, JobState.SUSPENDED, 100, 6, List.of());
        ActiveJob other = job(3, JobState.RUNNING, 300, 4, List.of());
        assertThat(Resumable.of(List.of(victim), List.of(other), NODES)).isEmpty();
    }

    private static ActiveJob job(long id, JobState state, long started, int cpus, List<Integer> gpus) {
        return new ActiveJob(id, 1, id, -1, "j" + id, "u", "a", "normal", List.of("p"), state, null,
                Instant.EPOCH, null, 600, 0, 1, 1, cpus, 0, gpus.size(), 0, null, null, false, null, null, "p",
                Instant.ofEpochSecond(started), List.of(new JobAllocation("n1", cpus, 100, gpus)), false, null, null,
                null, 0, null, null, null, null, null, null, null, null, null, null, null, null);
    }
}
