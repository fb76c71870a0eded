package io.gantry.gpus;

import java.time.Instant;
import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/** One job's GPU readings over time, per GPU, for a chart of its use. */
@Schema(name = "JobGpuUsageSeries", description = "A job's GPU readings per GPU over time, oldest first; when there "
        + "are more than maxPoints, readings are merged into equal time buckets (mean utilisation, peak memory)")
public record GpuUsageSeries(
        @Schema(example = "42") String jobId,
        @Schema(description = "Seconds each point stands for when merged; null when the points are raw readings")
        Long bucketSeconds,
        List<Point> points) {

    /** One reading (or bucket) of one GPU. */
    @Schema(name = "JobGpuUsagePoint")
    public record Point(Instant time, @Schema(example = "node1") String node, @Schema(example = "0") int gpu,
            @Schema(description = "Percent; null when not reported") Double utilization,
            @Schema(description = "MiB; null when not reported") Long memoryUsedMb,
            @Schema(description = "MiB; null when not reported") Long memoryTotalMb,
            @Schema(description = "Watts; null when not reported") Double powerWatts) {
    }
}
