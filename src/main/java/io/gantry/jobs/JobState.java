package io.gantry.jobs;

/**
 * Job states in Slurm's words. A SUSPENDED job still lives on its nodes, its processes frozen: one preempted
 * in mode SUSPEND holds nothing (what it held went to its preemptor until it resumes); one an operator
 * suspended (scontrol suspend) keeps all it holds until resumed.
 */
public enum JobState {
    PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY,
    /** It could no longer end by its {@code --deadline}: never started, or stopped when the deadline came. */
    DEADLINE,
    /** Frozen on its nodes: preempted in mode SUSPEND until what it held is free again, or by an operator until resumed. */
    SUSPENDED;

    public boolean isFinished() {
        return this != PENDING && this != RUNNING && this != COMPLETING && this != SUSPENDED;
    }

    public boolean isActive() {
        return this == RUNNING || this == COMPLETING || this == SUSPENDED;
    }
}
