package io.gantry.jobs;

/**
 * Job states in Slurm's words. A SUSPENDED job (preempted in mode SUSPEND) still lives on its nodes, its
 * processes frozen, but holds nothing: what it held went to its preemptor until it resumes.
 */
public enum JobState {
    PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY,
    SUSPENDED;

    public boolean isFinished() {
        return this != PENDING && this != RUNNING && this != COMPLETING && this != SUSPENDED;
    }

    public boolean isActive() {
        return this == RUNNING || this == COMPLETING || this == SUSPENDED;
    }
}
