package io.gantry.cluster;

/** A node's state as users see it, in Slurm's words (sinfo/scontrol show node). */
public enum NodeState {
    IDLE, MIXED, ALLOCATED, DRAINING, DRAINED, DOWN, UNKNOWN
}
