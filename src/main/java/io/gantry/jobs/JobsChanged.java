package io.gantry.jobs;

/** Published after jobs were submitted or changed by a user: wakes the scheduler and live views. */
public record JobsChanged(long jobId, String change) {
}
