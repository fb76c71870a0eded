package io.gantry.simulation;

/**
 * One job of a Standard Workload Format trace, as the simulator uses it: {@code procs} is the
 * requested processor count (field 8, else the allocated one, field 5), {@code timeLimit} the
 * requested time (field 9) raised to the run time when missing or shorter; {@code user} field 12
 * (-1 when the trace has none).
 */
public record SwfJob(long id, long submit, long runTime, int procs, long timeLimit, long user) {
}
