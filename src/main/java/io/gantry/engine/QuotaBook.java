package io.gantry.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Guarantees, borrowing and lending for one cycle (issue 16). A job counts against its account's
 * <em>member</em>: the nearest account at or above it that holds a guarantee (else its top-level
 * account); members with the same parent form a <em>cohort</em>. Jobs are placed in start order
 * (oldest first): within the member's guarantee when it still fits there, else in the cohort's
 * free pool (what the parent has that no child is guaranteed; the root has the configured GPUs),
 * else on borrowed guarantee. The classification is derived from the running jobs each cycle, so it
 * cannot drift from them: a borrowing job whose owner's jobs end becomes a guaranteed one.
 * Borrowing is refused beyond the member's {@code maxBorrow}, and beyond what the other members
 * can lend: their idle guarantee not wanted by their own pending jobs, up to their {@code maxLend}.
 */
final class QuotaBook {

    static final int WITHIN = 0;
    static final int FREE = 1;
    static final int BORROW = 2;
    private static final String TOP = "\u0000top";

    private final boolean active;
    private final Map<String, Quota> tree = new HashMap<>();
    private final Map<String, List<String>> children = new HashMap<>();
    private final Map<String, String> memberCache = new HashMap<>();
    private final Map<String, String> nodeTypes = new HashMap<>();
    private final String[] keys;
    private final long[] capacity;
    private final long minRuntime;
    private final Set<JobId> stopping;
    /** Per member, per key: {guaranteed use, free-pool use, borrowed, 1 once a job went beyond the guarantee}. */
    private final Map<String, long[][]> use = new HashMap<>();
    /** Per cohort: per key free-pool use, then per key 1 once a job went beyond the free pool; borrowed in all. */
    private final Map<String, long[]> freeUsed = new HashMap<>();
    private final Map<String, long[]> borrowedTotal = new HashMap<>();
    /** Per member, per key: GPUs its eligible pending jobs ask for, up to its idle guarantee. */
    private final Map<String, long[]> pendingWithin = new HashMap<>();
    /** Per member, per key: GPUs its eligible pending jobs ask for, all of them. */
    private final Map<String, long[]> pendingAll = new HashMap<>();
    private final Set<JobId> borrowing = new HashSet<>();

    QuotaBook(QuotaTree quotas, List<Node> nodes, List<RunningJob> running, List<PendingJob> pending, long now) {
        this(quotas, nodes, running, pending, now, false);
    }

    /** With {@code forReport}, counts even when no account holds a guarantee (for {@link #report}). */
    QuotaBook(QuotaTree quotas, List<Node> nodes, List<RunningJob> running, List<PendingJob> pending, long now,
            boolean forReport) {
        this.active = quotas.active();
        this.minRuntime = quotas.minRuntimeSeconds();
        this.stopping = quotas.stopping();
        java.util.TreeSet<String> keySet = new java.util.TreeSet<>();
        for (Quota q : quotas.accounts()) {
            tree.put(q.account(), q);
            if (q.parent() != null) {
                children.computeIfAbsent(q.parent(), k -> new ArrayList<>()).add(q.account());
            }
            q.guaranteed().forEach((k, v) -> {
                if (v > 0) {
                    keySet.add(k);
                }
            });
        }
        keySet.add(Quota.ANY);
        keys = keySet.toArray(String[]::new);
        capacity = new long[keys.length];
        if (!active && !forReport) {
            return;
        }
        for (Node n : nodes) {
            nodeTypes.put(n.name(), n.gpuType());
            for (int k = 0; k < keys.length; k++) {
                if (keys[k].isEmpty() || keys[k].equals(n.gpuType())) {
                    capacity[k] += n.gpus();
                }
            }
        }
        List<RunningJob> byStart = new ArrayList<>(running);
        byStart.sort(Comparator.comparingLong(RunningJob::startTime).thenComparing(RunningJob::id));
        Set<JobId> marked = quotas.borrowing();
        for (RunningJob r : byStart) {
            if (marked == null || !marked.contains(r.id())) {
                long[] need = need(r.allocation());
                charge(r.id(), r.account(), need, marked == null ? classify(r.account(), need) : FREE);
            }
        }
        // Jobs that borrowed last cycle borrow still, unless their account's guarantee or the free pool
        // now has room for them: borrowing is never recomputed upwards, so it stays within the limits.
        for (RunningJob r : byStart) {
            if (marked != null && marked.contains(r.id())) {
                long[] need = need(r.allocation());
                charge(r.id(), r.account(), need, classify(r.account(), need));
            }
        }
        for (PendingJob p : pending) {
            if ((p.heldBy() != null && p.heldBy() != PendingReason.NONE) || p.eligibleFrom() > now) {
                continue;
            }
            long[] need = requested(p.request());
            String m = member(p.account());
            long[] all = pendingAll.computeIfAbsent(m, x -> new long[keys.length]);
            for (int k = 0; k < keys.length; k++) {
                all[k] += need[k];
            }
        }
        pendingAll.forEach((m, all) -> {
            long[] within = new long[keys.length];
            long[][] u = uses(m);
            for (int k = 0; k < keys.length; k++) {
                within[k] = u[k][3] != 0 ? 0 : Math.min(all[k], Math.max(0, guarantee(m, k) - u[k][0]));
            }
            pendingWithin.put(m, within);
        });
    }

