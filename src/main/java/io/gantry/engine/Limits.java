package io.gantry.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * QOS and association limits against what running jobs (and jobs started this cycle) hold.
 * Usage is derived from the snapshot's running jobs, so it cannot disagree with them.
 */
final class Limits {

    private final Map<String, Qos> qos = new HashMap<>();
    private final Map<Key, Association> userAssocs = new HashMap<>();
    private final Map<String, Association> accountAssocs = new HashMap<>();
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
        for (Association a : associations) {
            if (a.user() == null) {
                accountAssocs.put(a.account(), a);
            } else {
                userAssocs.put(userKey(a.account(), a.user()), a);
            }
        }
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
        Association a = userAssocs.get(userKey(account, user));
        if (a == null) {
            a = accountAssocs.get(account);
        }
        return a == null ? 1.0 : a.fairShare();
    }

    void charge(String user, String account, String qosName, Tres tres) {
        for (Key key : keys(user, account, qosName)) {
            Usage u = usage.computeIfAbsent(key, k -> new Usage());
            u.jobs++;
            u.tres = u.tres.plus(tres);
        }
    }

    /** Limits a single job breaks whatever else runs; null when none. */
    static PendingReason perJob(Qos q, long timeLimit, Tres tres) {
        if (q == null) {
            return null;
        }
        if (q.maxWallSeconds() > 0 && timeLimit > q.maxWallSeconds()) {
            return PendingReason.QOS_MAX_WALL_DURATION_PER_JOB_LIMIT;
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

    /** The first limit starting this job now would break, or null. */
    PendingReason check(PendingJob job, Tres tres) {
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
            Usage g = usage.get(qosKey(job.qos()));
            Tres grp = (g == null ? Tres.ZERO : g.tres).plus(tres);
            if (grp.gpus() > q.grpTres().gpus()) {
                return PendingReason.QOS_GRP_GRES;
            }
            if (grp.cpu() > q.grpTres().cpu()) {
                return PendingReason.QOS_GRP_CPU_LIMIT;
            }
        }
        PendingReason r = assoc(userAssocs.get(userKey(job.account(), job.user())),
                usage.get(userKey(job.account(), job.user())), tres);
        if (r == null) {
            r = assoc(accountAssocs.get(job.account()), usage.get(accountKey(job.account())), tres);
        }
        return r;
    }

    private static PendingReason assoc(Association a, Usage u, Tres tres) {
        if (a == null) {
            return null;
        }
        int jobs = u == null ? 0 : u.jobs;
        if (a.maxJobs() > 0 && jobs >= a.maxJobs()) {
            return PendingReason.ASSOC_MAX_JOBS_LIMIT;
        }
        Tres after = (u == null ? Tres.ZERO : u.tres).plus(tres);
        Tres max = a.grpTres();
        if (after.gpus() > max.gpus()) {
            return PendingReason.ASSOC_GRP_GRES;
        }
        if (after.cpu() > max.cpu()) {
            return PendingReason.ASSOC_GRP_CPU_LIMIT;
        }
        if (after.memoryMb() > max.memoryMb()) {
            return PendingReason.ASSOC_GRP_MEM_LIMIT;
        }
        if (after.nodes() > max.nodes()) {
            return PendingReason.ASSOC_GRP_NODE_LIMIT;
        }
        return null;
    }

    private static Key[] keys(String user, String account, String qosName) {
        return new Key[] {qosUserKey(qosName, user), qosKey(qosName), userKey(account, user), accountKey(account)};
    }

    private static Key qosUserKey(String qosName, String user) {
        return new Key(0, qosName, user);
    }

    private static Key qosKey(String qosName) {
        return new Key(1, qosName, null);
    }

    private static Key userKey(String account, String user) {
        return new Key(2, account, user);
    }

    private static Key accountKey(String account) {
        return new Key(3, account, null);
    }
}
