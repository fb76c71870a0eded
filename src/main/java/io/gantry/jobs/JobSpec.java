package io.gantry.jobs;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A submission after directives, JSON and partition defaults are merged and checked: what the
 * store keeps and the engine is asked to place. Memory is per node, in MB (0 = none asked: the
 * partition's default). {@code umask} is 4 octal digits or null; {@code signal} is {@link JobSignal}'s
 * canonical form or null, {@code switches} {@link JobSwitches}'s; {@code deadline} is {@code --deadline}, or null; {@code killOnInvalidDep} {@code --kill-on-invalid-dep}, or null when not given. {@code defaultMemoryMb} is, for a job that names no memory, what its first
 * partition's default gives it per node, as shown while it waits.
 */
public record JobSpec(String name, String script, List<String> partitions, String account, String qos,
        int minNodes, Integer maxNodes, int tasks, int cpusPerTask, Integer ntasksPerNode, long memoryMb,
        int gpus, int gpusPerNode, String gpuType, long timeLimitSeconds, String constraints, boolean exclusive,
        String dependency, String array, Integer arrayMaxRunning, List<Integer> arrayTaskIds, Hold hold, int nice,
        String workdir, Map<String, String> environment, String stdout, String stderr, boolean requeue,
        String reservation, Instant beginTime, String nodelist, String exclude, String comment,
        Long simulatedRunSeconds, Integer simulatedExitCode, String umask, String signal, String switches,
        Long timeMinSeconds, Integer segment, Long defaultMemoryMb, String exclusiveMode, Integer shards,
        io.gantry.noded.protocol.ContainerSpec container, Instant deadline, Boolean killOnInvalidDep) {

    /** A spec without a deadline. */
    public JobSpec(String name, String script, List<String> partitions, String account, String qos,
            int minNodes, Integer maxNodes, int tasks, int cpusPerTask, Integer ntasksPerNode, long memoryMb,
            int gpus, int gpusPerNode, String gpuType, long timeLimitSeconds, String constraints, boolean exclusive,
            String dependency, String array, Integer arrayMaxRunning, List<Integer> arrayTaskIds, Hold hold, int nice,
            String workdir, Map<String, String> environment, String stdout, String stderr, boolean requeue,
            String reservation, Instant beginTime, String nodelist, String exclude, String comment,
            Long simulatedRunSeconds, Integer simulatedExitCode, String umask, String signal, String switches,
            Long timeMinSeconds, Integer segment, Long defaultMemoryMb, String exclusiveMode, Integer shards,
            io.gantry.noded.protocol.ContainerSpec container) {
        this(name, script, partitions, account, qos, minNodes, maxNodes, tasks, cpusPerTask, ntasksPerNode, memoryMb,
                gpus, gpusPerNode, gpuType, timeLimitSeconds, constraints, exclusive, dependency, array,
                arrayMaxRunning, arrayTaskIds, hold, nice, workdir, environment, stdout, stderr, requeue, reservation,
                beginTime, nodelist, exclude, comment, simulatedRunSeconds, simulatedExitCode, umask, signal, switches,
                timeMinSeconds, segment, defaultMemoryMb, exclusiveMode, shards, container, null, null);
    }

    /** A spec without a container. */
    public JobSpec(String name, String script, List<String> partitions, String account, String qos,
            int minNodes, Integer maxNodes, int tasks, int cpusPerTask, Integer ntasksPerNode, long memoryMb,
            int gpus, int gpusPerNode, String gpuType, long timeLimitSeconds, String constraints, boolean exclusive,
            String dependency, String array, Integer arrayMaxRunning, List<Integer> arrayTaskIds, Hold hold, int nice,
            String workdir, Map<String, String> environment, String stdout, String stderr, boolean requeue,
            String reservation, Instant beginTime, String nodelist, String exclude, String comment,
            Long simulatedRunSeconds, Integer simulatedExitCode, String umask, String signal, String switches,
            Long timeMinSeconds, Integer segment, Long defaultMemoryMb, String exclusiveMode, Integer shards) {
        this(name, script, partitions, account, qos, minNodes, maxNodes, tasks, cpusPerTask, ntasksPerNode, memoryMb,
                gpus, gpusPerNode, gpuType, timeLimitSeconds, constraints, exclusive, dependency, array,
                arrayMaxRunning, arrayTaskIds, hold, nice, workdir, environment, stdout, stderr, requeue, reservation,
                beginTime, nodelist, exclude, comment, simulatedRunSeconds, simulatedExitCode, umask, signal, switches,
                timeMinSeconds, segment, defaultMemoryMb, exclusiveMode, shards, null, null, null);
    }

    public JobSpec {
        partitions = List.copyOf(partitions);
        arrayTaskIds = arrayTaskIds == null ? List.of() : List.copyOf(arrayTaskIds);
        environment = environment == null ? Map.of() : Map.copyOf(environment);
    }
}
