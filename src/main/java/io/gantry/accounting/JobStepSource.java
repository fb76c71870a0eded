package io.gantry.accounting;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.gantry.jobs.JobState;

/**
 * Where sacct's step lines come from: the steps feature implements it (it depends on accounting's
 * neighbours, so accounting only asks through this).
 */
public interface JobStepSource {

    /** One srun step: {@code stepId} 0, 1, ...; {@code cpus} what its tasks were given in all. */
    record StepLine(int stepId, String name, JobState state, Integer exitCode, Instant startTime, Instant endTime,
            String nodeList, int nodes, int tasks, int cpus, String containerImage, String containerImageDigest) {

        /** A step without a container. */
        public StepLine(int stepId, String name, JobState state, Integer exitCode, Instant startTime, Instant endTime,
                String nodeList, int nodes, int tasks, int cpus) {
            this(stepId, name, state, exitCode, startTime, endTime, nodeList, nodes, tasks, cpus, null, null);
        }
    }

    /** The batch host of each job that ran, and each job's srun steps in order; by job id as users write it. */
    record Steps(Map<String, String> batchHosts, Map<String, List<StepLine>> steps) {
    }

    Steps steps(Collection<String> jobIds);
}
