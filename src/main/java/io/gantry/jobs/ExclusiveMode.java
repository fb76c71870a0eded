package io.gantry.jobs;

import java.util.Set;

/** The modes of sbatch's {@code --exclusive=mode}, as stored and shown (plain {@code --exclusive} has none). */
final class ExclusiveMode {

    /** The job has the blocks its nodes are in to itself (Slurm's topology/block). */
    static final String TOPO = "topo";
    /** Accepted as whole nodes: Gantry never shares a node of an exclusive job, with anyone. */
    static final Set<String> NAMES = Set.of("user", "mcs", TOPO);

    private ExclusiveMode() {
    }
}
