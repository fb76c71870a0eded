package io.gantry.jobs;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A submission after directives, JSON and partition defaults are merged and checked: what the
 * store keeps and the engine is asked to place. Memory is per node, in MB (0 = none asked: the
 * partition's default). {@code umask} is 4 octal digits or null; {@code signal} is {@link JobSignal}'s
 * canonical form or null, {@code switches} {@link JobSwitches}'s; {@code options} are those it keeps as asked ({@link JobOptions}). {@code defaultMemoryMb} is, for a job that names no memory, what its first
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
        io.gantry.noded.protocol.ContainerSpec container, JobOptions options) {

    public JobSpec {
        partitions = List.copyOf(partitions);
        arrayTaskIds = arrayTaskIds == null ? List.of() : List.copyOf(arrayTaskIds);
        environment = environment == null ? Map.of() : Map.copyOf(environment);
        options = options == null ? JobOptions.NONE : options;
    }
}
