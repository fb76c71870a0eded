package io.gantry.reports;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import io.gantry.gpus.AllocatedIdle;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * GPU-hours that were allocated but idle in a report's window: readings of a job's GPUs below
 * {@code gantry.reports.gpu-idle-threshold}, each standing for the time since its GPU's previous one.
 * The idle causes explain every GPU-hour that was not allocated; this is the waste inside the
 * allocated ones (a notebook left open, a job stuck loading data), which only the GPUs' own readings show.
 */
@Schema(name = "AllocatedIdleGpus", description = "Allocated GPU-hours whose GPUs read below the idle threshold, "
        + "from the nodes' nvidia-smi readings (only GPUs nvidia-smi answers for are measured)")
public record AllocatedIdleGpus(
        @Schema(description = "Utilisation below this (percent) counts as idle", example = "5") double thresholdPercent,
        @Schema(description = "Allocated-but-idle GPU-hours in the window", example = "12.5") double gpuHours,
        @Schema(description = "Allocated GPU-hours the readings cover (idle or not)", example = "96") double measuredGpuHours,
        @Schema(description = "By account, most idle first") List<Group> byAccount,
        @Schema(description = "By user, most idle first") List<Group> byUser,
        @Schema(description = "By partition, most idle first") List<Group> byPartition,
        @Schema(description = "By job, most idle first; at most " + AllocatedIdleGpus.MAX_JOBS) List<Group> byJob) {

    static final int MAX_JOBS = 100;

    /** One account, user, partition or job. */
    @Schema(name = "AllocatedIdleGroup")
    public record Group(@Schema(example = "physics") String name,
            @Schema(example = "3.25") double idleGpuHours,
            @Schema(example = "20") double measuredGpuHours) {
    }

    static AllocatedIdleGpus of(double threshold, List<AllocatedIdle> jobs) {
        double idle = jobs.stream().mapToDouble(AllocatedIdle::idleGpuSeconds).sum();
        double measured = jobs.stream().mapToDouble(AllocatedIdle::gpuSeconds).sum();
        List<Group> byJob = group(jobs, AllocatedIdle::jobId);
        return new AllocatedIdleGpus(threshold, idle / 3600, measured / 3600, group(jobs, AllocatedIdle::account),
                group(jobs, AllocatedIdle::user), group(jobs, AllocatedIdle::partition),
                byJob.subList(0, Math.min(MAX_JOBS, byJob.size())));
    }

    private static List<Group> group(List<AllocatedIdle> jobs, Function<AllocatedIdle, String> key) {
        Map<String, double[]> sums = new TreeMap<>();
        for (AllocatedIdle j : jobs) {
            double[] s = sums.computeIfAbsent(key.apply(j) == null ? "" : key.apply(j), k -> new double[2]);
            s[0] += j.idleGpuSeconds();
            s[1] += j.gpuSeconds();
        }
        List<Group> out = new ArrayList<>();
        sums.forEach((name, s) -> out.add(new Group(name, s[0] / 3600, s[1] / 3600)));
        out.sort(Comparator.comparingDouble(Group::idleGpuHours).reversed());
        return out;
    }
}
