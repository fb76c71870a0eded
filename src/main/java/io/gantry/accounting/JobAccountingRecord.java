package io.gantry.accounting;

import java.time.Instant;
import java.util.List;

import io.gantry.jobs.JobState;
import io.swagger.v3.oas.annotations.media.Schema;

/** One line of {@code GET /accounting/jobs}: a job or array task as sacct shows it. */
@Schema(name = "JobAccountingRecord", description = "A job or array task as sacct shows it: what it held and for how long")
public record JobAccountingRecord(
        @Schema(description = "The id as users write it: 42, or 42_7 for an array task", example = "42_7") String jobId,
        @Schema(example = "train-llm") String name,
        @Schema(example = "alice") String user,
        @Schema(example = "physics") String account,
        @Schema(description = "The partition it ran in, else the partitions it may run in", example = "gpu")
        String partition,
        @Schema(example = "normal") String qos,
        @Schema(example = "COMPLETED") JobState state,
        @Schema(description = "The exit code of its batch script, once ended", example = "0") Integer exitCode,
        @Schema(example = "2026-03-01T08:00:00Z") Instant submitTime,
        @Schema(example = "2026-03-01T08:00:05Z") Instant startTime,
        @Schema(example = "2026-03-01T10:00:05Z") Instant endTime,
        @Schema(description = "End (or now, while it runs) minus start; 0 if it never started", example = "7200")
        long elapsedSeconds,
        @Schema(example = "86400") long timeLimitSeconds,
        @Schema(description = "Slurm's AllocTRES: what it held, summed over its nodes; null if it never started",
                example = "cpu=64,mem=256G,gres/gpu=8,node=1") String allocTres,
        @Schema(description = "Allocated CPUs x elapsed seconds", example = "460800") long cpuSeconds,
        @Schema(description = "Allocated GPUs x elapsed seconds", example = "57600") long gpuSeconds,
        @Schema(description = "Hostlist of the nodes it ran on", example = "gpu[001-002]") String nodeList,
        @Schema(description = "Peak memory of its run as its node measured it (the job's cgroup), in bytes; null "
                + "when not known: still running, never started, a simulated node or one without cgroups",
                example = "126418944") Long maxRssBytes,
        @Schema(description = "Slurm's MaxRSS: maxRssBytes as sacct prints it; null when not known",
                example = "123456K") String maxRss,
        @Schema(description = "CPU time of all its run's processes as its node measured it, in milliseconds; "
                + "null when not known", example = "62345") Long totalCpuMillis,
        @Schema(description = "Slurm's TotalCPU: totalCpuMillis as sacct prints it ([D-]HH:MM:SS, or MM:SS.mmm "
                + "under an hour); null when not known", example = "01:02.345") String totalCpu,
        @Schema(description = "True when it ran on GPUs borrowed from another account's guarantee (issue 16); null "
                + "on step lines") Boolean borrowed,
        @Schema(description = "When a reclaim stopped it for the owner of the GPUs it borrowed (it was then "
                + "requeued or ended PREEMPTED); null when none did") Instant reclaimedAt,
        @Schema(description = "The owner's job it was reclaimed for; null when none", example = "43")
        String reclaimedFor,
        @Schema(description = "The container image its batch script (or, on a step line, the step) ran in "
                + "(--container-image), else its OCI bundle (--container); null when none",
                example = "nvcr.io#nvidia/pytorch:24.05-py3") String containerImage,
        @Schema(description = "The digest that image resolved to on its node; null when not known",
                example = "sha256:6e3b1e4c0f7d...") String containerImageDigest,
        @Schema(description = "Slurm's TRESUsageInAve as far as Gantry measures it: gres/gpumem (mean GPU memory "
                + "in use) and gres/gpuutil (mean utilisation percent), over its GPUs and run, from its nodes' "
                + "nvidia-smi readings; null when none arrived",
                example = "gres/gpumem=30512M,gres/gpuutil=41") String tresUsageInAve,
        @Schema(description = "Slurm's TRESUsageInMax: gres/gpumem (most memory one of its GPUs had in use) and "
                + "gres/gpuutil (highest utilisation percent one of its GPUs reported); null when none arrived",
                example = "gres/gpumem=30512M,gres/gpuutil=98") String tresUsageInMax) {

    /** A line with its container but no GPU use. */
    public JobAccountingRecord(String jobId, String name, String user, String account, String partition, String qos,
            JobState state, Integer exitCode, Instant submitTime, Instant startTime, Instant endTime,
            long elapsedSeconds, long timeLimitSeconds, String allocTres, long cpuSeconds, long gpuSeconds,
            String nodeList, Long maxRssBytes, String maxRss, Long totalCpuMillis, String totalCpu, Boolean borrowed,
            Instant reclaimedAt, String reclaimedFor, String containerImage, String containerImageDigest) {
        this(jobId, name, user, account, partition, qos, state, exitCode, submitTime, startTime, endTime,
                elapsedSeconds, timeLimitSeconds, allocTres, cpuSeconds, gpuSeconds, nodeList, maxRssBytes, maxRss,
                totalCpuMillis, totalCpu, borrowed, reclaimedAt, reclaimedFor, containerImage, containerImageDigest,
                null, null);
    }

    /** The same line with GPU use in TRESUsageInAve/Max ({@code usage} null: unchanged). */
    JobAccountingRecord withGpuUsage(io.gantry.gpus.GpuUsage usage) {
        if (usage == null) {
            return this;
        }
        String ave = join(mem(usage.averageMemoryMb()),
                usage.aveUtilTres() == null ? null : "gres/gpuutil=" + usage.aveUtilTres());
        String max = join(mem(usage.peakMemoryMb()),
                usage.maxUtilTres() == null ? null : "gres/gpuutil=" + usage.maxUtilTres());
        return new JobAccountingRecord(jobId, name, user, account, partition, qos, state, exitCode, submitTime,
                startTime, endTime, elapsedSeconds, timeLimitSeconds, allocTres, cpuSeconds, gpuSeconds, nodeList,
                maxRssBytes, maxRss, totalCpuMillis, totalCpu, borrowed, reclaimedAt, reclaimedFor, containerImage,
                containerImageDigest, ave, max);
    }

    /** {@code gres/gpumem} as sacct writes memory: {@code 30512M}. */
    private static String mem(Long mb) {
        return mb == null ? null : "gres/gpumem=" + SacctUsage.maxRss(mb * 1024 * 1024);
    }

    private static String join(String a, String b) {
        return a == null ? b : b == null ? a : a + "," + b;
    }

    /** A line without a container. */
    public JobAccountingRecord(String jobId, String name, String user, String account, String partition, String qos,
            JobState state, Integer exitCode, Instant submitTime, Instant startTime, Instant endTime,
            long elapsedSeconds, long timeLimitSeconds, String allocTres, long cpuSeconds, long gpuSeconds,
            String nodeList, Long maxRssBytes, String maxRss, Long totalCpuMillis, String totalCpu, Boolean borrowed,
            Instant reclaimedAt, String reclaimedFor) {
        this(jobId, name, user, account, partition, qos, state, exitCode, submitTime, startTime, endTime,
                elapsedSeconds, timeLimitSeconds, allocTres, cpuSeconds, gpuSeconds, nodeList, maxRssBytes, maxRss,
                totalCpuMillis, totalCpu, borrowed, reclaimedAt, reclaimedFor, null, null);
    }

    /** The same line with the borrowed marker (issue 16). */
    JobAccountingRecord withQuota(boolean borrowedNow, Instant reclaimed, String forJob) {
        return new JobAccountingRecord(jobId, name, user, account, partition, qos, state, exitCode, submitTime,
                startTime, endTime, elapsedSeconds, timeLimitSeconds, allocTres, cpuSeconds, gpuSeconds, nodeList,
                maxRssBytes, maxRss, totalCpuMillis, totalCpu, borrowedNow, reclaimed, forJob, containerImage,
                containerImageDigest, tresUsageInAve, tresUsageInMax);
    }

    /** A page of {@link JobAccountingRecord}s in the envelope every list has. */
    @Schema(name = "JobAccountingPage")
    public record Page(List<JobAccountingRecord> items, @Schema(example = "0") int page,
            @Schema(example = "50") int size, @Schema(example = "1234") long total) {
    }
}
