package io.gantry.scheduling;

import java.util.List;

/** Published after a plan's preemptions committed: the victims' nodes must stop them now. */
public record JobsPreempted(List<Victim> victims) {

    /** A preempted job and the node that ran its batch script. */
    public record Victim(long row, String jobId, String batchHost, String detail) {
    }
}
