package io.gantry.cluster;

/**
 * Published after an admin changed a partition's state or QOS (PATCH /partitions/{name}, scontrol update
 * PartitionName=), so the engine reads the partitions again and the scheduler runs a cycle: a partition
 * set UP may start its pending jobs at once.
 */
public record PartitionStateChanged(String partition, PartitionState state) {
}
