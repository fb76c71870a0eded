package io.gantry.cluster;

/**
 * A node's state as users see it, in Slurm's words (sinfo/scontrol show node). POWERED_DOWN,
 * POWERING_UP and POWERING_DOWN are power saving's: sinfo shows them as an idle node with the
 * suffixes {@code ~}, {@code #} and {@code %}.
 */
public enum NodeState {
    IDLE, MIXED, ALLOCATED, DRAINING, DRAINED, DOWN, UNKNOWN, POWERED_DOWN, POWERING_UP, POWERING_DOWN
}
