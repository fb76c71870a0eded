package io.gantry.scheduling;

import io.gantry.jobs.JobState;

/** Published after a job ended and its resources were given back. */
public record JobEnded(long row, String jobId, JobState state) {
}
