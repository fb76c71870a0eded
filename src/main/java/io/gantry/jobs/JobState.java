package io.gantry.jobs;

/** Job states in Slurm's words. */
public enum JobState {
    PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY;

    public boolean isFinished() {
        return this != PENDING && this != RUNNING && this != COMPLETING;
    }

    public boolean isActive() {
        return this == RUNNING || this == COMPLETING;
    }
}
