package io.gantry.steps;

import java.time.Instant;
import java.util.List;

import io.gantry.noded.protocol.ContainerSpec;
import io.gantry.jobs.JobState;

/**
 * One srun step as the store keeps it. {@code layout} is the tasks per node in node order (block
 * distribution: ranks follow the node order), {@code resources} what it holds of the allocation while
 * it runs, as {@code node:cpus:g0.g1;...}. {@code container} is the step's own (srun --container-*), null
 * for none; {@code containerImageDigest} what its image resolved to on the first node that reported it.
 */
record StepRecord(long jobRow, String jobId, int stepId, String name, List<String> argv, List<String> nodes,
        int tasks, int cpusPerTask, List<Integer> layout, String resources, boolean overlap, JobState state,
        Integer exitCode, Instant startTime, Instant endTime, ContainerSpec container, String containerImageDigest) {

    /** A step without a container. */
    StepRecord(long jobRow, String jobId, int stepId, String name, List<String> argv, List<String> nodes,
            int tasks, int cpusPerTask, List<Integer> layout, String resources, boolean overlap, JobState state,
            Integer exitCode, Instant startTime, Instant endTime) {
        this(jobRow, jobId, stepId, name, argv, nodes, tasks, cpusPerTask, layout, resources, overlap, state, exitCode,
                startTime, endTime, null, null);
    }

    StepRecord {
        argv = List.copyOf(argv);
        nodes = List.copyOf(nodes);
        layout = List.copyOf(layout);
    }
}
