package io.gantry.gpus;

import java.time.Instant;

import io.gantry.cluster.GpuIdlePolicy;

/**
 * The GPU idle policy's decision for one running job at one moment, kept apart from the store and the clock
 * so each rule (timeout, threshold, reset during the grace, exemption, no readings) can be checked alone.
 * The readings come summarised: when the job's latest reading at or above the threshold was taken (a reading
 * of any of its GPUs counts, so the job is idle only while every GPU is) and when its earliest reading was.
 */
public final class GpuIdleDecision {

    private GpuIdleDecision() {
    }

    /** What the monitor does for the job now. */
    public enum Step {
        /** Nothing: not idle long enough, exempt, or already dealt with. */
        NONE,
        /** Idle for the whole timeout: the event and the signal, the grace starts. */
        WARN,
        /** Warned and still waiting out the grace. */
        WAIT,
        /** Still idle when the grace is over: the policy's action. */
        ACT,
        /** Warned, but a GPU got busy since: the countdown starts again. */
        RESET
    }

    /**
     * Where the countdown of a warned job stands.
     *
     * @param warnedAt when it was warned
     * @param acted whether the action (or, for WARN, the last word) was taken
     */
    public record Warning(Instant warnedAt, boolean acted) {
    }

    /**
     * The job's readings since it started (within the monitor's look-back window).
     *
     * @param lastBusy its latest reading at or above the threshold (or with no utilisation reported); null: none
     * @param firstReading its earliest reading; null: none yet
     */
    public record Readings(Instant lastBusy, Instant firstReading) {

        /** Since when every GPU has read below the threshold; null when there is no reading yet. */
        public Instant idleSince() {
            return lastBusy != null ? lastBusy : firstReading;
        }
    }

    /**
     * @param exempt its QOS is {@code gpuIdleExempt}
     * @param warning where its countdown stands; null when it was not warned
     */
    public static Step decide(GpuIdlePolicy policy, boolean exempt, Readings readings, Warning warning, Instant now) {
        if (exempt) {
            return Step.NONE;
        }
        Instant idleSince = readings == null ? null : readings.idleSince();
        boolean idle = idleSince != null && !now.isBefore(idleSince.plusSeconds(policy.timeoutSeconds()));
        if (warning == null) {
            return idle ? Step.WARN : Step.NONE;
        }
        if (idleSince == null || (readings.lastBusy() != null && readings.lastBusy().isAfter(warning.warnedAt()))) {
            return Step.RESET;
        }
        if (warning.acted()) {
            return Step.NONE;
        }
        return now.isBefore(warning.warnedAt().plusSeconds(policy.graceSeconds())) ? Step.WAIT : Step.ACT;
    }

    /** How long the job has been idle, in whole seconds, for its history. */
    public static long idleSeconds(Readings readings, Instant now) {
        Instant since = readings == null ? null : readings.idleSince();
        return since == null ? 0 : Math.max(0, java.time.Duration.between(since, now).toSeconds());
    }

    /** A percentage as people write it: 5, 7.5. */
    public static String percent(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
