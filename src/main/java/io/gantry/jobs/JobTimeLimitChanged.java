package io.gantry.jobs;

/**
 * Published when a running job's time limit was changed: the agent on its batch host must enforce
 * the new one ({@code timeLimitSeconds} from the job's start), as slurmd learns of an
 * {@code scontrol update TimeLimit}.
 *
 * @param jobId the job as users write it ({@code 42}, {@code 42_7})
 * @param batchHost the node that runs its batch script
 */
public record JobTimeLimitChanged(String jobId, String batchHost, long timeLimitSeconds) {
}
