package io.gantry.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Association limits up the account tree, as Slurm enforces them "ascending the hierarchy": the
 * user's association, its account's, and each parent account's up to the root. Every association
 * is a node; each (account, user) has its chain of nodes (own first, root last) built once, with
 * the {@code Max} limits that apply to it resolved there (the nearest level that sets each), so a
 * check per job walks a few array entries and never builds a key or a string.
 *
 * <p>Usage is what the running jobs hold (and the jobs started this cycle, once charged), counted at
 * every node of their chain. A check reports the limit of the highest level (nearest the root) the
 * job would break: that limit holds the longest, whatever frees below it.
 */
final class AssocTree {

    /** The deepest a parent chain is followed; a longer one is taken as a loop and cut. */
    static final int MAX_DEPTH = 64;

    /** TRES fields in the order checked: GPUs (GRES), CPUs, memory, nodes. */
    private static final int GPU = 0;
    private static final int CPU = 1;
    private static final int MEM = 2;
    private static final int NODE = 3;

    private static final PendingReason[] GRP = {PendingReason.ASSOC_GRP_GRES, PendingReason.ASSOC_GRP_CPU_LIMIT,
        PendingReason.ASSOC_GRP_MEM_LIMIT, PendingReason.ASSOC_GRP_NODE_LIMIT};
    private static final PendingReason[] PER_JOB = {PendingReason.ASSOC_MAX_GRES_PER_JOB,
        PendingReason.ASSOC_MAX_CPU_PER_JOB_LIMIT, PendingReason.ASSOC_MAX_MEM_PER_JOB,
        PendingReason.ASSOC_MAX_NODE_PER_JOB_LIMIT};
    private static final PendingReason[] PER_NODE = {PendingReason.ASSOC_MAX_GRES_PER_NODE,
        PendingReason.ASSOC_MAX_CPU_PER_NODE, PendingReason.ASSOC_MAX_MEM_PER_NODE, null};

    private final Association[] nodes;
    /** Each node's GrpTRES by field (Long.MAX_VALUE: none) and GrpJobs (Integer.MAX_VALUE: none). */
    private final long[][] grpTres;
    private final int[] grpJobs;
    /** What the running jobs at and below each node hold, by field, and how many they are. */
    private final long[][] held;
    private final int[] jobs;
    private final Map<String, Chain> accountChains = new HashMap<>();
    private final Map<String, Map<String, Chain>> userChains = new HashMap<>();

    /**
     * The associations a job of one (account, user) is counted at, own first and root last, and the
     * {@code Max} limits that apply to it, each with the index in {@code levels} of the association
     * that sets it (-1: none does).
     */
    static final class Chain {
        final int[] levels;
        final int maxJobs;
        final int maxJobsAt;
        final long maxWall;
        final int maxWallAt;
        final long[] perJob = new long[4];
        final int[] perJobAt = new int[4];
        final long[] perNode = new long[4];
        final int[] perNodeAt = new int[4];

        Chain(int[] levels, Association[] nodes) {
            this.levels = levels;
            int jobsAt = -1;
            int wallAt = -1;
            java.util.Arrays.fill(perJobAt, -1);
            java.util.Arrays.fill(perNodeAt, -1);
            java.util.Arrays.fill(perJob, Long.MAX_VALUE);
            java.util.Arrays.fill(perNode, Long.MAX_VALUE);
            int mj = 0;
            long mw = 0;
            for (int i = 0; i < levels.length; i++) {
                AssocLimits l = nodes[levels[i]].limits();
                if (jobsAt < 0 && l.maxJobs() > 0) {
                    jobsAt = i;
                    mj = l.maxJobs();
                }
                if (wallAt < 0 && l.maxWallSeconds() > 0) {
                    wallAt = i;
                    mw = l.maxWallSeconds();
                }
                long[] pj = fields(l.maxTresPerJob());
                long[] pn = fields(l.maxTresPerNode());
                for (int f = 0; f < 4; f++) {
                    if (perJobAt[f] < 0 && pj[f] != Long.MAX_VALUE) {
                        perJobAt[f] = i;
                        perJob[f] = pj[f];
                    }
                    if (f != NODE && perNodeAt[f] < 0 && pn[f] != Long.MAX_VALUE) {
                        perNodeAt[f] = i;
                        perNode[f] = pn[f];
                    }
                }
            }
            this.maxJobs = mj;
            this.maxJobsAt = jobsAt;
            this.maxWall = mw;
            this.maxWallAt = wallAt;
        }

        /** The associations, own first and root last, as indices of the tree's nodes. */
        int[] levels() {
            return levels;
        }
    }

