package io.gantry.cluster;

import java.time.Instant;
import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/** What the cluster API answers with; records, never entities. */
public final class ClusterViews {

    private ClusterViews() {
    }

    @Schema(name = "Node")
    public record NodeView(String name, NodeState state, String reason, String reasonUser, Instant reasonTime,
            int cpus, long memoryMb, int gpus, String gpuType, List<String> features, int allocCpus,
            long allocMemoryMb, int allocGpus, List<String> partitions, String switchName, String block,
            boolean simulated, Instant lastHeartbeat,
            @io.swagger.v3.oas.annotations.media.Schema(description = "Its MIG instances in index order (an "
                    + "allocation's migIndices point into this list): profile, and UUID when its agent reported one")
            List<ClusterLayout.MigInstance> migInstances,
            @io.swagger.v3.oas.annotations.media.Schema(description = "Shards each of its whole GPUs offers "
                    + "(--gres=shard:N); 0 for none") int shardsPerGpu,
            @Schema(description = "The reservation it is in now (the first by name when several); null for none. An "
                    + "IDLE node in a reservation runs only the jobs that name it") String reservation,
            @Schema(description = "A maintenance (MAINT) reservation that starts on it within 24 hours; null for none")
            String maintenanceReservation,
            @Schema(description = "When maintenanceReservation starts; null for none") Instant maintenanceStart,
            @Schema(description = "The jobs that ended on it in the last minutes and how many failed; null when "
                    + "none ended there then") NodeFailures recentFailures) {
    }

    @Schema(name = "Partition")
    public record PartitionView(String name, String nodes, int totalNodes, long totalCpus, long totalGpus,
            PartitionState state, boolean isDefault,
            @Schema(description = "Default time limit in seconds; null means UNLIMITED") Long defaultTimeSeconds,
            @Schema(description = "Maximum time limit in seconds; null means UNLIMITED") Long maxTimeSeconds,
            int priorityTier,
            @Schema(description = "MB per allocated CPU a job that asks for no memory gets (DefMemPerCPU)") Long defaultMemPerCpuMb,
            @Schema(description = "MB per node a job that asks for no memory gets (DefMemPerNode); with neither "
                    + "default, such a job gets all of each node's memory") Long defaultMemPerNodeMb,
            @Schema(description = "The partition's GPU idle policy (cluster file gpu-idle-*); null: none")
            GpuIdlePolicy gpuIdle,
            @Schema(description = "Slurm's partition PreemptMode (cluster file preempt-mode): how its running jobs "
                    + "are stopped for a job of a partition of a higher priorityTier under PreemptType="
                    + "preempt/partition_prio; OFF: never", allowableValues = {"OFF", "CANCEL", "REQUEUE", "SUSPEND"})
            String preemptMode,
            @Schema(description = "Slurm's partition QOS (cluster file qos, PATCH /partitions/{name}): every job of "
                    + "the partition is also held to its limits; where it and the job's QOS set the same limit its "
                    + "own wins unless the job's QOS has OverPartQOS. null: none", example = "gpu")
            String qos,
            @Schema(description = "Slurm's TRESBillingWeights (cluster file tres-billing-weights, else gantry.fairshare's "
                    + "weights): what its jobs' billing TRES is", example = "CPU=1,Mem=0.25G,GRES/gpu=2")
            String tresBillingWeights) {
    }

    @Schema(name = "Switch")
    public record SwitchView(String name, String parent,
            @Schema(description = "Hostlist of the nodes directly under this switch; empty for inner switches")
            String nodes, boolean leaf) {
    }

    @Schema(name = "Block")
    public record BlockView(String name, String nodes) {
    }

    @Schema(name = "Topology")
    public record TopologyView(List<SwitchView> switches, List<BlockView> blocks,
            @Schema(description = "The planning base block size and the larger aggregate sizes, in nodes, as "
                    + "topology.conf's BlockSizes (gantry.cluster.block-sizes); empty without blocks",
                    example = "[18, 36, 72]") List<Integer> blockSizes,
            @Schema(description = "The planning base block size, the smallest of blockSizes; 0 without blocks",
                    example = "18") int baseBlockSize) {
    }

    @Schema(name = "NodeUpdate")
    public record NodeUpdate(
            @Schema(description = "DRAIN, RESUME or DOWN", requiredMode = Schema.RequiredMode.REQUIRED) String state,
            @Schema(description = "Why; required for DRAIN and DOWN, as in Slurm")
            @jakarta.validation.constraints.Size(max = 1024) String reason) {
    }

    @Schema(name = "NodesUpdate", description = "Drain, resume or down many nodes at once, all or nothing, like "
            + "scontrol update NodeName=node[01-04] State=DRAIN Reason=...")
    public record NodesUpdate(
            @Schema(description = "The nodes, a Slurm hostlist", example = "node[01-04],gpu01",
                    requiredMode = Schema.RequiredMode.REQUIRED)
            @jakarta.validation.constraints.Size(max = 65536) String nodes,
            @Schema(description = "DRAIN, RESUME or DOWN", requiredMode = Schema.RequiredMode.REQUIRED) String state,
            @Schema(description = "Why; required for DRAIN and DOWN, as in Slurm")
            @jakarta.validation.constraints.Size(max = 1024) String reason) {
    }

    @Schema(name = "NodesUpdated")
    public record NodesUpdated(
            @Schema(description = "The nodes changed, a compressed hostlist", example = "node[01-04]") String nodes,
            @Schema(description = "How many nodes were changed") int count,
            @Schema(description = "Each node as it is now") List<NodeView> items) {
    }

    @Schema(name = "PartitionUpdate", description = "A change of a partition; give state, qos or both (null "
            + "leaves a field)")
    public record PartitionUpdate(
            @Schema(description = "UP (runs and accepts jobs), DOWN (accepts, runs none), DRAIN (accepts none) or "
                    + "INACTIVE, as scontrol update PartitionName=... State=",
                    allowableValues = {"UP", "DOWN", "DRAIN", "INACTIVE"})
            @jakarta.validation.constraints.Size(max = 32) String state,
            @Schema(description = "The partition QOS, an existing QOS name, as scontrol update PartitionName=... QOS=; "
                    + "\"\" clears it. Kept across restarts until the cluster file's qos for the partition changes",
                    example = "gpu")
            @jakarta.validation.constraints.Size(max = 64) String qos) {

        /** A change of state only. */
        public PartitionUpdate(String state) {
            this(state, null);
        }
    }

    @Schema(name = "NodeFailures", description = "Jobs (array tasks each count) that ended on the node in the last "
            + "windowMinutes minutes, and how many of them ended FAILED or NODE_FAIL")
    public record NodeFailures(int failed, int ended, int windowMinutes,
            @Schema(description = "At least " + NodeMarks.FAILING_AT_LEAST + " failed and at least half of those that ended: a node "
                    + "that may be failing every job it gets") boolean failing) {
    }

}
