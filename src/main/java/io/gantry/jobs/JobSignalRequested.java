package io.gantry.jobs;

import java.util.List;

/**
 * Published when running jobs must get a signal on their nodes: asked for with
 * {@code POST /jobs/{id}/signal} (scancel --signal), or at the start of a reclaim's grace time. Once
 * committed, the agents of {@link Target#nodes()} are told.
 */
public record JobSignalRequested(List<Target> targets) {

    public JobSignalRequested {
        targets = List.copyOf(targets);
    }

    /** Which of a job's processes get the signal. */
    public enum Scope {
        /** The batch step and every srun step: the batch shell, all it started, every step's tasks ({@code scancel --full}). */
        JOB,
        /** The batch shell alone, not its children ({@code scancel --batch}, {@code --signal=B:...}). */
        BATCH,
        /** The tasks of the srun steps only, not the batch step ({@code scancel --signal} without -b or -f). */
        STEPS,
        /** Everything but the batch shell: what it started and every step's tasks ({@code --signal} without B:). */
        CHILDREN
    }

    /**
     * One job: its display id, the nodes whose agents are told (the batch host first; only it for
     * {@link Scope#BATCH}), the signal as {@link JobSignal#signalName} writes it, and whom it reaches.
     */
    public record Target(String jobId, List<String> nodes, String signal, Scope scope) {

        public Target {
            nodes = List.copyOf(nodes);
        }
    }
}
