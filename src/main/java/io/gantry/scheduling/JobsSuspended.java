package io.gantry.scheduling;

import java.util.List;

/**
 * Published after a cycle that suspended jobs for their preemptors (PreemptMode SUSPEND) or resumed
 * them committed: every node of each must freeze, or thaw, the job's processes.
 */
public record JobsSuspended(List<Target> suspended, List<Target> resumed) {

    public JobsSuspended {
        suspended = List.copyOf(suspended);
        resumed = List.copyOf(resumed);
    }

    /** A job, as users write its id, and the nodes it runs on. */
    public record Target(long row, String jobId, List<String> nodes) {
    }
}
