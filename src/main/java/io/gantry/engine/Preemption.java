package io.gantry.engine;

import java.util.Objects;

/**
 * A running job the plan stops so that a job of a QOS allowed to preempt it can start now:
 * {@code REQUEUE} puts the victim back in the queue, {@code CANCEL} ends it PREEMPTED.
 */
public record Preemption(JobId victim, JobId by, Mode mode) {

    public enum Mode {
        REQUEUE, CANCEL
    }

    public Preemption {
        Objects.requireNonNull(victim, "victim");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(mode, "mode");
    }
}
