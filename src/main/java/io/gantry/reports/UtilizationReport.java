package io.gantry.reports;

import java.time.Instant;
import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/** A utilization report, like {@code sreport cluster utilization} / {@code AccountUtilizationByUser}. */
@Schema(name = "UtilizationReport", example = """
        {"start":"2026-12-01T00:00:00Z","end":"2026-12-02T00:00:00Z","interval":"day","groupBy":"cluster",
         "buckets":[{"start":"2026-12-01T00:00:00Z","end":"2026-12-02T00:00:00Z","group":null,
           "gpuHours":{"allocated":2304.0,"idle":480.5,"down":192.0,"reserved":95.5,"total":3072.0},
           "cpuHours":{"allocated":40960.0,"idle":18000.0,"down":3072.0,"reserved":1696.0,"total":63728.0},
           "idleCauses":{"noDemand":1076400,"reserved":547200,"fragmented":396000,"topology":36000,"limits":18000,
             "draining":460800,"down":230400}}]}""")
public record UtilizationReport(Instant start, Instant end, String interval, String groupBy, List<Bucket> buckets,
        @Schema(description = "Allocated GPU-hours in the window whose GPUs sat idle (below the threshold), by account, "
                + "user, partition and job") AllocatedIdleGpus allocatedIdle) {

    public UtilizationReport(Instant start, Instant end, String interval, String groupBy, List<Bucket> buckets) {
        this(start, end, interval, groupBy, buckets, null);
    }

    /**
     * One interval (and group): for groupBy account or user only {@code allocated} is given, and no
     * idle causes.
     */
    @Schema(name = "UtilizationBucket")
    public record Bucket(Instant start, Instant end,
            @Schema(description = "The account or user; null for the whole cluster") String group,
            Figures gpuHours, Figures cpuHours,
            @Schema(description = "Why the bucket's GPUs were not allocated, in GPU-seconds (groupBy cluster only, "
                    + "else null): adds up exactly to (gpuHours.idle + down + reserved) * 3600") IdleCauses idleCauses) {
    }

    /** Hours of a resource: allocated + idle + down + reserved = total. */
    @Schema(name = "UtilizationFigures")
    public record Figures(double allocated,
            @Schema(description = "Neither allocated, down nor reserved") Double idle,
            @Schema(description = "On nodes DOWN, DRAINED or not responding") Double down,
            @Schema(description = "Reserved by advance reservations but not allocated") Double reserved,
            @Schema(description = "All of the cluster's resource over the interval, as sampled") Double total) {
    }
}
