package io.gantry.steps;

/** Published when a step started ({@code state} RUNNING) or ended; {@code step} is {@code 42.0} as sacct writes it. */
public record StepChanged(String jobId, String step, String state) {
}
