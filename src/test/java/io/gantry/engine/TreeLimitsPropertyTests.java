package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * Association limits up the account tree (issue 32, "Done when" 1), over random account trees of
 * depth 1 to 4 with random limits at every level (accounts' and users' GrpJobs, GrpTRES,
 * MaxJobs, MaxTRESPerJob, MaxTRESPerNode, MaxWallDurationPerJob) and a few cycles each (plans
 * applied, jobs ending, jobs arriving): after every plan, the running jobs and the jobs it starts
 * break no limit at any level; and every job a limit blocks waits with the reason of the highest
 * level it breaks, by a model of Slurm's hierarchy written here apart from the engine's.
 */
class TreeLimitsPropertyTests {

    private static final int SEEDS = 400;
    private static final int CYCLES = 6;
    private static final int GPU = 0;
    private static final int CPU = 1;
    private static final int MEM = 2;
    private static final int NODE = 3;

    /** An association of the random tree, with its limits as numbers (Long.MAX_VALUE, 0 counts: none). */
    private record Assoc(String account, String user, Assoc parent, AssocLimits limits) {

        long[] grp() {
            return fields(limits.grpTres());
        }
    }

    @Test
    void no_running_set_exceeds_a_limit_at_any_level_and_a_blocked_job_names_the_highest_level_it_breaks() {
        int blockedChecked = 0;
        int highAbove = 0;
        for (long seed = 0; seed < SEEDS; seed++) {
            int[] counts = runSeed(seed);
            blockedChecked += counts[0];
            highAbove += counts[1];
        }
        // The runs must really exercise the limits, and above the user's own association.
        assertThat(blockedChecked).isGreaterThan(2000);
        assertThat(highAbove).isGreaterThan(500);
    }

