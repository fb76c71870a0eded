package io.gantry.cluster;

import java.util.List;
import java.util.Locale;

/**
 * A partition's GPU idle policy (issue 33), from its {@code gpu-idle-*} fields in the cluster file: a running
 * job every GPU of which read below {@code thresholdPercent} for {@code timeoutSeconds} is warned (a job event
 * and a signal), and when it is still idle {@code graceSeconds} later gets {@code action}. It lives on the
 * partition, where GPUs are, so that one place says what an idle GPU costs there; a QOS can only exempt its
 * jobs ({@code gpuIdleExempt}), which keeps the model one policy per job.
 *
 * @param thresholdPercent null: {@code gantry.reports.gpu-idle-threshold}, the report's idea of idle
 */
@io.swagger.v3.oas.annotations.media.Schema(name = "GpuIdlePolicy", description = "A job all of whose GPUs read "
        + "below thresholdPercent for timeoutSeconds is warned (an event and SIGUSR1 or its --signal), and when still "
        + "idle graceSeconds later gets action")
public record GpuIdlePolicy(long timeoutSeconds, Double thresholdPercent, long graceSeconds, Action action) {

    /** This policy with {@code percent} as its threshold (as the API shows it, the default filled in). */
    public GpuIdlePolicy withThreshold(double percent) {
        return new GpuIdlePolicy(timeoutSeconds, percent, graceSeconds, action);
    }

    /** What happens to a job still idle when its grace is over. */
    public enum Action {
        /** Nothing more than the event and the signal. */
        WARN,
        /** Back to the queue, as {@code scontrol requeue} puts it. */
        REQUEUE,
        /** Ended CANCELLED, the reason saying its GPUs were idle. */
        CANCEL
    }

    /** This policy's threshold, or {@code defaultPercent} when the partition names none. */
    public double threshold(double defaultPercent) {
        return thresholdPercent == null ? defaultPercent : thresholdPercent;
    }

    /**
     * The policy partition {@code p} configures (null when it sets no {@code gpu-idle-timeout-seconds}),
     * adding to {@code problems}, each naming its field under {@code key}, what is wrong with it.
     */
    static GpuIdlePolicy of(String key, ClusterProperties.PartitionConfig p, List<String> problems) {
        int before = problems.size();
        if (p.gpuIdleTimeoutSeconds() == null) {
            if (p.gpuIdleThresholdPercent() != null || p.gpuIdleGraceSeconds() != null || p.gpuIdleAction() != null) {
                problems.add(key + ".gpu-idle-timeout-seconds: the other gpu-idle-* fields need it (seconds, 1 or more)");
            }
            return null;
        }
        if (p.gpuIdleTimeoutSeconds() < 1) {
            problems.add(key + ".gpu-idle-timeout-seconds: must be 1 or more; was " + p.gpuIdleTimeoutSeconds());
        }
        Double threshold = p.gpuIdleThresholdPercent();
        if (threshold != null && (threshold.isNaN() || threshold <= 0 || threshold > 100)) {
            problems.add(key + ".gpu-idle-threshold-percent: must be above 0 and at most 100; was " + threshold);
        }
        long grace = p.gpuIdleGraceSeconds() == null ? 0 : p.gpuIdleGraceSeconds();
        if (grace < 0) {
            problems.add(key + ".gpu-idle-grace-seconds: must be 0 or more; was " + grace);
        }
        Action action = Action.WARN;
        if (p.gpuIdleAction() != null) {
            try {
                action = Action.valueOf(p.gpuIdleAction().strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                problems.add(key + ".gpu-idle-action: must be WARN, REQUEUE or CANCEL; was '" + p.gpuIdleAction() + "'");
            }
        }
        return problems.size() > before ? null : new GpuIdlePolicy(p.gpuIdleTimeoutSeconds(), threshold, grace, action);
    }
}
