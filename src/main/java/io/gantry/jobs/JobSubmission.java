package io.gantry.jobs;

import java.time.Instant;
import java.util.Map;

import jakarta.validation.constraints.Size;

import io.gantry.noded.protocol.ContainerSpec;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * {@code POST /api/v1/jobs}. Every field is optional; {@code #SBATCH} directives in {@code script}
 * fill what the JSON leaves out (JSON wins, as sbatch's command line wins over directives).
 * Each text has a maximum length ({@link SubmissionLimits}), the script a maximum size in bytes.
 */
@Schema(name = "JobSubmission")
public record JobSubmission(
        @Schema(description = "Job name (-J)") @Size(max = SubmissionLimits.NAME) String name,
        @Schema(description = "Batch script; its #SBATCH directives are read as sbatch reads them. At most "
                + "gantry.jobs.max-script-bytes (4 MB by default) as UTF-8") String script,
        @Schema(description = "Partition, or a comma list of partitions to choose from (-p)") @Size(max = SubmissionLimits.PARTITION) String partition,
        @Size(max = SubmissionLimits.ACCOUNT) String account,
        @Size(max = SubmissionLimits.QOS) String qos,
        @Schema(description = "Minimum node count (-N)") Integer nodes,
        @Schema(description = "Maximum node count (-N min-max)") Integer maxNodes,
        @Schema(description = "Tasks (-n)") Integer tasks,
        Integer cpusPerTask,
        Integer ntasksPerNode,
        @Schema(description = "Memory per node in MB (--mem)") Long memoryMb,
        @Schema(description = "Memory per CPU in MB (--mem-per-cpu)") Long memPerCpuMb,
        @Schema(description = "Memory per GPU in MB (--mem-per-gpu)") Long memPerGpuMb,
        @Schema(description = "GPUs in total (-G)") Integer gpus,
        Integer gpusPerNode,
        Integer gpusPerTask,
        Integer cpusPerGpu,
        @Size(max = SubmissionLimits.GPU_TYPE) String gpuType,
        @Schema(description = "Time limit in seconds (-t); 0 or absent takes the partition default") Long timeLimitSeconds,
        @Schema(description = "Features, with & (and) and | (or), e.g. h100&ib") @Size(max = SubmissionLimits.CONSTRAINTS) String constraints,
        Boolean exclusive,
        @Schema(description = "Slurm dependency expression, e.g. afterok:12:13 or afterany:5?afternotok:6")
        @Size(max = SubmissionLimits.DEPENDENCY) String dependency,
        @Schema(description = "Array expression, e.g. 0-99%10, 1,3,5-7, 0-15:3") @Size(max = SubmissionLimits.ARRAY) String array,
        Boolean hold,
        Integer nice,
        @Size(max = SubmissionLimits.PATH) String workdir,
        @Schema(description = "Variables the job gets; names as in a shell, values not null, at most 1 MiB in all")
        Map<String, String> environment,
        @Schema(description = "Output file pattern (%j %A %a %x %u %N)") @Size(max = SubmissionLimits.PATH) String stdout,
        @Size(max = SubmissionLimits.PATH) String stderr,
        Boolean requeue,
        @Size(max = SubmissionLimits.RESERVATION) String reservation,
        @Schema(description = "When the job may start at the earliest (--begin); 1970 to 9999") Instant beginTime,
        @Schema(description = "Hostlist of nodes the job must run on (-w)")
        @Size(max = SubmissionLimits.HOSTLIST_EXPRESSION) String nodelist,
        @Schema(description = "Hostlist of nodes the job must not run on (-x)")
        @Size(max = SubmissionLimits.HOSTLIST_EXPRESSION) String exclude,
        @Size(max = SubmissionLimits.COMMENT) String comment,
        @Schema(description = "How long the job runs on a simulated node (ignored by real agents)") Long simulatedRunSeconds,
        @Schema(description = "The exit code the job ends with on a simulated node") Integer simulatedExitCode,
        @Schema(description = "The umask the job runs with, 3 or 4 octal digits (e.g. 0022); when absent, "
                + "SLURM_UMASK from environment, else the node's default (0077)", example = "0022") @Size(max = SubmissionLimits.UMASK) String umask,
        @Schema(description = "Signal sent before the time limit, as sbatch's --signal=[{R|B}:]SIG[@seconds] "
                + "(60 s when no time is given; B: the batch shell only)", example = "B:USR1@120") @Size(max = SubmissionLimits.SIGNAL) String signal,
        @Schema(description = "At most this many leaf switches, and how long to wait for them before taking more, "
                + "as sbatch's --switches=count[@max-time] (the wait is at most and by default 5 minutes)",
                example = "1@10:00") @Size(max = SubmissionLimits.SWITCHES) String switches,
        @Schema(description = "The shortest time limit, in seconds, the job accepts (--time-min): where its full "
                + "limit would delay other jobs, it may start sooner with a limit down to this; at most its time limit",
                example = "1800") Long timeMinSeconds,
        @Schema(description = "Nodes per group that must share one block (--segment, Slurm's topology/block); "
                + "the node count must be a multiple of it, and a segment of the whole node count keeps the job in "
                + "one block", example = "4", minimum = "1") Integer segment,
        @Schema(description = "The mode of --exclusive=mode: topo gives the job whole nodes and the blocks they are "
                + "in to itself (no other job on any node of them while it runs; a job that fits one block gets "
                + "exactly one); user and mcs are accepted as whole nodes. Implies exclusive; absent for plain "
                + "--exclusive", allowableValues = {"user", "mcs", "topo"}, example = "topo")
        @Size(max = 8) String exclusiveMode,
        @Schema(description = "GPU shards on one node (--gres=shard:N, Slurm's sharding): a share of one GPU that "
                + "other shard jobs use too; not with whole GPUs, MIG instances or more than one node",
                example = "2", minimum = "1") Integer shards,
        @Schema(description = "The container the batch script runs in: an image as pyxis's --container-image and "
                + "its other --container-* options, or an OCI bundle as Slurm's --container; #SBATCH --container-* "
                + "lines fill it when absent (the JSON's, when given, is taken whole). Its srun steps run on the node "
                + "unless they ask for a container of their own, as with pyxis") ContainerSpec container,
        @Schema(description = "When the job must have ended (--deadline): a job that can no longer end by then "
                + "(now plus its time limit, or its --time-min, is later) ends in state DEADLINE without starting, "
                + "and one still running then is stopped and ends DEADLINE; in the future and not before beginTime")
        Instant deadline,
        @Schema(description = "Whether the job is cancelled when its dependency can never be satisfied (sbatch "
                + "--kill-on-invalid-dep=yes|no); when absent, as the cluster says (gantry.scheduler.kill-invalid-depend, "
                + "Slurm's DependencyParameters=kill_invalid_depend; by default it pends with reason "
                + "DependencyNeverSatisfied)") Boolean killOnInvalidDep) {
}
