package io.gantry.jobs;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.gantry.api.PendingReasonSchema;
import io.swagger.v3.oas.annotations.media.Schema;

/** What the jobs API answers with. */
public final class JobViews {

    private JobViews() {
    }

    @Schema(name = "Job")
    public record JobView(
            @Schema(description = "The job id; for an array task, the array's id") long jobId,
            @Schema(description = "The id as users write it: 42, or 42_7 for an array task") String id,
            Long arrayJobId, Integer arrayTaskId, String name, String user, String account,
            @Schema(description = "The partition it runs in, else the partitions it may run in") String partition,
            String qos, JobState state, @Schema(ref = PendingReasonSchema.REF) String reason, long priority,
            Instant submitTime, Instant eligibleTime,
            Instant startTime, Instant endTime,
            @Schema(description = "For a pending job, when it is expected to start (squeue --start), assuming every "
                    + "job ahead runs to its time limit; null when none can be given (held, waiting on a dependency "
                    + "or a limit, or unable to run as the cluster is). Far down a long queue it is first rough, "
                    + "from the summed free resources of the nodes it may use, to the minute, until the search "
                    + "reaches the job") Instant expectedStartTime,
            long timeLimitSeconds,
            int nodes, Integer maxNodes, int tasks, int cpusPerTask, Integer ntasksPerNode, long memoryMb,
            int gpus, int gpusPerNode, String gpuType, String constraints, boolean exclusive,
            @Schema(description = "Hostlist of the nodes it runs on") String allocatedNodes,
            List<JobAllocation> allocation, Integer exitCode, String dependency, int requeueCount, String array,
            Hold hold, int nice, String workdir, String stdout, String stderr, boolean requeue, String reservation,
            Instant beginTime,
            @com.fasterxml.jackson.annotation.JsonUnwrapped JobOptions options,
            String nodelist, String exclude, String comment,
            @Schema(description = "The environment it was submitted with; only for the job's owner, OPERATORs and "
                    + "ADMINs (null for anyone else, and in lists)") Map<String, String> environment,
            @Schema(description = "Its batch script; only for the job's owner, OPERATORs and ADMINs (null for "
                    + "anyone else, and in lists)") String script,
            Long simulatedRunSeconds, Integer simulatedExitCode,
            @Schema(description = "The umask it runs with (null: the node's default, 0077)") String umask,
            @Schema(description = "Signal sent before the time limit, as [B:]SIG@seconds") String signal,
            @Schema(description = "At most this many leaf switches, waited for up to so many seconds "
                    + "(--switches), as count@seconds; null when not asked", example = "1@300") String switches,
            @Schema(description = "The shortest time limit it accepts (--time-min), in seconds; null when none")
            Long timeMinSeconds,
            @Schema(description = "Nodes per group that shares one block (--segment); null when none") Integer segment,
            @Schema(description = "The mode of --exclusive=mode (user, mcs or topo); null for plain --exclusive or "
                    + "none", example = "topo") String exclusiveMode,
            @Schema(description = "GPU shards asked for on its node (--gres=shard:N); null when none", example = "2")
            Integer shards,
            @Schema(description = "The blocks (NVLink-like domains) its nodes are in, in name order; empty while it "
                    + "holds no nodes or when they are in no block. A topo job has these blocks to itself")
            List<String> blocks,
            @Schema(description = "Peak memory of its run as its node measured it (the job's cgroup), in bytes; "
                    + "null when not known (still running, never started, simulated node, node without cgroups)",
                    example = "126418944") Long maxRssBytes,
            @Schema(description = "CPU time of all its run's processes as its node measured it, in milliseconds; "
                    + "null when not known", example = "62345") Long totalCpuMillis,
            @Schema(description = "The container its batch script runs in (--container-image and the other "
                    + "--container-* options, or --container); null when it runs on the node")
            io.gantry.noded.protocol.ContainerSpec container,
            @Schema(description = "The digest the container's image resolved to on its batch host (the image the "
                    + "job really ran); null before its node has the image, and for a bundle or no container",
                    example = "sha256:6e3b1e4c0f7d...") String containerImageDigest,
            @Schema(description = "Its GPU use from its nodes' nvidia-smi readings (live while it runs; see "
                    + "GET /jobs/{id}/gpu-usage for the series); null when none arrived, and in lists")
            io.gantry.gpus.GpuUsage gpuUsage,
            @Schema(description = "The cluster's name (gantry.cluster.name, Slurm's ClusterName); null in lists",
                    example = "gantry") String cluster,
            @Schema(description = "Slurm's billing TRES of what it holds: its partition's TRESBillingWeights x its "
                    + "allocation (cluster file tres-billing-weights), truncated; null while it holds nothing",
                    example = "40") Long billing) {

        /** The same job with its GPU use and its cluster's name (what one job's page shows beyond a list's line). */
        public JobView withGpuUsage(io.gantry.gpus.GpuUsage usage, String clusterName) {
            return new JobView(jobId, id, arrayJobId, arrayTaskId, name, user, account, partition, qos, state, reason,
                    priority, submitTime, eligibleTime, startTime, endTime, expectedStartTime, timeLimitSeconds, nodes,
                    maxNodes, tasks, cpusPerTask, ntasksPerNode, memoryMb, gpus, gpusPerNode, gpuType, constraints,
                    exclusive, allocatedNodes, allocation, exitCode, dependency, requeueCount, array, hold, nice,
                    workdir, stdout, stderr, requeue, reservation, beginTime, options, nodelist, exclude, comment,
                    environment, script, simulatedRunSeconds, simulatedExitCode, umask, signal, switches,
                    timeMinSeconds, segment, exclusiveMode, shards, blocks, maxRssBytes, totalCpuMillis, container,
                    containerImageDigest, usage, clusterName, billing);
        }
    }

    @Schema(name = "JobSubmitted")
    public record SubmitResponse(long jobId, List<Integer> arrayTaskIds, List<String> warnings) {
    }

    @Schema(name = "JobEvent")
    public record JobEventView(Instant time, String type, String detail) {
    }

    @Schema(name = "JobUpdate")
    public record JobUpdate(@jakarta.validation.constraints.Size(max = SubmissionLimits.NAME) String name,
            Long timeLimitSeconds,
            @jakarta.validation.constraints.Size(max = SubmissionLimits.PARTITION) String partition,
            @jakarta.validation.constraints.Size(max = SubmissionLimits.QOS) String qos, Integer nice,
            @jakarta.validation.constraints.Size(max = SubmissionLimits.CONSTRAINTS) String constraints) {
    }

    @Schema(name = "JobSignalled", description = "A signal on its way to running jobs' processes")
    public record SignalResult(
            @Schema(description = "The jobs (or array tasks) it was sent to", example = "[\"42\"]") List<String> jobs,
            @Schema(description = "The signal, by its name without SIG (or its number when it has none)",
                    example = "USR1") String signal,
            @Schema(description = "Whom it reaches: JOB (the batch shell, all it started and every srun step), "
                    + "BATCH (the batch shell alone) or STEPS (the srun steps' tasks only)", example = "JOB") String scope,
            @Schema(description = "The nodes whose agents were told", example = "[\"node1\"]") List<String> nodes,
            String message) {
    }

    @Schema(name = "JobActionResult")
    public record ActionResult(List<String> jobs, List<String> stopping, String message) {
    }
}