    AssocTree(List<Association> associations) {
        List<Association> list = new ArrayList<>(associations.size());
        Map<String, Integer> accountNode = new HashMap<>();
        for (Association a : associations) {
            if (a.user() == null) {
                if (accountNode.putIfAbsent(a.account(), list.size()) == null) {
                    list.add(a);
                }
            }
        }
        int accounts = list.size();
        for (Association a : associations) {
            if (a.user() != null) {
                list.add(a);
            }
        }
        nodes = list.toArray(Association[]::new);
        int n = nodes.length;
        int[] parent = new int[n];
        for (int i = 0; i < n; i++) {
            Association a = nodes[i];
            String up = a.user() == null ? a.parent() : a.account();
            Integer p = up == null ? null : accountNode.get(up);
            parent[i] = p == null || p == i ? -1 : p;
        }
        // A parent chain that loops (which the accounts API refuses) is cut where it would close.
        for (int i = 0; i < accounts; i++) {
            int steps = 0;
            for (int a = parent[i]; a >= 0; a = parent[a]) {
                if (a == i || ++steps > MAX_DEPTH) {
                    parent[i] = -1;
                    break;
                }
            }
        }
        grpTres = new long[n][];
        grpJobs = new int[n];
        held = new long[n][4];
        jobs = new int[n];
        for (int i = 0; i < n; i++) {
            AssocLimits l = nodes[i].limits();
            grpTres[i] = fields(l.grpTres());
            grpJobs[i] = l.grpJobs() > 0 ? l.grpJobs() : Integer.MAX_VALUE;
        }
        for (int i = 0; i < n; i++) {
            int depth = 0;
            for (int a = i; a >= 0 && depth <= MAX_DEPTH; a = parent[a]) {
                depth++;
            }
            int[] levels = new int[depth];
            int k = 0;
            for (int a = i; a >= 0 && k < depth; a = parent[a]) {
                levels[k++] = a;
            }
            Chain chain = new Chain(levels, nodes);
            Association a = nodes[i];
            if (a.user() == null) {
                accountChains.put(a.account(), chain);
            } else {
                userChains.computeIfAbsent(a.account(), x -> new HashMap<>()).putIfAbsent(a.user(), chain);
            }
        }
    }

    /** The association of {@code user} in {@code account}, else the account's own; null when neither exists. */
    Association association(String account, String user) {
        Chain c = chain(account, user);
        return c == null ? null : nodes[c.levels[0]];
    }

    /**
     * The chain a job of {@code user} in {@code account} counts at: from the user's association, or
     * from the account's when the user has none; null when the account has no association.
     */
    Chain chain(String account, String user) {
        Map<String, Chain> users = userChains.get(account);
        Chain c = users == null ? null : users.get(user);
        return c != null ? c : accountChains.get(account);
    }

    /** Counts a running (or just started) job holding {@code tres} at every level of its chain. */
    void charge(Chain chain, Tres tres) {
        if (chain == null) {
            return;
        }
        for (int node : chain.levels) {
            jobs[node]++;
            long[] h = held[node];
            h[GPU] = sat(h[GPU], tres.gpus());
            h[CPU] = sat(h[CPU], tres.cpu());
            h[MEM] = sat(h[MEM], tres.memoryMb());
            h[NODE] = sat(h[NODE], tres.nodes());
        }
    }

    /**
     * The limit of the highest level (nearest the root) that starting a job of {@code chain} now
     * would break: it asks for {@code tres} in all, at most {@code perNode} on one node, for
     * {@code timeLimit} seconds. Within a level: the per-job limits, then the job counts, then GrpTRES
     * (GPUs, CPUs, memory, nodes). Null when none is broken.
     */
    PendingReason check(Chain chain, long timeLimit, Tres tres, Tres perNode) {
        if (chain == null) {
            return null;
        }
        int[] levels = chain.levels;
        long[] ask = {tres.gpus(), tres.cpu(), tres.memoryMb(), tres.nodes()};
        for (int i = levels.length - 1; i >= 0; i--) {
            PendingReason r = checkLevel(chain, i, timeLimit, ask, perNode);
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    private PendingReason checkLevel(Chain chain, int i, long timeLimit, long[] ask, Tres perNode) {
        int node = chain.levels[i];
        if (chain.maxWallAt == i && timeLimit > chain.maxWall) {
            return PendingReason.ASSOC_MAX_WALL_DURATION_PER_JOB_LIMIT;
        }
        for (int f = 0; f < 4; f++) {
            if (chain.perJobAt[f] == i && ask[f] > chain.perJob[f]) {
                return PER_JOB[f];
            }
        }
        if (perNode != null) {
            long[] pn = {perNode.gpus(), perNode.cpu(), perNode.memoryMb()};
            for (int f = 0; f < 3; f++) {
                if (chain.perNodeAt[f] == i && pn[f] > chain.perNode[f]) {
                    return PER_NODE[f];
                }
            }
        }
        if (jobs[node] >= grpJobs[node]) {
            return PendingReason.ASSOC_GRP_JOBS_LIMIT;
        }
        if (chain.maxJobsAt == i && jobs[chain.levels[0]] >= chain.maxJobs) {
            return PendingReason.ASSOC_MAX_JOBS_LIMIT;
        }
        long[] h = held[node];
        long[] max = grpTres[node];
        for (int f = 0; f < 4; f++) {
            if (max[f] != Long.MAX_VALUE && sat(h[f], ask[f]) > max[f]) {
                return GRP[f];
            }
        }
        return null;
    }

    private static long[] fields(Tres t) {
        return new long[] {t.gpus(), t.cpu(), t.memoryMb(), t.nodes()};
    }

    private static long sat(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
