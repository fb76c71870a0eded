package io.gantry.jobs;

import java.time.Instant;
import java.util.List;

/**
 * A pending, running or completing job as the scheduler sees it. {@code row} and {@code version}
 * identify the stored row; a start is applied only if the version is still the same.
 * {@code nodelist} and {@code exclude} are the compressed hostlists of {@code -w} and {@code -x}, or null;
 * {@code switches} is {@link JobSwitches}'s stored form, or null; {@code maxNodes} and
 * {@code timeMinSeconds} are {@code -N min-max}'s max and {@code --time-min}, or null; {@code segment}
 * is {@code --segment}, or null; {@code exclusiveMode} the mode of {@code --exclusive=mode}, or null;
 * {@code suspendedBy} who suspended it with scontrol suspend, or null; {@code killOnInvalidDep} sbatch's
 * {@code --kill-on-invalid-dep}, or null when not given.
 */
public record ActiveJob(long row, long version, long jobId, int arrayTaskId, String name, String user, String account,
        String qos, List<String> partitions, JobState state, Hold hold, Instant submitTime, Instant eligibleTime,
        long timeLimitSeconds, int nice, int minNodes, int tasks, int cpusPerTask, long memoryMb, int gpus,
        int gpusPerNode, String gpuType, String constraints, boolean exclusive, String dependency,
        Integer arrayMaxRunning, String partition, Instant startTime, List<JobAllocation> allocation,
        boolean requeue, Long simulatedRunSeconds, Integer simulatedExitCode, String reason, long priority,
        Instant expectedStartTime, String reservation, String nodelist, String exclude, String switches, Integer maxNodes,
        Long timeMinSeconds, Integer segment, String exclusiveMode, Integer shards, String suspendedBy,
        Boolean killOnInvalidDep) implements JobRequest {

    /**
     * Whether it is suspended for its preemptor (PreemptMode SUSPEND) and so holds nothing: what it held is
     * its preemptor's until it resumes. A job an operator suspended ({@code suspendedBy}) holds all it had.
     */
    public boolean suspendedForPreemptor() {
        return state == JobState.SUSPENDED && suspendedBy == null;
    }

    /** Whether it has the blocks of its nodes to itself ({@code --exclusive=topo}). */
    public boolean topoExclusive() {
        return ExclusiveMode.TOPO.equals(exclusiveMode);
    }

    public ActiveJob {
        partitions = List.copyOf(partitions);
        allocation = List.copyOf(allocation);
    }

    public String displayId() {
        return JobIds.format(jobId, arrayTaskId);
    }
}
