package io.gantry.gpus;

import java.time.Instant;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * One job's GPU use as its nodes' agents read it: what sacct shows as {@code gres/gpuutil} and
 * {@code gres/gpumem} in TRESUsageInAve/Max, seff's GPU lines and the job view's {@code gpuUsage}.
 * Averages are weighted by the time each reading stands for, over every GPU the job held.
 */
@Schema(name = "JobGpuUsage", description = "A job's GPU use from its nodes' nvidia-smi readings; live while it runs")
public record GpuUsage(
        @Schema(description = "Mean utilisation over its GPUs and run, percent; null when no GPU reported one",
                example = "41.5") Double averageUtilization,
        @Schema(description = "Highest utilisation any of its GPUs reported, percent", example = "98")
        Double peakUtilization,
        @Schema(description = "Most memory any one of its GPUs had in use, MiB", example = "30512") Long peakMemoryMb,
        @Schema(description = "Mean memory in use per GPU over its run, MiB", example = "20480") Long averageMemoryMb,
        @Schema(description = "GPU-seconds its readings cover", example = "7200") double gpuSeconds,
        @Schema(description = "GPU-seconds of readings below gantry.reports.gpu-idle-threshold: allocated but idle",
                example = "3600") double idleGpuSeconds,
        @Schema(description = "How many readings", example = "720") long samples,
        @Schema(description = "When the latest reading was taken") Instant lastSample) {

    /** Slurm's {@code gres/gpuutil} for TRESUsageInAve: the mean, whole percent. */
    public String aveUtilTres() {
        return averageUtilization == null ? null : Long.toString(Math.round(averageUtilization));
    }

    /** Slurm's {@code gres/gpuutil} for TRESUsageInMax: the peak, whole percent. */
    public String maxUtilTres() {
        return peakUtilization == null ? null : Long.toString(Math.round(peakUtilization));
    }
}
