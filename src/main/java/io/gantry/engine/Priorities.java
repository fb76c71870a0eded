package io.gantry.engine;

/** Slurm-style multifactor priority, with Gantry's short-job factor. */
final class Priorities {

    /** Time limits are placed on a log scale up to this, where the short-job factor reaches 0. */
    static final long SHORT_JOB_HORIZON_SECONDS = 30L * 86400;
    private static final double LOG_HORIZON = Math.log1p(SHORT_JOB_HORIZON_SECONDS);

    private final PriorityWeights w;
    private final long now;
    private final Limits limits;
    private final int maxQosPriority;
    private final int maxTier;
    private final long totalCpus;
    private final long totalGpus;

    private final long ageScale;

    /** {@code oldestEligible}: the earliest eligible time among pending jobs (used when max age is relative). */
    Priorities(PriorityWeights w, long now, Limits limits, Cluster c, long oldestEligible) {
        this.w = w;
        this.ageScale = w.maxAgeSeconds() > 0 ? w.maxAgeSeconds() : Math.max(1, now - oldestEligible);
        this.now = now;
        this.limits = limits;
        this.maxQosPriority = limits.maxQosPriority();
        this.maxTier = c.maxTier;
        this.totalCpus = c.totalCpus;
        this.totalGpus = c.totalGpus;
    }

    Priority of(PendingJob job, int tier) {
        double age = clamp((double) (now - job.eligibleFrom()) / ageScale);
        double fairShare = limits.fairShare(job.account(), job.user());
        Request r = job.request();
        long gpus = r.gpus() > 0 ? r.gpus() : (long) r.gpusPerNode() * Math.max(1, r.nodes());
        double size = gpus > 0 && totalGpus > 0 ? (double) gpus / totalGpus
                : totalCpus > 0 ? (double) r.tasks() * r.cpusPerTask() / totalCpus : 0;
        size = clamp(size);
        double jobSize = w.favorSmall() ? 1 - size : size;
        double partition = maxTier == 0 ? 0 : (double) tier / maxTier;
        Qos q = limits.qos(job.qos());
        double qos = q == null || maxQosPriority <= 0 ? 0 : clamp((double) q.priority() / maxQosPriority);
        double shortJob = clamp(1 - Math.log1p(job.runEstimate()) / LOG_HORIZON);
        long waited = Math.max(0, now - job.eligibleFrom());
        double expansion = (double) waited / (waited + job.runEstimate());
        double sum = w.expansion() * expansion + w.age() * age + w.fairShare() * fairShare + w.jobSize() * jobSize + w.partition() * partition
                + w.qos() * qos + w.shortJob() * shortJob;
        long value = Math.subtractExact(Math.round(sum), job.nice());
        return new Priority(value, age, fairShare, jobSize, partition, qos, shortJob, expansion, job.nice());
    }

    private static double clamp(double v) {
        return v < 0 ? 0 : v > 1 ? 1 : v;
    }
}
