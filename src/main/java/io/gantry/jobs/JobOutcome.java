package io.gantry.jobs;

/** How a referenced job stands, for dependencies: its id, task and state. */
public record JobOutcome(long jobId, int arrayTaskId, String name, String user, JobState state, java.time.Instant startTime,
        java.time.Instant submitTime) {
}
