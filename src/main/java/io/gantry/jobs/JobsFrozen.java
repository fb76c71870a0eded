package io.gantry.jobs;

import java.util.List;

/**
 * Published when an operator suspended jobs ({@code frozen}: scontrol suspend) or resumed them (scontrol
 * resume). Once committed, the agents of each job's nodes freeze, or thaw, its processes; simulated nodes
 * stop, or start again, the clock of its simulated run. What the jobs hold does not change.
 */
public record JobsFrozen(List<Target> targets, boolean frozen) {

    public JobsFrozen {
        targets = List.copyOf(targets);
    }

    /** A job's row, its id as users write it, and the nodes it runs on. */
    public record Target(long row, String jobId, List<String> nodes) {

        public Target {
            nodes = List.copyOf(nodes);
        }
    }
}
