package io.gantry.scheduling;

import io.gantry.jobs.JobSignalRequested;

/** How a job's history tells of the signal it got as a reclaim's grace time started. */
final class GraceSignals {

    private GraceSignals() {
    }

    /** E.g. "SIGTERM sent to its processes but the batch shell as its grace time of 120 s starts". */
    static String describe(JobSignalRequested.Target signal, long graceSeconds) {
        String name = signal.signal().chars().allMatch(Character::isDigit) ? "signal " + signal.signal()
                : "SIG" + signal.signal();
        String whom = signal.scope() == JobSignalRequested.Scope.BATCH ? "its batch shell"
                : "its processes but the batch shell";
        return name + " sent to " + whom + " as its grace time of " + graceSeconds + " s starts; it is stopped when "
                + "the grace time is over";
    }
}
