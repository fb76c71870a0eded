package io.gantry.scheduling;

import java.util.List;

/** Published after a plan's preemptions committed: the victims' nodes must stop them now. */
public record JobsPreempted(List<Victim> victims) {

    /**
     * A preempted job (or one stopped for another reason, such as idle GPUs), the node that ran its batch
     * script, and the state it ended in, which its node's kill carries.
     */
    public record Victim(long row, String jobId, String batchHost, String detail, String state) {

        /** A job ended PREEMPTED. */
        public Victim(long row, String jobId, String batchHost, String detail) {
            this(row, jobId, batchHost, detail, "PREEMPTED");
        }
    }
}
