package io.gantry.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The TRES-minutes budgets of one queue pass, as Slurm's accounting policy checks them with
 * {@code AccountingStorageEnforce=safe}: a job starts only if it can run to its time limit within
 * every budget above it. For each budget it counts what was used (accrued, plus what running jobs
 * used since) and what running jobs (and jobs started this pass) may still use until their limits
 * (Slurm's TRESRunMins). A job pends when, for some TRES, its own TRES x time limit on top of those
 * overruns a {@code GrpTRESMins}, or on top of the running jobs' overruns a {@code GrpTRESRunMins},
 * or alone overruns a {@code MaxTRESMinsPerJob}: the job's QOS first, then its user's association,
 * its account and every account above it (Slurm's order). All sums are exact TRES-seconds.
 *
 * <p>{@code GrpWall} is counted the same way, as a resource after the TRES (billing included) of which every job holds one: its
 * wall-clock seconds (times its QOS's usage factor, as Slurm's {@code grp_used_wall}). A job pends
 * ({@code QOSGrpWallLimit}, {@code AssocGrpWallLimit}) when its time limit on top of what was used and what
 * running jobs may still run would overrun it, checked after the budget's TRES-minutes, as Slurm orders
 * them. So no set of running jobs ever runs past a {@code GrpWall} and none need be killed for it.
 */
final class BudgetBook {

    private static final int ACCOUNT_DEPTH = 256;
    /** cpu, mem, node, GRES, billing. */
    private static final int N = 5;

    private static final PendingReason[] QOS_GRP = { PendingReason.QOS_GRP_CPU_MINUTES_LIMIT,
        PendingReason.QOS_GRP_MEMORY_MINUTES, PendingReason.QOS_GRP_NODE_MINUTES, PendingReason.QOS_GRP_GRES_MINUTES,
        PendingReason.QOS_GRP_BILLING_MINUTES };
    private static final PendingReason[] QOS_RUN = { PendingReason.QOS_GRP_CPU_RUN_MINUTES_LIMIT,
        PendingReason.QOS_GRP_MEMORY_RUN_MINUTES, PendingReason.QOS_GRP_NODE_RUN_MINUTES,
        PendingReason.QOS_GRP_GRES_RUN_MINUTES, PendingReason.QOS_GRP_BILLING_RUN_MINUTES };
    private static final PendingReason[] QOS_MAX = { PendingReason.QOS_MAX_CPU_MINUTES_PER_JOB_LIMIT,
        PendingReason.QOS_MAX_MEMORY_MINUTES_PER_JOB, PendingReason.QOS_MAX_NODE_MINUTES_PER_JOB,
        PendingReason.QOS_MAX_GRES_MINUTES_PER_JOB, PendingReason.QOS_MAX_BILLING_MINUTES_PER_JOB };
    private static final PendingReason[] ASSOC_GRP = { PendingReason.ASSOC_GRP_CPU_MINUTES_LIMIT,
        PendingReason.ASSOC_GRP_MEM_MINUTES, PendingReason.ASSOC_GRP_NODE_MINUTES, PendingReason.ASSOC_GRP_GRES_MINUTES,
        PendingReason.ASSOC_GRP_BILLING_MINUTES };
    private static final PendingReason[] ASSOC_RUN = { PendingReason.ASSOC_GRP_CPU_RUN_MINUTES_LIMIT,
        PendingReason.ASSOC_GRP_MEM_RUN_MINUTES, PendingReason.ASSOC_GRP_NODE_RUN_MINUTES,
        PendingReason.ASSOC_GRP_GRES_RUN_MINUTES, PendingReason.ASSOC_GRP_BILLING_RUN_MINUTES };
    private static final PendingReason[] ASSOC_MAX = { PendingReason.ASSOC_MAX_CPU_MINUTES_PER_JOB_LIMIT,
        PendingReason.ASSOC_MAX_MEM_MINUTES_PER_JOB, PendingReason.ASSOC_MAX_NODE_MINUTES_PER_JOB,
        PendingReason.ASSOC_MAX_GRES_MINUTES_PER_JOB, PendingReason.ASSOC_MAX_BILLING_MINUTES_PER_JOB };

    /** The index of wall-clock seconds in the arrays of an {@link Entry}, after the five TRES. */
    private static final int WALL = N;

    private record Key(String qos, String account, String user) {
    }

    /**
     * One budget and what counts against it, in TRES-seconds indexed as {@link #fields}: cpu, mem, node,
     * GRES (GPUs), then billing, Slurm's order of checking; then wall-clock seconds ({@link #WALL}).
     */
    private static final class Entry {
        final long[] grp;
        final long[] run;
        final long[] max;
        final long[] used;
        final long[] running = new long[N + 1];

        Entry(Budget b) {
            grp = seconds(b.grpTresMins(), b.billing().grpMins());
            grp[WALL] = b.grpWallSeconds();
            run = seconds(b.grpTresRunMins(), b.billing().runMins());
            max = seconds(b.maxTresMinsPerJob(), b.billing().maxPerJobMins());
            used = fields(b.usedSeconds(), b.billing().usedSeconds());
            used[WALL] = b.usedWallSeconds();
        }
    }

    private final boolean active;
    private final Map<Key, Entry> entries = new HashMap<>();
    private final Map<String, String> parents;
    private final Map<String, Long> usageFactorMilli;
    private final Map<String, BillingWeights> billing = new HashMap<>();

    /** {@code partitions}: their TRESBillingWeights price what jobs hold in billing. */
    BudgetBook(Budgets budgets, List<RunningJob> running, long now, List<Partition> partitions) {
        this.active = budgets.active();
        partitions.forEach(p -> billing.put(p.name(), p.billing()));
        this.parents = budgets.parents();
        this.usageFactorMilli = budgets.usageFactorMilli();
        if (!active) {
            return;
        }
        for (Budget b : budgets.budgets()) {
            if (!b.unlimited()) {
                entries.put(new Key(b.qos(), b.account(), b.user()), new Entry(b));
            }
        }
        for (RunningJob r : running) {
            long factor = factor(r.qos());
            long[] tres = fields(r.tres(), r.partition());
            long since = Math.max(0, now - Math.max(r.startTime(), budgets.accruedAt()));
            long left = Math.max(0, r.expectedEnd() - now);
            for (Entry e : chain(r.account(), r.user(), r.qos())) {
                add(e.used, tres, since, factor);
                add(e.running, tres, left, factor);
            }
        }
    }

    boolean active() {
        return active;
    }

    /** The budget starting {@code job} (holding {@code tres} in {@code partition}) now would overrun, or null. */
    PendingReason check(PendingJob job, Tres tres, String partition) {
        if (!active) {
            return null;
        }
        long[] asked = scaled(fields(tres, partition), job.timeLimitSeconds(), factor(job.qos()));
        Entry q = job.qos() == null ? null : entries.get(new Key(job.qos(), null, null));
        if (q != null) {
            PendingReason r = grp(q, asked, QOS_GRP, QOS_RUN, PendingReason.QOS_GRP_WALL_LIMIT);
            if (r == null) {
                r = max(q.max, asked, QOS_MAX);
            }
            if (r != null) {
                return r;
            }
        }
        List<Entry> assocs = associations(job.account(), job.user());
        for (Entry e : assocs) {
            PendingReason r = grp(e, asked, ASSOC_GRP, ASSOC_RUN, PendingReason.ASSOC_GRP_WALL_LIMIT);
            if (r != null) {
                return r;
            }
        }
        // MaxTRESMinsPerJob: per TRES, the lowest association that sets it decides (Slurm's hierarchy).
        long[] max = new long[N];
        java.util.Arrays.fill(max, Long.MAX_VALUE);
        boolean[] set = new boolean[N];
        for (Entry e : assocs) {
            for (int i = 0; i < N; i++) {
                if (!set[i] && e.max[i] != Long.MAX_VALUE) {
                    max[i] = e.max[i];
                    set[i] = true;
                }
            }
        }
        return max(max, asked, ASSOC_MAX);
    }

    /** A job started this pass holds its TRES x time limit against its budgets until it ends. */
    void charge(String account, String user, String qos, Tres tres, String partition, long timeLimitSeconds) {
        if (!active) {
            return;
        }
        long[] held = fields(tres, partition);
        long factor = factor(qos);
        for (Entry e : chain(account, user, qos)) {
            add(e.running, held, timeLimitSeconds, factor);
        }
    }

    private static PendingReason grp(Entry e, long[] asked, PendingReason[] grp, PendingReason[] run,
            PendingReason wall) {
        for (int i = 0; i < N; i++) {
            if (e.grp[i] != Long.MAX_VALUE && sum(e.used[i], e.running[i], asked[i]) > e.grp[i]) {
                return grp[i];
            }
        }
        for (int i = 0; i < N; i++) {
            if (e.run[i] != Long.MAX_VALUE && sum(0, e.running[i], asked[i]) > e.run[i]) {
                return run[i];
            }
        }
        if (e.grp[WALL] != Long.MAX_VALUE && sum(e.used[WALL], e.running[WALL], asked[WALL]) > e.grp[WALL]) {
            return wall;
        }
        return null;
    }

    private static PendingReason max(long[] max, long[] asked, PendingReason[] reasons) {
        for (int i = 0; i < N; i++) {
            if (max[i] != Long.MAX_VALUE && asked[i] > max[i]) {
                return reasons[i];
            }
        }
        return null;
    }

    /** The budgets a job of this association and QOS counts against. */
    private List<Entry> chain(String account, String user, String qos) {
        List<Entry> out = associations(account, user);
        Entry q = qos == null ? null : entries.get(new Key(qos, null, null));
        if (q != null) {
            out.add(q);
        }
        return out;
    }

    /** The user's association, then its account and every account above it, those with a budget. */
    private List<Entry> associations(String account, String user) {
        List<Entry> out = new ArrayList<>();
        if (account == null) {
            return out;
        }
        Entry own = user == null ? null : entries.get(new Key(null, account, user));
        if (own != null) {
            out.add(own);
        }
        Set<String> seen = new HashSet<>();
        for (String a = account; a != null && seen.add(a) && seen.size() <= ACCOUNT_DEPTH; a = parents.get(a)) {
            Entry e = entries.get(new Key(null, a, null));
            if (e != null) {
                out.add(e);
            }
        }
        return out;
    }

    private long factor(String qos) {
        return qos == null ? 1000 : usageFactorMilli.getOrDefault(qos, 1000L);
    }

    /**
     * What a job holding {@code t} (billing {@code billing}) holds: its TRES, and itself, one job, for the
     * wall-clock time it runs.
     */
    private static long[] fields(Tres t, long billing) {
        return new long[] { t.cpu(), t.memoryMb(), t.nodes(), t.gpus(), billing, 1 };
    }

    /** What a job holds, with its billing as its partition's TRESBillingWeights price it (CPUs if unknown). */
    private long[] fields(Tres t, String partition) {
        BillingWeights w = partition == null ? null : billing.get(partition);
        return fields(t, (w == null ? BillingWeights.CPUS : w).units(t));
    }

    /**
     * A limit in TRES-minutes as TRES-seconds; an unlimited field (or one too big to count) stays unlimited,
     * and so does the wall-clock time unless set apart.
     */
    private static long[] seconds(Tres minutes, long billingMinutes) {
        long[] f = fields(minutes, billingMinutes);
        for (int i = 0; i < WALL; i++) {
            f[i] = f[i] >= Long.MAX_VALUE / 60 ? Long.MAX_VALUE : f[i] * 60;
        }
        f[WALL] = Long.MAX_VALUE;
        return f;
    }

    private static long[] scaled(long[] tres, long seconds, long factorMilli) {
        long[] out = new long[tres.length];
        add(out, tres, seconds, factorMilli);
        return out;
    }

    private static void add(long[] into, long[] tres, long seconds, long factorMilli) {
        for (int i = 0; i < into.length; i++) {
            into[i] = Math.addExact(into[i],
                    Math.multiplyExact(Math.multiplyExact(tres[i], seconds), factorMilli) / 1000);
        }
    }

    private static long sum(long a, long b, long c) {
        return Math.addExact(Math.addExact(a, b), c);
    }
}
