package io.gantry.jobs;

import java.util.List;

/** Published when running jobs were cancelled: their nodes must stop them (rows by store id). */
public record JobCancelRequested(List<Long> jobRows) {
}
