package io.gantry.jobs;

import io.gantry.engine.Qos;

/**
 * Where a job is charged and under which QOS, with the limits checked when it is submitted:
 * the QOS's own, its MaxSubmitJobsPerUser and the association's MaxSubmitJobs (null: no limit).
 */
public record Charge(String account, String qos, Qos limits, Integer maxSubmitJobsPerUser,
        Integer associationMaxSubmitJobs) {
}
