package io.gantry.steps;

import java.time.Instant;
import java.util.List;

import io.gantry.jobs.JobState;

/**
 * One srun step as the store keeps it. {@code layout} is the tasks per node in node order (block
 * distribution: ranks follow the node order), {@code resources} what it holds of the allocation while
 * it runs, as {@code node:cpus:g0.g1;...}.
 */
record StepRecord(long jobRow, String jobId, int stepId, String name, List<String> argv, List<String> nodes,
        int tasks, int cpusPerTask, List<Integer> layout, String resources, boolean overlap, JobState state,
        Integer exitCode, Instant startTime, Instant endTime) {

    StepRecord {
        argv = List.copyOf(argv);
        nodes = List.copyOf(nodes);
        layout = List.copyOf(layout);
    }
}
