package io.gantry.jobs;

/** Job states in Slurm's words. */
public enum JobState {
    PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY,
    /** It could no longer end by its {@code --deadline}: never started, or stopped when the deadline came. */
    DEADLINE;

    public boolean isFinished() {
        return this != PENDING && this != RUNNING && this != COMPLETING;
    }

    public boolean isActive() {
        return this == RUNNING || this == COMPLETING;
    }
}
