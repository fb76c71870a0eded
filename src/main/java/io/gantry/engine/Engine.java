package io.gantry.engine;

/**
 * The allocation engine: from a {@link Snapshot} to a {@link Plan}. Pure and deterministic: the
 * same snapshot gives the same plan, and the snapshot is never changed. An instance remembers
 * the index it built of the last snapshot's node and partition lists (compared by identity), so a
 * caller that passes the same lists each cycle does not pay for indexing them again.
 */
public final class Engine {

    private volatile Cluster cluster;

    public Plan plan(Snapshot snapshot) {
        return new QueuePass(snapshot, clusterOf(snapshot)).run();
    }

    /**
     * An expected start for every pending job of {@code snapshot} after {@code plan} (the engine's
     * plan of it), or why it has none; see {@link StartEstimator}. Meant to run after the plan is
     * applied, not before: it never changes what starts.
     */
    public StartEstimates estimateStarts(Snapshot snapshot, Plan plan, StartEstimator.Budget budget) {
        return new StartEstimator(snapshot, clusterOf(snapshot), budget).run(plan);
    }

    /**
     * {@link #estimateStarts(Snapshot, Plan, StartEstimator.Budget)} going on where {@code earlier}, the
     * pass over an older snapshot (or null), stopped: jobs past the budget keep that pass's times
     * where they still hold, and the search goes on with the jobs it did not reach.
     */
    public StartEstimates estimateStarts(Snapshot snapshot, Plan plan, StartEstimator.Budget budget,
            StartEstimates earlier) {
        return new StartEstimator(snapshot, clusterOf(snapshot), budget).run(plan, earlier);
    }

    /**
     * Whether the job could ever run in at least one of its partitions (all nodes up and idle):
     * for the submit path to reject what would pend forever. When it cannot, the reason and
     * message are those of its first partition.
     */
    public Feasibility feasibility(Snapshot snapshot, PendingJob job) {
        Cluster c = clusterOf(snapshot);
        Feasibility first = null;
        java.util.Map<String, Qos> byName = new java.util.HashMap<>();
        snapshot.qos().forEach(q -> byName.put(q.name(), q));
        java.util.Map<String, String> partitionQos = new java.util.HashMap<>();
        snapshot.partitions().stream().filter(p -> p.qos() != null).forEach(p -> partitionQos.put(p.name(), p.qos()));
        for (String name : job.partitions()) {
            Qos[] heldTo = Limits.heldTo(byName.get(job.qos()), byName.get(partitionQos.get(name)));
            Feasibility f = feasibility(c, heldTo, job, name);
            if (f.fits()) {
                return f;
            }
            if (first == null) {
                first = f;
            }
        }
        return first;
    }

    /** Whether the job fits {@code partitionName} ever, within the per-job limits of the QOSes it is held to there. */
    private static Feasibility feasibility(Cluster c, Qos[] heldTo, PendingJob job, String partitionName) {
        Cluster.Part part = c.partsByName.get(partitionName);
        if (part == null) {
            return Feasibility.never(PendingReason.PARTITION_CONFIG, "invalid partition name: " + partitionName);
        }
        if (part.maxTime() > 0 && job.timeLimitSeconds() > part.maxTime()) {
            return Feasibility.never(PendingReason.PARTITION_TIME_LIMIT, "time limit " + job.timeLimitSeconds()
                    + " s is over partition " + part.name() + "'s maximum of " + part.maxTime() + " s");
        }
        Shape s = Shape.of(job.request(), part, c);
        Feasibility f = Feasibilities.check(c, s);
        if (f.fits() && job.request().sharesGpus()) {
            f = SharedGpus.check(c, s, job.request());
        }
        if (!f.fits()) {
            return f;
        }
        Tres tres = new Tres(Math.multiplyExact((long) s.tasks(), s.cpusPerTask()),
                Math.multiplyExact(s.memPerNode(), s.nodes()), s.totalGpus(), s.nodes());
        for (Qos qos : heldTo) {
            Feasibility within = perJob(qos, job, tres);
            if (!within.fits()) {
                return within;
            }
        }
        return Feasibility.FITS;
    }

    private static Feasibility perJob(Qos qos, PendingJob job, Tres tres) {
        PendingReason limit = Limits.perJob(qos, job.timeLimitSeconds(), tres);
        if (limit == PendingReason.QOS_MIN_CPU || limit == PendingReason.QOS_MIN_NODE
                || limit == PendingReason.QOS_MIN_GRES) {
            return Feasibility.never(limit, "QOS " + qos.name() + " requires each job to ask at least "
                    + qos.minTresPerJob() + " (MinTRESPerJob, " + limit + "); this one asks " + tres);
        }
        if (limit != null) {
            return Feasibility.never(limit, "QOS " + qos.name() + " does not allow " + tres + " for "
                    + job.timeLimitSeconds() + " s in one job");
        }
        return Feasibility.FITS;
    }

    /**
     * Each account's guaranteed, in use, borrowed, lent and pending GPUs in {@code snapshot} (issue
     * 16), as the engine counts them when it plans (with no guarantee anywhere: nothing borrowed or lent).
     */
    public java.util.List<QuotaUse> quotaUse(Snapshot snapshot) {
        QuotaBook book = new QuotaBook(snapshot.quotas(), snapshot.nodes(), snapshot.running(), snapshot.pending(),
                snapshot.now(), true);
        return book.report(snapshot.running(), snapshot.pending());
    }

    private Cluster clusterOf(Snapshot s) {
        Cluster c = cluster;
        if (c == null || !c.sameInput(s.nodes(), s.partitions(), s.switches())) {
            c = new Cluster(s.nodes(), s.partitions(), s.switches());
            cluster = c;
        }
        return c;
    }
}
