package io.gantry.cluster;

/** As Slurm's partition State: UP runs and accepts jobs; DRAIN accepts none; DOWN accepts but runs none. */
public enum PartitionState {
    UP, DOWN, DRAIN, INACTIVE
}
