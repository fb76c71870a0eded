package io.gantry.jobs;

/**
 * Job states in Slurm's words. A SUSPENDED job (preempted in mode SUSPEND) still lives on its nodes, its
 * processes frozen, but holds nothing: what it held went to its preemptor until it resumes.
 */
public enum JobState {
    PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY,
    /** It could no longer end by its {@code --deadline}: never started, or stopped when the deadline came. */
    DEADLINE,
    /** Preempted in mode SUSPEND: its processes frozen on its nodes until what it held is free again. */
    SUSPENDED;

    public boolean isFinished() {
        return this != PENDING && this != RUNNING && this != COMPLETING && this != SUSPENDED;
    }

    public boolean isActive() {
        return this == RUNNING || this == COMPLETING || this == SUSPENDED;
    }
}
