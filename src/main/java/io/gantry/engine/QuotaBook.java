package io.gantry.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Guarantees, borrowing and lending for one cycle (issue 16), at every level of the account tree,
 * as Kueue's hierarchical cohorts and KAI's hierarchical queues keep them. Every account has a
 * <em>region</em> per GPU key: its guarantee (a root's is the configured GPUs; an account without
 * one has none). Of a region, the part no child is guaranteed is the account's <em>pool</em>.
 * <p>
 * A job of account A is placed by walking up from A: at each account N on the way (A itself first)
 * it takes N's pool when it fits there, else it <em>borrows</em> idle guarantee of N's other
 * children (their region not used, not wanted by their own pending jobs, up to their
 * {@code maxLend} and what their own children may lend), when every account it leaves behind on the
 * way (A up to N's child) stays within its {@code maxBorrow}; else it goes beyond N's region to N's
 * parent. So a job uses its account's guarantee first, then idle guarantee inside its parent, then
 * the parent borrows from the parent's siblings, and so on up to the root. A job in a pool does not
 * borrow; one that borrows at N is marked borrowing, and counts against the {@code maxBorrow} of
 * every account below N on its path. Usage inside N's region counts against N's guarantee and each
 * ancestor's.
 * <p>
 * Jobs are placed in start order (oldest first), and places fill as prefixes: once a job went
 * beyond an account's pool (or region), later ones of the same key do too, so a job's place only
 * gets better as others end and borrowing never grows by itself. The last plan's borrowing jobs are
 * placed after the others, and the others never borrow: what an account borrows only shrinks between
 * starts, which are checked against the limits.
 */
final class QuotaBook {

    static final int WITHIN = 0;
    static final int FREE = 1;
    static final int BORROW = 2;
    /** For {@link #charge}: a running job the last plan said does not borrow. */
    private static final int KEPT = 3;

    private static final int POOL = 0;
    private static final int LENT = 1;
    private static final int NONE = 2;

    private final boolean active;
    private final QuotaAccounts accounts;
    private final GpuKeys gpus;
    private final String[] keys;
    private final long minRuntime;
    private final Set<JobId> stopping;

    /** Accounts by index (sorted by name), their parent's index (-1 for a root) and children. */
    private final String[] names;
    private final int[] parent;
    private final int[][] children;
    /** Per account, per key: its region, its pool, its limits. */
    private final long[][] region;
    private final long[][] pool;
    private final long[][] maxBorrow;
    private final long[][] maxLend;
    /** Per account, per key: used inside its region, used of its pool, borrowed at it, borrowed above it. */
    private final long[][] held;
    private final long[][] poolUsed;
    private final long[][] lentHere;
    private final long[][] borrowedAbove;
    /** Per account, per key: what its sub-tree's jobs hold, wherever they are placed. */
    private final long[][] used;
    /** Per account, per key: a job went beyond its pool, beyond its region (the prefix marks). */
    private final boolean[][] poolFull;
    private final boolean[][] regionFull;
    /** Per account, per key: its pending jobs' GPUs up to its idle region (not lent). */
    private final long[][] want;
    /** Per borrowing job, per key: the account it borrows at (-1 for a key it does not borrow). */
    private final Map<JobId, int[]> borrowLevel = new HashMap<>();
    /** {@link #mayLend} as of {@code version}, which every charge moves on. */
    private final long[][] lendCache;
    private final long[][] lendVersion;
    private long version = 1;
    private final Map<JobId, Map<String, String>> borrowedBefore;

    QuotaBook(QuotaTree quotas, List<Node> nodes, List<RunningJob> running, List<PendingJob> pending, long now) {
        this(quotas, nodes, running, pending, now, false);
    }

    /** With {@code forReport}, counts even when no account holds a guarantee (for {@link #report}). */
    QuotaBook(QuotaTree quotas, List<Node> nodes, List<RunningJob> running, List<PendingJob> pending, long now,
            boolean forReport) {
        this.active = quotas.active();
        this.minRuntime = quotas.minRuntimeSeconds();
        this.stopping = quotas.stopping();
        this.borrowedBefore = quotas.borrowedAt();
        boolean counting = active || forReport;
        this.gpus = new GpuKeys(quotas.accounts(), counting ? nodes : List.of());
        this.keys = gpus.keys();
        this.accounts = new QuotaAccounts(quotas.accounts(), counting);
        this.names = accounts.names();
        this.parent = accounts.parents();
        this.children = accounts.children();
        if (!counting) {
            region = pool = maxBorrow = maxLend = held = poolUsed = lentHere = new long[0][];
            borrowedAbove = used = want = new long[0][];
            poolFull = regionFull = new boolean[0][];
            lendCache = lendVersion = new long[0][];
            return;
        }
        int count = names.length;
        int kk = keys.length;
        region = new long[count][kk];
        pool = new long[count][kk];
        maxBorrow = new long[count][kk];
        maxLend = new long[count][kk];
        held = new long[count][kk];
        poolUsed = new long[count][kk];
        lentHere = new long[count][kk];
        borrowedAbove = new long[count][kk];
        used = new long[count][kk];
        lendCache = new long[count][kk];
        lendVersion = new long[count][kk];
        want = new long[count][kk];
        poolFull = new boolean[count][kk];
        regionFull = new boolean[count][kk];
        for (int i = 0; i < count; i++) {
            Quota q = accounts.quota(names[i]);
            for (int k = 0; k < kk; k++) {
                region[i][k] = parent[i] < 0 ? gpus.capacity(k) : q.guaranteed(keys[k]);
                maxBorrow[i][k] = q.maxBorrow(keys[k]);
                maxLend[i][k] = q.maxLend(keys[k]);
            }
        }
        for (int i = 0; i < count; i++) {
            for (int k = 0; k < kk; k++) {
                long given = 0;
                for (int c : children[i]) {
                    given = Math.addExact(given, region[c][k]);
                }
                pool[i][k] = Math.max(0, region[i][k] - given);
            }
        }

        List<RunningJob> byStart = new ArrayList<>(running);
        byStart.sort(Comparator.comparingLong(RunningJob::startTime).thenComparing(RunningJob::id));
        Set<JobId> marked = quotas.borrowing();
        for (RunningJob r : byStart) {
            if (marked == null || !marked.contains(r.id())) {
                long[] need = need(r.allocation());
                charge(r.id(), r.account(), need, marked == null ? BORROW : KEPT);
            }
        }
        long[][] demand = new long[count][kk];
        for (PendingJob p : pending) {
            if ((p.heldBy() != null && p.heldBy() != PendingReason.NONE) || p.eligibleFrom() > now) {
                continue;
            }
            long[] need = requested(p.request());
            for (int a : path(p.account())) {
                for (int k = 0; k < kk; k++) {
                    demand[a][k] += need[k];
                }
            }
        }
        // Jobs that borrowed last cycle borrow still, unless a pool or borrowing nearer their account now
        // has room for them: they never move up the tree, so what each account borrows and lends only
        // shrinks and stays within the limits. Those that borrowed deepest in the tree are placed first:
        // one that comes down from higher up takes only what the others there leave. Coming down is
        // borrowing too: it takes no guarantee its owner's pending jobs want (e.g. what a reclaim just
        // freed for them), else the owner would have to reclaim it again.
        if (marked != null) {
            for (int i = 0; i < count; i++) {
                for (int k = 0; k < kk; k++) {
                    want[i][k] = Math.min(demand[i][k], Math.max(0, region[i][k] - used[i][k]));
                }
            }
            version++;
            List<RunningJob> borrowers = new ArrayList<>();
            for (RunningJob r : byStart) {
                if (marked.contains(r.id())) {
                    borrowers.add(r);
                }
            }
            borrowers.sort(Comparator.comparingInt((RunningJob r) -> -borrowDepth(r.id())));
            for (RunningJob r : borrowers) {
                charge(r.id(), r.account(), need(r.allocation()), BORROW);
            }
        }
        for (int i = 0; i < count; i++) {
            for (int k = 0; k < kk; k++) {
                want[i][k] = Math.min(demand[i][k], Math.max(0, region[i][k] - used[i][k]));
            }
        }
        version++;
    }

    boolean active() {
        return active;
    }

    /** GPUs per key an allocation holds. */
    long[] need(List<NodeAllocation> allocation) {
        return gpus.need(allocation);
    }

    /** GPUs per key a request asks for before it is placed: typed keys only for the type it names. */
    long[] requested(Request r) {
        return gpus.requested(r);
    }

    /**
     * The nearest account at or above {@code account} that holds a guarantee, else its top-level
     * account: QOS preemption acts within it.
     */
    String member(String account) {
        return accounts.member(account);
    }

    private int[] path(String account) {
        return accounts.path(account);
    }

    /**
     * Where {@code n} GPUs of key {@code k} of a job with this path go: {POOL, account} in that
     * account's pool, {LENT, account} borrowed at that account, or {NONE, 0 or 1} nowhere (1 when a
     * {@code maxBorrow} refused some borrowing on the way).
     */
    private int[] place(int[] path, int k, long n) {
        return place(path, k, n, path.length - 1);
    }

    /** As {@link #place(int[], int, long)}, going no higher than {@code path[top]}. */
    private int[] place(int[] path, int k, long n, int top) {
        boolean limited = false;
        for (int i = 0; i <= top; i++) {
            int at = path[i];
            if (regionFull[at][k]) {
                continue;
            }
            if (!poolFull[at][k] && poolUsed[at][k] + n <= pool[at][k]) {
                return new int[] {POOL, at};
            }
            int from = i == 0 ? -1 : path[i - 1];
            if (lentHere[at][k] + n <= lendable(at, from, k)) {
                boolean within = true;
                for (int j = 0; j < i; j++) {
                    if (borrowedAbove[path[j]][k] + n > maxBorrow[path[j]][k]) {
                        within = false;
                        break;
                    }
                }
                if (within) {
                    return new int[] {LENT, at};
                }
                limited = true;
            }
        }
        return new int[] {NONE, limited ? 1 : 0};
    }

    /**
     * Where a running job that borrows and fits nowhere now (its lenders' own jobs grew) is counted as
     * borrowing: where it borrowed in the last plan, when known; else the highest account on its path
     * at which it stays within the {@code maxBorrow} of those it leaves behind and the {@code maxLend}
     * of the lenders there, so that every owner whose guarantee it may hold can reclaim it; its
     * parent when there is none.
     */
    private int overLevel(JobId id, int[] path, int k, long n) {
        Map<String, String> known = borrowedBefore.get(id);
        String was = known == null ? null : known.get(keys[k]);
        Integer wasAt = accounts.indexOf(was);
        if (was != null && contains(path, wasAt == null ? -1 : wasAt)) {
            return path[before(id, path, k)];
        }
        for (int i = path.length - 1; i >= 1; i--) {
            int at = path[i];
            boolean within = true;
            for (int j = 0; j < i && within; j++) {
                within = borrowedAbove[path[j]][k] + n <= maxBorrow[path[j]][k];
            }
            long may = 0;
            for (int c : children[at]) {
                if (c != path[i - 1]) {
                    may = sat(may, Math.min(region[c][k], maxLend[c][k]));
                }
            }
            if (within && lentHere[at][k] + n <= may) {
                return at;
            }
        }
        return path[Math.min(1, path.length - 1)];
    }

    /**
     * The index in {@code path} of the account a job borrowed at in the last plan, for key {@code k};
     * the path's top when not known.
     */
    private int before(JobId id, int[] path, int k) {
        Map<String, String> was = borrowedBefore.get(id);
        Integer at = was == null ? null : accounts.indexOf(was.get(keys[k]));
        for (int i = 0; at != null && i < path.length; i++) {
            if (path[i] == at) {
                return i;
            }
        }
        return path.length - 1;
    }

    /** How deep in the tree a job borrowed in the last plan (the highest over its keys); 0 when not known. */
    private int borrowDepth(JobId id) {
        Map<String, String> was = borrowedBefore.get(id);
        if (was == null || was.isEmpty()) {
            return 0;
        }
        int depth = Integer.MAX_VALUE;
        for (String account : was.values()) {
            Integer at = accounts.indexOf(account);
            depth = Math.min(depth, accounts.depth(at == null ? -1 : at));
        }
        return depth;
    }

    /** What the children of {@code at} but {@code borrower} may lend in all (before what they lent). */
    private long lendable(int at, int borrower, int k) {
        long sum = 0;
        for (int c : children[at]) {
            if (c != borrower) {
                sum = sat(sum, mayLend(c, k));
            }
        }
        return sum;
    }

    /**
     * What of account {@code c}'s region may leave it: idle (not used, not wanted by its pending jobs),
     * up to its {@code maxLend}, and no more than its idle pool and what its own children may lend.
     */
    private long mayLend(int c, int k) {
        // Asked for every account at every level of every job's walk, and changed only by charges.
        if (lendVersion[c][k] == version) {
            return lendCache[c][k];
        }
        long v = mayLendNow(c, k);
        lendCache[c][k] = v;
        lendVersion[c][k] = version;
        return v;
    }

    private long mayLendNow(int c, int k) {
        long idle = region[c][k] - held[c][k] - want[c][k];
        if (idle <= 0 || maxLend[c][k] <= 0) {
            return 0;
        }
        long inner = Math.max(0, pool[c][k] - poolUsed[c][k]);
        if (children[c].length > 0) {
            long fromKids = 0;
            for (int g : children[c]) {
                fromKids = sat(fromKids, mayLend(g, k));
            }
            inner = sat(inner, Math.max(0, fromKids - lentHere[c][k]));
        }
        return Math.min(idle, Math.min(maxLend[c][k], inner));
    }

    /**
     * Where GPUs {@code need} of a job of {@code account} would go now: WITHIN a guaranteed
     * account's pool, FREE (a root's pool, or an account the tree does not know) or BORROW (the worst
     * over the keys it needs; also when they fit nowhere, which {@link #refusal} then says).
     */
    int classify(String account, long[] need) {
        int[] path = path(account);
        if (path.length == 0) {
            return FREE;
        }
        int kind = WITHIN;
        for (int k = 0; k < keys.length; k++) {
            if (need[k] > 0) {
                int[] p = place(path, k, need[k]);
                kind = Math.max(kind, p[0] != POOL ? BORROW : parent[p[1]] < 0 ? FREE : WITHIN);
            }
        }
        return kind;
    }

    /** Null when a job of {@code account} may start holding {@code need}; else why not. */
    PendingReason refusal(String account, long[] need, int kind) {
        if (kind != BORROW) {
            return null;
        }
        int[] path = path(account);
        for (int k = 0; k < keys.length; k++) {
            if (need[k] > 0) {
                int[] p = place(path, k, need[k]);
                if (p[0] == NONE) {
                    return p[1] == 1 ? PendingReason.QUOTA_BORROW_LIMIT : PendingReason.QUOTA_NOTHING_TO_BORROW;
                }
            }
        }
        return null;
    }

    /**
     * Charges a job's GPUs where {@link #place} puts them; what fits nowhere (a running job that
     * borrows and that the limits no longer allow) is counted as borrowed where {@link #overLevel}
     * says. A running job the last plan said does not borrow goes to the first pool on its path
     * with room, else to the nearest one there is, over its size (jobs placed in another order than
     * the plan that started them may not fit where they did), marking no prefix.
     */
    void charge(JobId id, String account, long[] need, int kind) {
        int[] path = path(account);
        if (path.length == 0) {
            return;
        }
        int[] levels = null;
        for (int k = 0; k < keys.length; k++) {
            long n = need[k];
            if (n == 0) {
                continue;
            }
            for (int a : path) {
                used[a][k] += n;
            }
            if (kind == KEPT) {
                int at = -1;
                for (int a : path) {
                    if (poolUsed[a][k] + n <= pool[a][k]) {
                        at = a;
                        break;
                    }
                }
                for (int i = 0; i < path.length && at < 0; i++) {
                    if (pool[path[i]][k] > 0 || i == path.length - 1) {
                        at = path[i];
                    }
                }
                poolUsed[at][k] += n;
                hold(path, at, k, n);
                continue;
            }
            int[] p = place(path, k, n, before(id, path, k));
            int mode = p[0];
            int at = p[1];
            if (mode == NONE) {
                at = overLevel(id, path, k, n);
                mode = LENT;
            }
            for (int a : path) {
                if (a == at) {
                    break;
                }
                regionFull[a][k] = true;
                poolFull[a][k] = true;
                if (mode == LENT) {
                    borrowedAbove[a][k] += n;
                }
            }
            hold(path, at, k, n);
            if (mode == POOL) {
                poolUsed[at][k] += n;
            } else {
                poolFull[at][k] = true;
                lentHere[at][k] += n;
                if (levels == null) {
                    levels = new int[keys.length];
                    Arrays.fill(levels, -1);
                }
                levels[k] = at;
            }
        }
        if (levels != null) {
            borrowLevel.put(id, levels);
        }
        version++;
    }

    /** Counts {@code n} GPUs inside the region of {@code at} and of every account above it. */
    private void hold(int[] path, int at, int k, long n) {
        boolean above = false;
        for (int a : path) {
            above |= a == at;
            if (above) {
                held[a][k] += n;
            }
        }
    }

    boolean borrowing(JobId id) {
        return borrowLevel.containsKey(id);
    }

    Set<JobId> borrowingJobs() {
        return new HashSet<>(borrowLevel.keySet());
    }

    /** Per borrowing job, per key it borrows: the account it borrows at. */
    Map<JobId, Map<String, String>> borrowedAt() {
        Map<JobId, Map<String, String>> out = new HashMap<>();
        borrowLevel.forEach((id, levels) -> {
            Map<String, String> m = new HashMap<>();
            for (int k = 0; k < keys.length; k++) {
                if (levels[k] >= 0) {
                    m.put(keys[k], names[levels[k]]);
                }
            }
            out.put(id, m);
        });
        return out;
    }

    boolean stopping(JobId id) {
        return stopping.contains(id);
    }

    /**
     * Per key, the account whose guarantee a job of {@code account} asking {@code need} runs within:
     * the lowest one on its path (not a root) that holds a guarantee and whose sub-tree, with it,
     * uses no more than that; -1 for a key no account on its path is guaranteed. Null when it has none for some key
     * an account on its path is guaranteed, or no such key.
     */
    private int[] holders(String account, long[] need) {
        int[] path = path(account);
        if (path.length == 0) {
            return null;
        }
        int[] out = new int[keys.length];
        boolean any = false;
        for (int k = 0; k < keys.length; k++) {
            out[k] = -1;
            if (need[k] == 0) {
                continue;
            }
            boolean guaranteed = false;
            for (int a : path) {
                if (parent[a] < 0 || region[a][k] == 0) {
                    continue;
                }
                guaranteed = true;
                if (used[a][k] + need[k] <= region[a][k]) {
                    out[k] = a;
                    break;
                }
            }
            if (guaranteed && out[k] < 0) {
                return null;
            }
            any |= out[k] >= 0;
        }
        return any ? out : null;
    }

    /**
     * True when a job of {@code account} asking {@code need} (per key, as {@link #requested}) would run
     * within the guarantee of its account or of an ancestor, for some key one of them is guaranteed:
     * the jobs a reclaim serves.
     */
    boolean underGuarantee(String account, long[] need) {
        return holders(account, need) != null;
    }

    /**
     * A running job a reclaim for a job of {@code account} asking {@code asked} may stop: one that
     * borrows across the boundary of the account whose guarantee the job runs within (it borrows at
     * an ancestor of that account, and is not of that account's sub-tree).
     */
    boolean borrowsFrom(RunningJob r, String account, long[] asked) {
        int[] levels = borrowLevel.get(r.id());
        if (levels == null) {
            return false;
        }
        int[] holders = holders(account, asked);
        if (holders == null) {
            return false;
        }
        int[] theirs = path(r.account());
        for (int k = 0; k < keys.length; k++) {
            int x = holders[k];
            if (x < 0 || levels[k] < 0 || contains(theirs, x)) {
                continue;
            }
            for (int a = parent[x]; a >= 0; a = parent[a]) {
                if (a == levels[k]) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * For a job {@link #borrowsFrom} says a reclaim for a job of {@code account} asking {@code asked} may
     * stop: how many levels above the account whose guarantee that job runs within it borrows (1: at
     * that account's parent, i.e. on the guarantee of it or its siblings), the least over the keys;
     * {@link Integer#MAX_VALUE} when it does not borrow across that boundary. A job borrowing higher up
     * uses the guarantee of an ancestor's siblings: stopping it helps only once what is borrowed nearer
     * is back, so a reclaim stops the nearest borrowers first.
     */
    int borrowDistance(RunningJob r, String account, long[] asked) {
        int[] levels = borrowLevel.get(r.id());
        int[] holders = levels == null ? null : holders(account, asked);
        if (holders == null) {
            return Integer.MAX_VALUE;
        }
        int[] theirs = path(r.account());
        int best = Integer.MAX_VALUE;
        for (int k = 0; k < keys.length; k++) {
            int x = holders[k];
            if (x < 0 || levels[k] < 0 || contains(theirs, x)) {
                continue;
            }
            int d = 1;
            for (int a = parent[x]; a >= 0; a = parent[a], d++) {
                if (a == levels[k]) {
                    best = Math.min(best, d);
                    break;
                }
            }
        }
        return best;
    }

    private static boolean contains(int[] path, int a) {
        return QuotaAccounts.contains(path, a);
    }

    /** Whether it ran long enough ({@code gantry.quotas.min-runtime}) to be reclaimed at {@code now}. */
    boolean ranMinimum(RunningJob r, long now) {
        return now - r.startTime() >= minRuntime;
    }

    private static long sat(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** Per account and key, GPUs borrowed at it (from its children, by the others or its own jobs). */
    long borrowedAt(String account, String key) {
        Integer i = accounts.indexOf(account);
        int k = gpus.indexOf(key);
        return i == null || k < 0 ? 0 : lentHere[i][k];
    }

    /**
     * Each account's figures per key: guaranteed, in use (its own jobs and its sub-accounts'),
     * borrowed (what its sub-tree borrows beyond its region) and lent (its share of what is borrowed
     * at its parent, from its idle region up to its {@code maxLend}), pending demand.
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
        long[][] lent = new long[names.length][keys.length];
        for (int at = 0; at < names.length; at++) {
            for (int k = 0; k < keys.length; k++) {
                long left = lentHere[at][k];
                for (int c : children[at]) {
                    long idle = Math.max(0, region[c][k] - held[c][k]);
                    long give = Math.min(left, Math.min(idle, maxLend[c][k]));
                    lent[c][k] = give;
                    left -= give;
                }
            }
        }
        List<QuotaUse> out = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            String a = names[i];
            Quota q = accounts.quota(a);
            for (int k = 0; k < keys.length; k++) {
                long g = q.parent() == null && !q.guaranteed().containsKey(keys[k]) ? gpus.capacity(k)
                        : q.guaranteed(keys[k]);
                long used = inUse.getOrDefault(a, new long[keys.length])[k];
                long want = wanted.getOrDefault(a, new long[keys.length])[k];
                if (!keys[k].isEmpty() && g == 0 && used == 0 && want == 0) {
                    continue;
                }
                out.add(new QuotaUse(a, q.parent(), keys[k], g, used, borrowedAbove[i][k], lent[i][k], want));
            }
        }
        return out;
    }

    private List<String> upward(String account) {
        return accounts.upward(account);
    }
}
