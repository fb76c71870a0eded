package io.gantry.security;

/**
 * Whether a job credential's run is still active (RUNNING or COMPLETING, and the same run it was issued
 * for). Implemented by the feature that knows jobs; security only asks, so it does not depend on jobs.
 */
public interface JobCredentialCheck {

    /** {@code jobId} as users write it (42, 42_7); {@code runStartMillis} the run's start in epoch milliseconds. */
    boolean active(String jobId, long runStartMillis);
}
