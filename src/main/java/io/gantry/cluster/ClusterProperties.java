package io.gantry.cluster;

import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;

/**
 * The cluster as configured under {@code gantry.cluster}, like slurm.conf: node sets written as
 * hostlists, partitions, the switch tree and blocks. Checked as a whole by {@link ClusterLayout}.
 * {@code blockSizes} is topology.conf's {@code BlockSizes}: the planning base block size (the
 * smallest, which every block must reach) and the larger aggregate sizes, each a power of two times
 * the one before; empty for the default (the smallest block's size, doubled up to all blocks).
 * {@code preemptType} is slurm.conf's {@code PreemptType}: {@code preempt/qos} (the default),
 * {@code preempt/partition_prio} or {@code preempt/none}.
 */
@ConfigurationProperties("gantry.cluster")
public record ClusterProperties(
        @DefaultValue("gantry") String name,
        List<NodeSet> nodes,
        List<PartitionConfig> partitions,
        List<SwitchConfig> switches,
        List<BlockConfig> blocks,
        List<Integer> blockSizes,
        @DefaultValue("preempt/qos") String preemptType) {

    @org.springframework.boot.context.properties.bind.ConstructorBinding
    public ClusterProperties {
        preemptType = preemptType == null ? "preempt/qos" : preemptType;
        nodes = nodes == null ? List.of() : List.copyOf(nodes);
        partitions = partitions == null ? List.of() : List.copyOf(partitions);
        switches = switches == null ? List.of() : List.copyOf(switches);
        blocks = blocks == null ? List.of() : List.copyOf(blocks);
        blockSizes = blockSizes == null ? List.of() : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(blockSizes));
    }

    /** A cluster under QOS preemption (preempt/qos). */
    public ClusterProperties(String name, List<NodeSet> nodes, List<PartitionConfig> partitions,
            List<SwitchConfig> switches, List<BlockConfig> blocks, List<Integer> blockSizes) {
        this(name, nodes, partitions, switches, blocks, blockSizes, null);
    }

    /**
     * Nodes of one shape, like a slurm.conf {@code NodeName=gpu[001-016] CPUs=... Gres=gpu:h100:8} line.
     * Shared GPUs as gres.conf has them: {@code mig} lists the MIG instances of each node as
     * {@code profile:count} items ({@code 1g.10gb:7,3g.40gb:1}; a leading {@code gpu:} is allowed), beside
     * its whole {@code gpus}; {@code shards-per-gpu} splits each whole GPU into that many shards.
     */
    public record NodeSet(String names, int cpus, long memoryMb, int gpus, String gpuType,
            List<String> features, boolean simulated, String mig, int shardsPerGpu) {

        @org.springframework.boot.context.properties.bind.ConstructorBinding
        public NodeSet {
            features = features == null ? List.of() : List.copyOf(features);
        }

        public NodeSet(String names, int cpus, long memoryMb, int gpus, String gpuType, List<String> features,
                boolean simulated) {
            this(names, cpus, memoryMb, gpus, gpuType, features, simulated, null, 0);
        }
    }

    /**
     * Times are written as Slurm writes them ({@code 1:00:00}, {@code 2-00:00:00}, {@code UNLIMITED}).
     * {@code default-mem-per-cpu} or {@code default-mem-per-node} (MB, at most one) is the memory a job
     * that asks for none gets, as Slurm's DefMemPerCPU and DefMemPerNode; with neither it gets all of
     * each node's memory, so it shares its nodes with no other job that needs memory.
     */
    /**
     * {@code gpu-idle-timeout-seconds} turns on the partition's GPU idle policy ({@link GpuIdlePolicy}): a
     * running job all of whose GPUs read below {@code gpu-idle-threshold-percent} (default
     * {@code gantry.reports.gpu-idle-threshold}) for that long is warned, and after
     * {@code gpu-idle-grace-seconds} (default 0) gets {@code gpu-idle-action} (WARN, REQUEUE or CANCEL;
     * default WARN). {@code preempt-mode} is Slurm's partition PreemptMode (OFF, CANCEL, REQUEUE or
     * SUSPEND): how its jobs are stopped for a job of a partition of a higher priority tier under
     * {@code preempt/partition_prio}; unset: REQUEUE under partition_prio, else OFF. {@code qos} is Slurm's
     * partition QOS: every job of the partition is also held to that QOS's limits (it must exist at start).
     * {@code tres-billing-weights} is Slurm's partition TRESBillingWeights ({@code CPU=1.0,Mem=0.25G,GRES/gpu=2.0}):
     * its jobs' billing, which fair-share usage and billing budgets count; unset: {@code gantry.fairshare}'s
     * cpu-weight, gpu-weight and memory-gb-weight.
     */
    public record PartitionConfig(String name, String nodes, @Name("default") boolean isDefault,
            String defaultTime, String maxTime, int priorityTier, @DefaultValue("UP") String state,
            Long defaultMemPerCpu, Long defaultMemPerNode, Long gpuIdleTimeoutSeconds, Double gpuIdleThresholdPercent,
            Long gpuIdleGraceSeconds, String gpuIdleAction, String preemptMode, String qos,
            String tresBillingWeights) {

        @org.springframework.boot.context.properties.bind.ConstructorBinding
        public PartitionConfig {
        }

        /** A partition with partition QOS {@code qos} (null: none), billing with the default weights. */
        public PartitionConfig(String name, String nodes, boolean isDefault, String defaultTime, String maxTime,
                int priorityTier, String state, Long defaultMemPerCpu, Long defaultMemPerNode,
                Long gpuIdleTimeoutSeconds, Double gpuIdleThresholdPercent, Long gpuIdleGraceSeconds,
                String gpuIdleAction, String preemptMode, String qos) {
            this(name, nodes, isDefault, defaultTime, maxTime, priorityTier, state, defaultMemPerCpu,
                    defaultMemPerNode, gpuIdleTimeoutSeconds, gpuIdleThresholdPercent, gpuIdleGraceSeconds,
                    gpuIdleAction, preemptMode, qos, null);
        }

        /** A partition without a partition QOS, billing with the default weights. */
        public PartitionConfig(String name, String nodes, boolean isDefault, String defaultTime, String maxTime,
                int priorityTier, String state, Long defaultMemPerCpu, Long defaultMemPerNode,
                Long gpuIdleTimeoutSeconds, Double gpuIdleThresholdPercent, Long gpuIdleGraceSeconds,
                String gpuIdleAction, String preemptMode) {
            this(name, nodes, isDefault, defaultTime, maxTime, priorityTier, state, defaultMemPerCpu,
                    defaultMemPerNode, gpuIdleTimeoutSeconds, gpuIdleThresholdPercent, gpuIdleGraceSeconds,
                    gpuIdleAction, preemptMode, null);
        }

        /** A partition without its own PreemptMode. */
        public PartitionConfig(String name, String nodes, boolean isDefault, String defaultTime, String maxTime,
                int priorityTier, String state, Long defaultMemPerCpu, Long defaultMemPerNode,
                Long gpuIdleTimeoutSeconds, Double gpuIdleThresholdPercent, Long gpuIdleGraceSeconds,
                String gpuIdleAction) {
            this(name, nodes, isDefault, defaultTime, maxTime, priorityTier, state, defaultMemPerCpu,
                    defaultMemPerNode, gpuIdleTimeoutSeconds, gpuIdleThresholdPercent, gpuIdleGraceSeconds,
                    gpuIdleAction, null, null);
        }

        /** A partition without a GPU idle policy. */
        public PartitionConfig(String name, String nodes, boolean isDefault, String defaultTime, String maxTime,
                int priorityTier, String state, Long defaultMemPerCpu, Long defaultMemPerNode) {
            this(name, nodes, isDefault, defaultTime, maxTime, priorityTier, state, defaultMemPerCpu,
                    defaultMemPerNode, null, null, null, null, null, null);
        }
    }

    /** A switch with nodes is a leaf; one without is an inner switch that leaves name as parent. */
    public record SwitchConfig(String name, String parent, String nodes) {
    }

    /** A group of nodes that jobs asking for one block never straddle (an NVLink domain). */
    public record BlockConfig(String name, String nodes) {
    }
}
