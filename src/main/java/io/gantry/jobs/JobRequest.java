package io.gantry.jobs;

import java.util.List;

/**
 * What a job asks the engine for, under the names the store keeps: its shape (nodes, tasks, CPUs,
 * memory, GPUs), where it may run and under which account, QOS and time limit. A submission being
 * checked and a stored job both answer it, so {@link EngineRequests} turns either into the same
 * engine request.
 */
public interface JobRequest {

    List<String> partitions();

    String account();

    String qos();

    long timeLimitSeconds();

    int minNodes();

    /** {@code -N min-max}'s max, or null. */
    Integer maxNodes();

    int tasks();

    int cpusPerTask();

    /** Per node, in MB; 0 when none was asked (the partition's default). */
    long memoryMb();

    int gpus();

    int gpusPerNode();

    String gpuType();

    /** GPU shards ({@code --gres=shard:N}), or null. */
    Integer shards();

    /** {@code -C}, or null. */
    String constraints();

    boolean exclusive();

    /** The mode of {@code --exclusive=mode}, or null. */
    String exclusiveMode();

    /** The compressed hostlist of {@code -w}, or null. */
    String nodelist();

    /** The compressed hostlist of {@code -x}, or null. */
    String exclude();

    /** {@link JobSwitches}'s stored form, or null. */
    String switches();

    /** {@code --time-min}, or null. */
    Long timeMinSeconds();

    /** {@code --segment}, or null. */
    Integer segment();
}