    /** Runs one seed; answers how many blocked jobs were checked and how many of them broke a limit above their account. */
    private static int[] runSeed(long seed) {
        Random r = new Random(seed);
        List<Assoc> accounts = new ArrayList<>();
        List<Assoc> users = new ArrayList<>();
        int depth = 1 + r.nextInt(4);
        Assoc root = new Assoc("root", null, null, randomLimits(r, true));
        accounts.add(root);
        grow(r, root, 1, depth, accounts, users);

        List<Association> associations = new ArrayList<>();
        for (Assoc a : accounts) {
            associations.add(Association.ofAccount(a.account(), a.parent() == null ? null : a.parent().account(),
                    a.limits()));
        }
        for (Assoc u : users) {
            associations.add(new Association(u.account(), u.user(), null, 1.0, u.limits()));
        }

        int nodeCount = 3 + r.nextInt(6);
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(new Node("n" + i, 32, 256_000, 8, "h100", Set.of(), NodeState.UP, null, null));
        }
        Partition part = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 0, true);

        long now = 1_000_000;
        long nextId = 1;
        List<RunningJob> running = new ArrayList<>();
        List<PendingJob> pending = new ArrayList<>();
        Map<JobId, Assoc> owner = new HashMap<>();
        Engine engine = new Engine();
        int checked = 0;
        int above = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            int arriving = 3 + r.nextInt(15);
            for (int k = 0; k < arriving; k++) {
                Assoc u = users.get(r.nextInt(users.size()));
                JobId id = JobId.of(nextId++);
                int n = r.nextInt(5) == 0 ? 2 : 1;
                int tasks = n * (1 + r.nextInt(6));
                int gpn = r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(3);
                long mem = 1_000L * (1 + r.nextInt(40));
                Request req = Request.builder().nodes(n).tasks(tasks).cpusPerTask(1).memoryMb(mem).gpusPerNode(gpn)
                        .build();
                long limit = 600L * (1 + r.nextInt(12));
                pending.add(new PendingJob(id, u.user(), u.account(), "normal", List.of("p"), req, limit,
                        now - 50 + k, now - 50 + k, 0, null, 0));
                owner.put(id, u);
            }
            Snapshot s = new Snapshot(now, nodes, List.of(part), List.of(), running, pending, List.of(), associations,
                    Policy.easy());
            Plan plan = engine.plan(s);
            String where = "seed " + seed + " cycle " + cycle;

            // Reasons: each job against what runs and what the plan started before deciding it.
            Map<JobId, Start> started = new HashMap<>();
            plan.starts().forEach(st -> started.put(st.job(), st));
            Map<JobId, Waiting> waiting = new HashMap<>();
            plan.waiting().forEach(w -> waiting.put(w.job(), w));
            List<long[]> held = new ArrayList<>();
            List<Assoc> heldBy = new ArrayList<>();
            for (RunningJob rj : running) {
                held.add(fields(rj.tres()));
                heldBy.add(owner.get(rj.id()));
            }
            for (PendingJob job : decisionOrder(s, plan)) {
                Assoc u = owner.get(job.id());
                Hit expected = firstBroken(u, job, held, heldBy);
                Start st = started.get(job.id());
                if (expected != null) {
                    checked++;
                    if (expected.level > 1) {
                        above++;
                    }
                    assertThat(st).as("%s: job %s breaks %s at level %d but started", where, job.id(),
                            expected.reason, expected.level).isNull();
                    assertThat(waiting.get(job.id()).reason()).as("%s: job %s (%s/%s) waits with the reason of the "
                            + "highest level it breaks (level %d)", where, job.id(), u.account(), u.user(),
                            expected.level).isEqualTo(expected.reason);
                } else if (st == null) {
                    assertThat(waiting.get(job.id()).reason().slurmName()).as("%s: job %s breaks no limit", where,
                            job.id()).doesNotStartWith("Assoc");
                }
                if (st != null) {
                    held.add(fields(Tres.of(st.allocation())));
                    heldBy.add(u);
                }
            }

            // No limit broken by the jobs running once the plan is applied.
            List<RunningJob> after = new ArrayList<>(running);
            List<PendingJob> left = new ArrayList<>();
            for (PendingJob job : pending) {
                Start st = started.get(job.id());
                if (st == null) {
                    left.add(job);
                } else {
                    after.add(new RunningJob(job.id(), job.user(), job.account(), job.qos(), st.partition(),
                            st.allocation(), now, st.expectedEnd()));
                    checkPerJob(where, owner.get(job.id()), job, st);
                }
            }
            checkAggregates(where, accounts, users, after, owner);

            // Some jobs end; time passes.
            running = new ArrayList<>();
            for (RunningJob rj : after) {
                if (r.nextInt(3) != 0) {
                    running.add(rj);
                }
            }
            pending = left;
            now += 60;
        }
        return new int[] {checked, above};
    }

    private static void grow(Random r, Assoc account, int level, int depth, List<Assoc> accounts, List<Assoc> users) {
        boolean leaf = level >= depth || (level > 1 && r.nextInt(4) == 0);
        int userCount = leaf ? 1 + r.nextInt(3) : r.nextInt(2);
        for (int i = 0; i < userCount; i++) {
            // A user may be in several accounts, as in Slurm.
            String name = "u" + r.nextInt(5);
            if (users.stream().noneMatch(u -> u.account().equals(account.account()) && u.user().equals(name))) {
                users.add(new Assoc(account.account(), name, account, randomLimits(r, false)));
            }
        }
        if (leaf) {
            return;
        }
        int children = 1 + r.nextInt(3);
        for (int i = 0; i < children; i++) {
            Assoc child = new Assoc(account.account() + "." + i, null, account, randomLimits(r, true));
            accounts.add(child);
            grow(r, child, level + 1, depth, accounts, users);
        }
    }

    private static AssocLimits randomLimits(Random r, boolean account) {
        int grpJobs = r.nextInt(4) == 0 ? 1 + r.nextInt(6) : 0;
        Tres grp = new Tres(r.nextInt(6) == 0 ? 4 + r.nextInt(40) : Long.MAX_VALUE,
                r.nextInt(8) == 0 ? 20_000L * (1 + r.nextInt(8)) : Long.MAX_VALUE,
                r.nextInt(3) == 0 ? 1 + r.nextInt(12) : Long.MAX_VALUE,
                r.nextInt(8) == 0 ? 1 + r.nextInt(4) : Long.MAX_VALUE);
        int maxJobs = r.nextInt(5) == 0 ? 1 + r.nextInt(4) : 0;
        Tres perJob = new Tres(r.nextInt(8) == 0 ? 2 + r.nextInt(10) : Long.MAX_VALUE,
                r.nextInt(10) == 0 ? 10_000L * (1 + r.nextInt(4)) : Long.MAX_VALUE,
                r.nextInt(6) == 0 ? 1 + r.nextInt(4) : Long.MAX_VALUE,
                r.nextInt(10) == 0 ? 1 : Long.MAX_VALUE);
        Tres perNode = new Tres(r.nextInt(10) == 0 ? 2 + r.nextInt(6) : Long.MAX_VALUE,
                r.nextInt(10) == 0 ? 10_000L * (1 + r.nextInt(3)) : Long.MAX_VALUE,
                r.nextInt(8) == 0 ? 1 + r.nextInt(2) : Long.MAX_VALUE, Long.MAX_VALUE);
        long wall = r.nextInt(8) == 0 ? 600L * (1 + r.nextInt(10)) : 0;
        return new AssocLimits(grpJobs, grp, maxJobs, perJob, perNode, wall);
    }

    /** The user association, its account and each parent to the root. */
    private static List<Assoc> chain(Assoc u) {
        List<Assoc> out = new ArrayList<>();
        for (Assoc a = u; a != null; a = a.parent()) {
            out.add(a);
        }
        return out;
    }

    private record Hit(PendingReason reason, int level) {
    }

    /** A Max limit in effect for a user association: its value and the level (index in the chain) that sets it. */
    private record Effective(long value, int level) {
    }

    private static Effective effective(List<Assoc> chain, java.util.function.ToLongFunction<AssocLimits> get,
            long none) {
        for (int i = 0; i < chain.size(); i++) {
            long v = get.applyAsLong(chain.get(i).limits());
            if (v != none) {
                return new Effective(v, i);
            }
        }
        return new Effective(none, -1);
    }

    /**
     * The model: the highest level of the chain whose limits the job breaks given what {@code held}
     * (by {@code heldBy}) holds, and the first broken limit there in the documented order (per-job
     * limits, GrpJobs, MaxJobs, GrpTRES); null when none.
     */
    private static Hit firstBroken(Assoc u, PendingJob job, List<long[]> held, List<Assoc> heldBy) {
        List<Assoc> chain = chain(u);
        long[] ask = ask(job);
        long[] perNode = {ask[GPU] / ask[NODE], ceilDiv(ask[CPU], ask[NODE]), ask[MEM] / ask[NODE]};
        Effective wall = effective(chain, AssocLimits::maxWallSeconds, 0);
        Effective maxJobs = effective(chain, AssocLimits::maxJobs, 0);
        Effective[] pj = new Effective[4];
        Effective[] pn = new Effective[3];
        for (int f = 0; f < 4; f++) {
            int field = f;
            pj[f] = effective(chain, l -> fields(l.maxTresPerJob())[field], Long.MAX_VALUE);
            if (f < 3) {
                pn[f] = effective(chain, l -> fields(l.maxTresPerNode())[field], Long.MAX_VALUE);
            }
        }
        PendingReason[] perJobReasons = {PendingReason.ASSOC_MAX_GRES_PER_JOB, PendingReason.ASSOC_MAX_CPU_PER_JOB_LIMIT,
            PendingReason.ASSOC_MAX_MEM_PER_JOB, PendingReason.ASSOC_MAX_NODE_PER_JOB_LIMIT};
        PendingReason[] perNodeReasons = {PendingReason.ASSOC_MAX_GRES_PER_NODE, PendingReason.ASSOC_MAX_CPU_PER_NODE,
            PendingReason.ASSOC_MAX_MEM_PER_NODE};
        PendingReason[] grpReasons = {PendingReason.ASSOC_GRP_GRES, PendingReason.ASSOC_GRP_CPU_LIMIT,
            PendingReason.ASSOC_GRP_MEM_LIMIT, PendingReason.ASSOC_GRP_NODE_LIMIT};
        for (int level = chain.size() - 1; level >= 0; level--) {
            Assoc a = chain.get(level);
            if (wall.level() == level && job.timeLimitSeconds() > wall.value()) {
                return new Hit(PendingReason.ASSOC_MAX_WALL_DURATION_PER_JOB_LIMIT, level);
            }
            for (int f = 0; f < 4; f++) {
                if (pj[f].level() == level && ask[f] > pj[f].value()) {
                    return new Hit(perJobReasons[f], level);
                }
            }
            for (int f = 0; f < 3; f++) {
                if (pn[f].level() == level && perNode[f] > pn[f].value()) {
                    return new Hit(perNodeReasons[f], level);
                }
            }
            long jobsBelow = 0;
            long jobsOwn = 0;
            long[] sum = new long[4];
            for (int k = 0; k < held.size(); k++) {
                if (chain(heldBy.get(k)).contains(a)) {
                    jobsBelow++;
                    for (int f = 0; f < 4; f++) {
                        sum[f] += held.get(k)[f];
                    }
                }
                if (heldBy.get(k).equals(u)) {
                    jobsOwn++;
                }
            }
            if (a.limits().grpJobs() > 0 && jobsBelow >= a.limits().grpJobs()) {
                return new Hit(PendingReason.ASSOC_GRP_JOBS_LIMIT, level);
            }
            if (maxJobs.level() == level && jobsOwn >= maxJobs.value()) {
                return new Hit(PendingReason.ASSOC_MAX_JOBS_LIMIT, level);
            }
            long[] grp = a.grp();
            for (int f = 0; f < 4; f++) {
                if (grp[f] != Long.MAX_VALUE && sum[f] + ask[f] > grp[f]) {
                    return new Hit(grpReasons[f], level);
                }
            }
        }
        return null;
    }

    /** Every started job within the per-job limits in effect for its association. */
    private static void checkPerJob(String where, Assoc u, PendingJob job, Start st) {
        List<Assoc> chain = chain(u);
        long[] got = fields(Tres.of(st.allocation()));
        long wall = effective(chain, AssocLimits::maxWallSeconds, 0).value();
        assertThat(wall == 0 || st.expectedEnd() - st.startTime() <= wall).as("%s: job %s within MaxWall", where,
                job.id()).isTrue();
        for (int f = 0; f < 4; f++) {
            int field = f;
            long max = effective(chain, l -> fields(l.maxTresPerJob())[field], Long.MAX_VALUE).value();
            assertThat(got[f]).as("%s: job %s field %d within MaxTRESPerJob", where, job.id(), f).isLessThanOrEqualTo(max);
        }
        for (NodeAllocation a : st.allocation()) {
            long[] on = {a.gpus(), a.cpus(), a.memoryMb()};
            for (int f = 0; f < 3; f++) {
                int field = f;
                long max = effective(chain, l -> fields(l.maxTresPerNode())[field], Long.MAX_VALUE).value();
                assertThat(on[f]).as("%s: job %s field %d on %s within MaxTRESPerNode", where, job.id(), f, a.node())
                        .isLessThanOrEqualTo(max);
            }
        }
    }

    /** GrpJobs and GrpTRES at every association, MaxJobs of every user association, over the jobs running. */
    private static void checkAggregates(String where, List<Assoc> accounts, List<Assoc> users, List<RunningJob> running,
            Map<JobId, Assoc> owner) {
        List<Assoc> all = new ArrayList<>(accounts);
        all.addAll(users);
        for (Assoc a : all) {
            long jobs = 0;
            long own = 0;
            long[] sum = new long[4];
            for (RunningJob rj : running) {
                Assoc by = owner.get(rj.id());
                if (chain(by).contains(a)) {
                    jobs++;
                    long[] t = fields(rj.tres());
                    for (int f = 0; f < 4; f++) {
                        sum[f] += t[f];
                    }
                }
                if (by.equals(a)) {
                    own++;
                }
            }
            String name = a.account() + (a.user() == null ? "" : "/" + a.user());
            if (a.limits().grpJobs() > 0) {
                assertThat(jobs).as("%s: GrpJobs of %s", where, name).isLessThanOrEqualTo(a.limits().grpJobs());
            }
            long[] grp = a.grp();
            for (int f = 0; f < 4; f++) {
                assertThat(sum[f]).as("%s: GrpTRES field %d of %s", where, f, name).isLessThanOrEqualTo(grp[f]);
            }
            if (a.user() != null) {
                long max = effective(chain(a), AssocLimits::maxJobs, 0).value();
                if (max > 0) {
                    assertThat(own).as("%s: MaxJobs of %s", where, name).isLessThanOrEqualTo(max);
                }
            }
        }
    }

    /** What a pending job asks for in all, as its one shape in its one partition holds it. */
    private static long[] ask(PendingJob job) {
        Request q = job.request();
        int n = q.nodes();
        return new long[] {(long) q.gpusPerNode() * n, (long) q.tasks() * q.cpusPerTask(), q.memoryMb() * n, n};
    }

    private static long[] fields(Tres t) {
        return new long[] {t.gpus(), t.cpu(), t.memoryMb(), t.nodes()};
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /** The order the engine decides jobs in here (one partition, no starving jobs): priority, submit time, job id. */
    private static List<PendingJob> decisionOrder(Snapshot s, Plan plan) {
        Map<JobId, Long> value = new HashMap<>();
        plan.starts().forEach(st -> value.put(st.job(), st.priority().value()));
        plan.waiting().forEach(w -> value.put(w.job(), w.priority().value()));
        Set<JobId> seen = new HashSet<>(value.keySet());
        assertThat(seen).hasSize(s.pending().size());
        return s.pending().stream().sorted(Comparator.comparingLong((PendingJob j) -> -value.get(j.id()))
                .thenComparingLong(PendingJob::submitTime).thenComparing(PendingJob::id)).toList();
    }
}
