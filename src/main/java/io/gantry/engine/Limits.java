package io.gantry.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * QOS and association limits against what running jobs (and jobs started this cycle) hold.
 * Usage is derived from the snapshot's running jobs, so it cannot disagree with them. QOS limits
 * are checked first, then the association limits up the account tree ({@link AssocTree}); a check of
 * another kind (e.g. budgets) adds its own step to {@link #check} and {@link #charge}, walking the
 * same precomputed chain ({@link #chain}).
 *
 * <p>A job in a partition with a partition QOS is held to both QOSes ({@link #heldTo}), as Slurm's
 * acct_policy does: the partition QOS first and the job's QOS for the limits the partition QOS leaves
 * unset, or the other way round when the job's QOS has OverPartQOS. Each limit is counted against the
 * usage of the QOS that sets it: a running job counts in its own QOS and in its partition's QOS.
 */
final class Limits {

    private static final Qos[] NONE = new Qos[0];

    private final Map<String, Qos> qos = new HashMap<>();
    private final Map<String, String> partitionQos = new HashMap<>();
    private final Map<Pair, Qos[]> heldTo = new HashMap<>();
    private final AssocTree tree;
    private final Map<Key, Usage> usage = new HashMap<>();

    /**
     * Usage and association keys; a record, so no strings are concatenated per job. Its equals and hashCode are
     * written out: every job of a pass looks up several keys, and a record's generated ones go through a method
     * handle each time.
     */
    private record Key(int kind, String a, String b) {

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && kind == k.kind && java.util.Objects.equals(a, k.a)
                    && java.util.Objects.equals(b, k.b);
        }

        @Override
        public int hashCode() {
            return (31 * kind + (a == null ? 0 : a.hashCode())) * 31 + (b == null ? 0 : b.hashCode());
        }
    }

    /** A job's QOS and its partition's QOS. */
    private record Pair(String qos, String partitionQos) {
    }

    private static final class Usage {
        int jobs;
        Tres tres = Tres.ZERO;
    }

    Limits(List<Qos> qosList, List<Association> associations, List<Partition> partitions) {
        for (Qos q : qosList) {
            qos.put(q.name(), q);
        }
        for (Partition p : partitions) {
            if (p.qos() != null) {
                partitionQos.put(p.name(), p.qos());
            }
        }
        tree = new AssocTree(associations);
    }

    /** Whether some partition has a partition QOS: without one, a job's limits do not depend on its partition. */
    boolean byPartition() {
        return !partitionQos.isEmpty();
    }

    /**
     * The QOSes a job of QOS {@code qosName} in {@code partition} is held to, in the order they are checked,
     * the second without the limits the first sets; empty when none is known.
     */
    Qos[] heldTo(String qosName, String partition) {
        Qos own = qos(qosName);
        Qos part = partition == null ? null : qos(partitionQos.get(partition));
        if (part == null || part == own) {
            return own == null ? NONE : new Qos[] {own};
        }
        if (own == null) {
            return new Qos[] {part};
        }
        return heldTo.computeIfAbsent(new Pair(own.name(), part.name()), k -> heldTo(own, part));
    }

    /**
     * A job's QOS {@code own} and its partition's QOS {@code part} (either null for none) in the order their
     * limits are checked: the partition QOS's first unless {@code own} has OverPartQOS; the second without
     * the limits the first sets (Slurm: where both set a limit, the first's wins).
     */
    static Qos[] heldTo(Qos own, Qos part) {
        return Qos.heldTo(own, part).toArray(NONE);
    }

    /** The associations a job of {@code user} in {@code account} counts at, own first; null when none. */
    AssocTree.Chain chain(String account, String user) {
        return tree.chain(account, user);
    }

    Qos qos(String name) {
        return name == null ? null : qos.get(name);
    }

    int maxQosPriority() {
        int max = 0;
        for (Qos q : qos.values()) {
            max = Math.max(max, q.priority());
        }
        return max;
    }

    double fairShare(String account, String user) {
        Association a = tree.association(account, user);
        return a == null ? 1.0 : a.fairShare();
    }

    /** A job of {@code qosName} in {@code partition} holds {@code tres}: it counts in its QOS and its partition's. */
    void charge(String user, String account, String qosName, String partition, Tres tres) {
        chargeQos(user, account, qosName, tres);
        String part = partition == null ? null : partitionQos.get(partition);
        if (part != null && !part.equals(qosName)) {
            chargeQos(user, account, part, tres);
        }
        tree.charge(tree.chain(account, user), tres);
    }

    private void chargeQos(String user, String account, String qosName, Tres tres) {
        for (Key key : keys(user, account, qosName)) {
            Usage u = usage.computeIfAbsent(key, k -> new Usage());
            u.jobs++;
            u.tres = u.tres.plus(tres);
        }
    }

    /** The per-job limits of every QOS the job is held to in {@code partition} ({@link #perJob(Qos, long, Tres)}). */
    PendingReason perJob(String qosName, String partition, long timeLimit, Tres tres) {
        for (Qos q : heldTo(qosName, partition)) {
            PendingReason r = perJob(q, timeLimit, tres);
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    /** Limits a single job breaks whatever else runs (a QOS's minimums too); null when none. */
    static PendingReason perJob(Qos q, long timeLimit, Tres tres) {
        if (q == null) {
            return null;
        }
        if (q.maxWallSeconds() > 0 && timeLimit > q.maxWallSeconds()) {
            return PendingReason.QOS_MAX_WALL_DURATION_PER_JOB_LIMIT;
        }
        Tres min = q.minTresPerJob();
        if (tres.cpu() < min.cpu()) {
            return PendingReason.QOS_MIN_CPU;
        }
        if (tres.nodes() < min.nodes()) {
            return PendingReason.QOS_MIN_NODE;
        }
        if (tres.gpus() < min.gpus()) {
            return PendingReason.QOS_MIN_GRES;
        }
        Tres max = q.maxTresPerJob();
        if (tres.gpus() > max.gpus()) {
            return PendingReason.QOS_MAX_GRES_PER_JOB;
        }
        if (tres.cpu() > max.cpu()) {
            return PendingReason.QOS_MAX_CPU_PER_JOB_LIMIT;
        }
        if (tres.nodes() > max.nodes()) {
            return PendingReason.QOS_MAX_NODE_PER_JOB_LIMIT;
        }
        return null;
    }

    /**
     * The first limit starting this job now in {@code partition} with a time limit of {@code timeLimit}
     * would break (the limits of the QOSes it is held to there, then the association limits of the highest
     * level of the tree it breaks), or null.
     */
    PendingReason check(PendingJob job, String partition, long timeLimit, Tres tres, Tres perNode) {
        return check(job, chain(job.account(), job.user()), partition, timeLimit, tres, perNode);
    }

    /** {@link #check(PendingJob, String, long, Tres, Tres)} for a job whose chain ({@link #chain}) is known. */
    PendingReason check(PendingJob job, AssocTree.Chain chain, String partition, long timeLimit, Tres tres,
            Tres perNode) {
        for (Qos q : heldTo(job.qos(), partition)) {
            PendingReason r = check(q, job.user(), job.account(), tres);
            if (r != null) {
                return r;
            }
        }
        return tree.check(chain, timeLimit, tres, perNode);
    }

    /** QOS {@code q}'s limits on what runs under it against its usage, were a job of {@code user} to add {@code tres}. */
    private PendingReason check(Qos q, String user, String account, Tres tres) {
        if (!limitsUsage(q)) {
            // Nothing to compare the usage with: no lookups (three per job and QOS, most QOSes set none).
            return null;
        }
        Usage uq = usage.get(qosUserKey(q.name(), user));
        int jobs = uq == null ? 0 : uq.jobs;
        Tres held = uq == null ? Tres.ZERO : uq.tres;
        if (q.maxJobsPerUser() > 0 && jobs >= q.maxJobsPerUser()) {
            return PendingReason.QOS_MAX_JOBS_PER_USER_LIMIT;
        }
        Tres after = held.plus(tres);
        if (after.gpus() > q.maxTresPerUser().gpus()) {
            return PendingReason.QOS_MAX_GRES_PER_USER;
        }
        if (after.cpu() > q.maxTresPerUser().cpu()) {
            return PendingReason.QOS_MAX_CPU_PER_USER_LIMIT;
        }
        PendingReason perAccount = perAccount(q, usage.get(qosAccountKey(q.name(), account)), tres);
        if (perAccount != null) {
            return perAccount;
        }
        Usage g = usage.get(qosKey(q.name()));
        Tres grp = (g == null ? Tres.ZERO : g.tres).plus(tres);
        if (grp.gpus() > q.grpTres().gpus()) {
            return PendingReason.QOS_GRP_GRES;
        }
        if (grp.cpu() > q.grpTres().cpu()) {
            return PendingReason.QOS_GRP_CPU_LIMIT;
        }
        return null;
    }

    /** Whether {@code q} sets a limit {@link #check(Qos, String, String, Tres)} compares usage with. */
    private static boolean limitsUsage(Qos q) {
        return q.maxJobsPerUser() > 0 || q.maxJobsPerAccount() > 0 || q.maxTresPerUser().gpus() != Long.MAX_VALUE
                || q.maxTresPerUser().cpu() != Long.MAX_VALUE || q.maxTresPerAccount().gpus() != Long.MAX_VALUE
                || q.maxTresPerAccount().cpu() != Long.MAX_VALUE || q.maxTresPerAccount().nodes() != Long.MAX_VALUE
                || q.grpTres().gpus() != Long.MAX_VALUE || q.grpTres().cpu() != Long.MAX_VALUE;
    }

    /** The QOS's MaxJobsPerAccount and MaxTRESPerAccount against what the account's jobs under it hold. */
    private static PendingReason perAccount(Qos q, Usage held, Tres tres) {
        if (q.maxJobsPerAccount() > 0 && held != null && held.jobs >= q.maxJobsPerAccount()) {
            return PendingReason.QOS_MAX_JOBS_PER_ACCOUNT;
        }
        Tres after = (held == null ? Tres.ZERO : held.tres).plus(tres);
        if (after.gpus() > q.maxTresPerAccount().gpus()) {
            return PendingReason.QOS_MAX_GRES_PER_ACCOUNT;
        }
        if (after.cpu() > q.maxTresPerAccount().cpu()) {
            return PendingReason.QOS_MAX_CPU_PER_ACCOUNT;
        }
        if (after.nodes() > q.maxTresPerAccount().nodes()) {
            return PendingReason.QOS_MAX_NODE_PER_ACCOUNT;
        }
        return null;
    }

    private static Key[] keys(String user, String account, String qosName) {
        return new Key[] {qosUserKey(qosName, user), qosKey(qosName), qosAccountKey(qosName, account)};
    }

    private static Key qosAccountKey(String qosName, String account) {
        return new Key(2, qosName, account);
    }

    private static Key qosUserKey(String qosName, String user) {
        return new Key(0, qosName, user);
    }

    private static Key qosKey(String qosName) {
        return new Key(1, qosName, null);
    }
}
