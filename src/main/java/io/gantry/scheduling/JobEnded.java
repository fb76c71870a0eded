package io.gantry.scheduling;

import java.util.List;

import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobAllocation;
import io.gantry.jobs.JobState;

/**
 * Published after a job ended (or went back to the queue) and its resources were given back;
 * {@code nodes} are the nodes its run had, the batch host first (empty when it had none).
 */
public record JobEnded(long row, String jobId, JobState state, List<String> nodes) {

    public JobEnded {
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
    }

    static JobEnded of(ActiveJob job, JobState state) {
        return new JobEnded(job.row(), job.displayId(), state,
                job.allocation().stream().map(JobAllocation::node).distinct().toList());
    }
}
