package io.gantry.scheduling;

import java.util.List;

import io.gantry.jobs.ActiveJob;

/** Published after a plan's starts committed: the jobs' nodes should run them now. */
public record JobStarted(List<ActiveJob> jobs) {
}
