package io.gantry.engine;

/**
 * What the engine needs to know of a node's state. DRAIN keeps running jobs but takes no new
 * ones; DOWN runs nothing new either (its jobs are the caller's to end). IDLE/MIXED/ALLOCATED are
 * derived from allocations and are not the engine's input.
 */
public enum NodeState {
    UP, DRAIN, DOWN;

    public boolean acceptsJobs() {
        return this == UP;
    }
}
