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
 */
final class Limits {

    private final Map<String, Qos> qos = new HashMap<>();
    private final AssocTree tree;
    private final Map<Key, Usage> usage = new HashMap<>();

    /** Usage and association keys; a record, so no strings are concatenated per job. */
    private record Key(int kind, String a, String b) {
    }

    private static final class Usage {
        int jobs;
        Tres tres = Tres.ZERO;
    }

    Limits(List<Qos> qosList, List<Association> associations) {
        for (Qos q : qosList) {
            qos.put(q.name(), q);
        }
        tree = new AssocTree(associations);
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

    void charge(String user, String account, String qosName, Tres tres) {
        for (Key key : keys(user, account, qosName)) {
            Usage u = usage.computeIfAbsent(key, k -> new Usage());
            u.jobs++;
            u.tres = u.tres.plus(tres);
        }
        tree.charge(tree.chain(account, user), tres);
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

    /** The first limit starting this job now would break, or null; {@code perNode} null skips the per-node limits. */
    PendingReason check(PendingJob job, Tres tres, Tres perNode) {
        return check(job, job.timeLimitSeconds(), tres, perNode);
    }

    /**
     * The first limit starting this job now with a time limit of {@code timeLimit} would break (QOS
     * limits, then the association limits of the highest level of the tree it breaks), or null.
     */
    PendingReason check(PendingJob job, long timeLimit, Tres tres, Tres perNode) {
        Qos q = qos(job.qos());
        if (q != null) {
            Usage uq = usage.get(qosUserKey(job.qos(), job.user()));
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
            PendingReason perAccount = perAccount(q, usage.get(qosAccountKey(job.qos(), job.account())), tres);
            if (perAccount != null) {
                return perAccount;
            }
            Usage g = usage.get(qosKey(job.qos()));
            Tres grp = (g == null ? Tres.ZERO : g.tres).plus(tres);
            if (grp.gpus() > q.grpTres().gpus()) {
                return PendingReason.QOS_GRP_GRES;
            }
            if (grp.cpu() > q.grpTres().cpu()) {
                return PendingReason.QOS_GRP_CPU_LIMIT;
            }
        }
        return tree.check(tree.chain(job.account(), job.user()), timeLimit, tres, perNode);
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
