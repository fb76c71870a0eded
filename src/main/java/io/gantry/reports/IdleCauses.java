package io.gantry.reports;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * Why GPUs were not allocated, in GPU-seconds (or, for one sample, GPUs). Every non-allocated GPU
 * has exactly one cause, so the causes add up to the non-allocated GPU time (idle + down +
 * reserved of the report's figures). See {@link IdleClassifier} for what each cause means and
 * which wins when several apply.
 */
@Schema(name = "IdleCauses", description = "Why GPUs were not allocated, in GPU-seconds; the causes add up exactly to "
        + "the bucket's non-allocated GPU time (gpuHours idle + down + reserved, times 3600). Precedence when several "
        + "apply: down > draining > poweredDown > reserved > limits > topology > fragmented > noDemand.")
public record IdleCauses(
        @Schema(description = "Free, and nothing pending asks for GPUs there (or what asks is already served)") long noDemand,
        @Schema(description = "Held by an advance reservation, or for a pending job's reservation in the backfill profile") long reserved,
        @Schema(description = "Free, but the pending jobs that want GPUs there need more per node, or more together, "
                + "than is free (or the CPUs/memory beside them)") long fragmented,
        @Schema(description = "Free, and a pending job could use it but for its topology request (--switches: "
                + "TopologyWait, or one block)") long topology,
        @Schema(description = "Free, and a pending job that could use it is blocked only by a QOS or association limit") long limits,
        @Schema(description = "On nodes being drained or drained") long draining,
        @Schema(description = "On nodes DOWN or not responding") long down,
        @Schema(description = "On nodes power saving has powered down (or is powering down or up)") long poweredDown) {

    public static final IdleCauses NONE = new IdleCauses(0, 0, 0, 0, 0, 0, 0, 0);

    /** Causes where no node is powered down. */
    public IdleCauses(long noDemand, long reserved, long fragmented, long topology, long limits, long draining,
            long down) {
        this(noDemand, reserved, fragmented, topology, limits, draining, down, 0);
    }

    /** All the causes together: the non-allocated total. */
    public long total() {
        return noDemand + reserved + fragmented + topology + limits + draining + down + poweredDown;
    }

    /** These GPUs held for {@code seconds}: GPU-seconds. */
    IdleCauses times(long seconds) {
        return new IdleCauses(Math.multiplyExact(noDemand, seconds), Math.multiplyExact(reserved, seconds),
                Math.multiplyExact(fragmented, seconds), Math.multiplyExact(topology, seconds),
                Math.multiplyExact(limits, seconds), Math.multiplyExact(draining, seconds),
                Math.multiplyExact(down, seconds), Math.multiplyExact(poweredDown, seconds));
    }
}