    boolean active() {
        return active;
    }

    /** GPUs per key an allocation holds. */
    long[] need(List<NodeAllocation> allocation) {
        long[] need = new long[keys.length];
        for (NodeAllocation a : allocation) {
            String type = nodeTypes.get(a.node());
            for (int k = 0; k < keys.length; k++) {
                if (keys[k].isEmpty() || keys[k].equals(type)) {
                    need[k] += a.gpus();
                }
            }
        }
        return need;
    }

    /** GPUs per key a request asks for before it is placed: typed keys only for the type it names. */
    long[] requested(Request r) {
        long gpus = r.gpusPerNode() > 0 ? (long) r.gpusPerNode() * Math.max(1, r.nodes()) : r.gpus();
        long[] need = new long[keys.length];
        for (int k = 0; k < keys.length; k++) {
            if (keys[k].isEmpty() || keys[k].equals(r.gpuType())) {
                need[k] = gpus;
            }
        }
        return need;
    }

    String member(String account) {
        String known = memberCache.get(account);
        if (known != null) {
            return known;
        }
        String top = account;
        String found = null;
        int depth = 0;
        for (String a = account; a != null && depth < 64; depth++) {
            Quota q = tree.get(a);
            if (q == null) {
                break;
            }
            if (hasGuarantee(q)) {
                found = a;
                break;
            }
            if (q.parent() != null) {
                top = a;
            }
            a = q.parent();
        }
        String m = found != null ? found : top;
        memberCache.put(account, m);
        return m;
    }

    String cohort(String member) {
        Quota q = tree.get(member);
        return q == null || q.parent() == null ? TOP : q.parent();
    }

    /**
     * Where GPUs {@code need} of a job of {@code account} would go now: WITHIN, FREE or BORROW (the
     * worst over the keys it needs). Buckets fill as prefixes in start order: once a job of a member
     * went beyond its guarantee, later ones do too, and once one went beyond the free pool, later
     * ones borrow. So a job's bucket only gets better as others end (borrowing never grows by
     * itself), and a member with a job beyond its guarantee uses more than its guarantee.
     */
    int classify(String account, long[] need) {
        String m = member(account);
        int kind = WITHIN;
        for (int k = 0; k < keys.length; k++) {
            if (need[k] > 0) {
                kind = Math.max(kind, classify(m, k, need[k]));
            }
        }
        return kind;
    }

    private int classify(String m, int k, long n) {
        long[][] u = uses(m);
        if (u[k][3] == 0 && u[k][0] + n <= guarantee(m, k)) {
            return WITHIN;
        }
        long[] fu = freeUsed.computeIfAbsent(cohort(m), x -> new long[keys.length * 2]);
        return fu[keys.length + k] == 0 && fu[k] + n <= freePool(cohort(m), k) ? FREE : BORROW;
    }

