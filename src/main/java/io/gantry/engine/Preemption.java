package io.gantry.engine;

import java.util.Objects;

/**
 * A running job the plan stops so that a job of a QOS allowed to preempt it can start now:
 * {@code REQUEUE} puts the victim back in the queue, {@code CANCEL} ends it PREEMPTED, {@code SUSPEND}
 * freezes it and gives what it holds to {@code by}, to resume once that is free again. A
 * {@code reclaim} stops a job that borrows another account's guarantee so that the owner ({@code by}
 * is its job) gets it back (issue 16): the caller requeues it when the job allows that, else ends it
 * PREEMPTED, after its QOS's grace time; {@code by} then starts in a later cycle.
 */
public record Preemption(JobId victim, JobId by, Mode mode, boolean reclaim) {

    /** A QOS preemption. */
    public Preemption(JobId victim, JobId by, Mode mode) {
        this(victim, by, mode, false);
    }

    public enum Mode {
        REQUEUE, CANCEL, SUSPEND
    }

    public Preemption {
        Objects.requireNonNull(victim, "victim");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(mode, "mode");
    }
}
