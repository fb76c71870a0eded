package io.gantry.engine;

/**
 * Weights of the multifactor priority, as Slurm's PriorityWeight* settings. Each factor is in
 * [0,1]; a job's priority is the weighted sum, minus its nice. With {@code maxAgeSeconds} 0 the age
 * factor is relative to the longest-waiting pending job (1 for it), so that how much a short
 * job may overtake scales with how long the queue currently is. {@code shortJob} is Gantry's own
 * factor (1 for the shortest time limits, falling on a log scale to 0 at thirty days): it is what
 * lets short jobs overtake long ones, while {@code age} (full after {@code maxAgeSeconds}) keeps
 * long and big jobs from starving. {@code expansion} is Gantry's too: wait / (wait + time limit),
 * which grows fastest for short jobs (ordering by it is "largest expansion factor first").
 * {@code favorSmall} makes the job-size factor favour small jobs. {@code tres} is Slurm's PriorityWeightTRES.
 */
public record PriorityWeights(long age, long fairShare, long jobSize, long partition, long qos, long shortJob,
        long expansion, long maxAgeSeconds, boolean favorSmall, TresPriorityWeights tres) {

    /** Weights without PriorityWeightTRES. */
    public PriorityWeights(long age, long fairShare, long jobSize, long partition, long qos, long shortJob,
            long expansion, long maxAgeSeconds, boolean favorSmall) {
        this(age, fairShare, jobSize, partition, qos, shortJob, expansion, maxAgeSeconds, favorSmall, null);
    }

    public PriorityWeights withTres(TresPriorityWeights v) {
        return new PriorityWeights(age, fairShare, jobSize, partition, qos, shortJob, expansion, maxAgeSeconds,
                favorSmall, v);
    }

    /** All weights zero: jobs go strictly by submit time, then job id. */
    public static final PriorityWeights FIRST_COME_FIRST_SERVED = new PriorityWeights(0, 0, 0, 0, 0, 0, 0, 7 * 86400, false);

    public PriorityWeights {
        tres = tres == null ? TresPriorityWeights.NONE : tres;
        if (age < 0 || fairShare < 0 || jobSize < 0 || partition < 0 || qos < 0 || shortJob < 0 || expansion < 0) {
            throw new IllegalArgumentException("priority weights must not be negative");
        }
        if (maxAgeSeconds < 0) {
            throw new IllegalArgumentException("max age must not be negative");
        }
    }
}