    /** Null when a job of {@code account} may start holding {@code need}; else why not. */
    PendingReason refusal(String account, long[] need, int kind) {
        if (kind != BORROW) {
            return null;
        }
        String m = member(account);
        String cohort = cohort(m);
        long[][] u = uses(m);
        long[] bt = borrowedTotal.computeIfAbsent(cohort, x -> new long[keys.length]);
        Quota own = tree.get(m);
        for (int k = 0; k < keys.length; k++) {
            if (need[k] == 0 || classify(m, k, need[k]) != BORROW) {
                continue;
            }
            long max = own == null ? Long.MAX_VALUE : own.maxBorrow(keys[k]);
            if (u[k][2] + need[k] > max) {
                return PendingReason.QUOTA_BORROW_LIMIT;
            }
            if (bt[k] + need[k] > lendable(cohort, m, k)) {
                return PendingReason.QUOTA_NOTHING_TO_BORROW;
            }
        }
        return null;
    }

    /**
     * Charges a job's GPUs: per key to its guarantee if they fit there, else to the free pool, else
     * as borrowed; {@code kind} FREE (a job known not to borrow) puts what does not fit the guarantee
     * in the free pool whether it fits there or not.
     */
    void charge(JobId id, String account, long[] need, int kind) {
        String m = member(account);
        long[][] u = uses(m);
        String cohort = cohort(m);
        long[] fu = freeUsed.computeIfAbsent(cohort, x -> new long[keys.length * 2]);
        long[] bt = borrowedTotal.computeIfAbsent(cohort, x -> new long[keys.length]);
        boolean borrows = false;
        for (int k = 0; k < keys.length; k++) {
            if (need[k] == 0) {
                continue;
            }
            int bucket = classify(m, k, need[k]);
            if (bucket == WITHIN) {
                u[k][0] += need[k];
                continue;
            }
            u[k][3] = 1;
            if (bucket == FREE || kind == FREE) {
                u[k][1] += need[k];
                fu[k] += need[k];
            } else {
                fu[keys.length + k] = 1;
                u[k][2] += need[k];
                bt[k] += need[k];
                borrows = true;
            }
        }
        if (borrows) {
            borrowing.add(id);
        }
    }

    boolean borrowing(JobId id) {
        return borrowing.contains(id);
    }

    Set<JobId> borrowingJobs() {
        return borrowing;
    }

    boolean stopping(JobId id) {
        return stopping.contains(id);
    }

    /**
     * True when a job of {@code account} asking {@code need} (per key, as {@link #requested}) would run
     * within its member's guarantee for some key the member is guaranteed: the jobs a reclaim serves.
     */
    boolean underGuarantee(String account, long[] need) {
        String m = member(account);
        long[][] u = uses(m);
        boolean any = false;
        for (int k = 0; k < keys.length; k++) {
            if (need[k] == 0 || guarantee(m, k) == 0) {
                continue;
            }
            if (u[k][3] != 0 || u[k][0] + need[k] > guarantee(m, k)) {
                return false;
            }
            any = true;
        }
        return any;
    }

    /** A running job a reclaim for a job of {@code account} may stop: borrowing, of another member of its cohort. */
    boolean borrowsFrom(RunningJob r, String account) {
        if (!borrowing.contains(r.id())) {
            return false;
        }
        String m = member(account);
        String theirs = member(r.account());
        return !theirs.equals(m) && cohort(theirs).equals(cohort(m));
    }

    /** Whether it ran long enough ({@code gantry.quotas.min-runtime}) to be reclaimed at {@code now}. */
    boolean ranMinimum(RunningJob r, long now) {
        return now - r.startTime() >= minRuntime;
    }

    private long lendable(String cohort, String borrower, int k) {
        long sum = 0;
        for (String c : children.getOrDefault(cohort.equals(TOP) ? null : cohort, List.of())) {
            if (c.equals(borrower)) {
                continue;
            }
            Quota q = tree.get(c);
            long g = q.guaranteed(keys[k]);
            if (g == 0) {
                continue;
            }
            long[][] u = uses(c);
            long[] want = pendingWithin.get(c);
            long idle = Math.max(0, g - u[k][0] - (want == null ? 0 : want[k]));
            sum = Math.addExact(sum, Math.min(idle, q.maxLend(keys[k])));
        }
        return sum;
    }

