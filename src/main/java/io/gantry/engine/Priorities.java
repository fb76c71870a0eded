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
    private final Cluster c;
    /** Per partition (null key: the whole cluster): its total CPUs, memory, GPUs and nodes, as they are asked for. */
    private final java.util.Map<String, long[]> totals = new java.util.HashMap<>();

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
        this.c = c;
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
        TresFactors tres = w.tres().isNone() ? TresFactors.NONE : tresFactors(job, gpus);
        double sum = w.expansion() * expansion + w.age() * age + w.fairShare() * fairShare + w.jobSize() * jobSize + w.partition() * partition
                + w.qos() * qos + w.shortJob() * shortJob + tres.weighted(w.tres());
        long value = Math.subtractExact(Math.round(sum), job.nice());
        return new Priority(value, age, fairShare, jobSize, partition, qos, shortJob, expansion, job.nice(), tres);
    }

    /**
     * PriorityWeightTRES's factors: what the job asks of each TRES over its (first) partition's total of it,
     * or the cluster's when its partition is unknown; memory counted per node as asked, at least one node.
     */
    private TresFactors tresFactors(PendingJob job, long gpus) {
        Request r = job.request();
        String name = job.partitions().isEmpty() ? null : job.partitions().get(0);
        long[] total = totals.computeIfAbsent(c.partsByName.containsKey(name) ? name : null, this::totalOf);
        long nodes = Math.max(1, r.nodes());
        double[] asked = { (double) r.tasks() * r.cpusPerTask(), (double) r.memoryMb() * nodes, gpus, nodes };
        double[] f = new double[4];
        for (int i = 0; i < 4; i++) {
            f[i] = total[i] > 0 ? clamp(asked[i] / total[i]) : 0;
        }
        return new TresFactors(f[0], f[1], f[2], f[3]);
    }

    private long[] totalOf(String partition) {
        java.util.BitSet nodes;
        if (partition == null) {
            nodes = new java.util.BitSet(c.size);
            nodes.set(0, c.size);
        } else {
            nodes = c.partsByName.get(partition).nodes();
        }
        long[] t = new long[4];
        for (int i = nodes.nextSetBit(0); i >= 0; i = nodes.nextSetBit(i + 1)) {
            t[0] += c.cpus[i];
            t[1] += c.mem[i];
            t[2] += c.gpus[i];
            t[3]++;
        }
        return t;
    }

    private static double clamp(double v) {
        return v < 0 ? 0 : v > 1 ? 1 : v;
    }
}