    private long freePool(String cohort, int k) {
        Quota parent = cohort.equals(TOP) ? null : tree.get(cohort);
        long base = parent == null || parent.parent() == null || !parent.guaranteed().containsKey(keys[k])
                ? capacity[k] : parent.guaranteed(keys[k]);
        long given = 0;
        for (String c : children.getOrDefault(cohort.equals(TOP) ? null : cohort, List.of())) {
            given += tree.get(c).guaranteed(keys[k]);
        }
        return Math.max(0, base - given);
    }

    private long guarantee(String member, int k) {
        Quota q = tree.get(member);
        return q == null ? 0 : q.guaranteed(keys[k]);
    }

    private long[][] uses(String member) {
        return use.computeIfAbsent(member, x -> new long[keys.length][4]);
    }

    private static boolean hasGuarantee(Quota q) {
        for (long v : q.guaranteed().values()) {
            if (v > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Each account's figures per key: guaranteed, in use (its own jobs and its sub-accounts'),
     * borrowed and lent (as members of their cohort), pending demand (GPUs its pending jobs ask for).
     */
    List<QuotaUse> report(List<RunningJob> running, List<PendingJob> pending) {
        Map<String, long[]> inUse = new HashMap<>();
        for (RunningJob r : running) {
            long[] n = need(r.allocation());
            for (String a : upward(r.account())) {
                long[] t = inUse.computeIfAbsent(a, x -> new long[keys.length]);
                for (int k = 0; k < keys.length; k++) {
                    t[k] += n[k];
                }
            }
        }
        Map<String, long[]> wanted = new HashMap<>();
        for (PendingJob p : pending) {
            if (p.heldBy() != null && p.heldBy() != PendingReason.NONE) {
                continue;
            }
            long[] n = requested(p.request());
            for (String a : upward(p.account())) {
                long[] t = wanted.computeIfAbsent(a, x -> new long[keys.length]);
                for (int k = 0; k < keys.length; k++) {
                    t[k] += n[k];
                }
            }
        }
        Map<String, long[]> lent = new HashMap<>();
        Map<String, List<String>> byCohort = new TreeMap<>();
        for (String a : tree.keySet()) {
            if (hasGuarantee(tree.get(a))) {
                byCohort.computeIfAbsent(cohort(a), x -> new ArrayList<>()).add(a);
            }
        }
        byCohort.forEach((cohort, members) -> {
            members.sort(null);
            long[] bt = borrowedTotal.getOrDefault(cohort, new long[keys.length]);
            for (int k = 0; k < keys.length; k++) {
                long left = bt[k];
                for (String c : members) {
                    Quota q = tree.get(c);
                    long idle = Math.max(0, q.guaranteed(keys[k]) - uses(c)[k][0]);
                    long give = Math.min(left, Math.min(idle, q.maxLend(keys[k])));
                    lent.computeIfAbsent(c, x -> new long[keys.length])[k] = give;
                    left -= give;
                }
            }
        });
        List<QuotaUse> out = new ArrayList<>();
        for (String a : new java.util.TreeSet<>(tree.keySet())) {
            Quota q = tree.get(a);
            boolean isMember = member(a).equals(a);
            for (int k = 0; k < keys.length; k++) {
                long g = q.parent() == null && !q.guaranteed().containsKey(keys[k]) ? capacity[k]
                        : q.guaranteed(keys[k]);
                long used = inUse.getOrDefault(a, new long[keys.length])[k];
                long want = wanted.getOrDefault(a, new long[keys.length])[k];
                if (!keys[k].isEmpty() && g == 0 && used == 0 && want == 0) {
                    continue;
                }
                long borrowed = isMember ? uses(a)[k][2] : 0;
                long lends = lent.getOrDefault(a, new long[keys.length])[k];
                out.add(new QuotaUse(a, q.parent(), keys[k], g, used, borrowed, lends, want));
            }
        }
        return out;
    }

    private List<String> upward(String account) {
        List<String> out = new ArrayList<>();
        for (String a = account; a != null && out.size() < 64; a = tree.containsKey(a) ? tree.get(a).parent() : null) {
            out.add(a);
        }
        return out;
    }
}
