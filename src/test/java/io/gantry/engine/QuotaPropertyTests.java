package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * Guarantees over many random runs of many cycles (issue 16, "Done when" 1): a runtime like the
 * scheduler's applies each plan (starts, reclaims stopped after a grace time and requeued, jobs
 * ending), and after every cycle: no account borrows beyond its maxBorrow, a cohort never borrows
 * more than its members may lend, a reclaim only ever stops a borrowing job of another account for
 * a job of an account under its guarantee, and an account under its guarantee with demand gets it
 * within the minimum run time plus one cycle plus the grace time (plus the cycle the victims' ends
 * are seen in).
 */
class QuotaPropertyTests {

    private static final int RUNS = 150;
    private static final int CYCLES = 80;

    /** The simulated cluster and runtime of one run. */
    private static final class Sim {
        final long seed;
        final Random rnd;
        final Engine engine = new Engine();
        final List<Node> nodes;
        final Partition part;
        final List<Quota> quotas;
        final String[] teams;
        final long cycle;
        final long grace;
        final long minRuntime;
        long now = 1_000_000;
        long nextId = 1;
        final List<RunningJob> running = new ArrayList<>();
        final List<PendingJob> pending = new ArrayList<>();
        final Map<JobId, Long> runFor = new HashMap<>();
        /** Reclaimed jobs in their grace time: when they are stopped. */
        final Map<JobId, Long> stopAt = new HashMap<>();
        /** What the last plan said borrows, fed back as the scheduler does. */
        Set<JobId> borrowing = new HashSet<>();
        Map<JobId, Map<String, String>> borrowedAt = Map.of();

        Sim(long seed) {
            this(seed, false);
        }

        /**
         * {@code deep}: a random tree of depth 3 or 4 under the root (groups, their teams, some teams'
         * sub-teams), guarantees nested at every level (a child's within its parent's, some capacity
         * and some of each guarantee left to the pools), limits anywhere; jobs go to the leaves.
         */
        Sim(long seed, boolean deep) {
            this.seed = seed;
            rnd = new Random(seed);
            int n = (deep ? 3 : 2) + rnd.nextInt(4);
            nodes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                nodes.add(new Node("n" + i, 64, 512_000, 8, "h100", Set.of(), NodeState.UP, null, null));
            }
            part = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
            int gpus = 8 * n;
            if (deep) {
                quotas = new ArrayList<>();
                quotas.add(Quota.none("root", null));
                List<String> leaves = new ArrayList<>();
                split("root", "g", gpus - rnd.nextInt(gpus / 4 + 1), 0, leaves);
                teams = leaves.toArray(String[]::new);
                cycle = 30 + rnd.nextInt(60);
                grace = rnd.nextInt(4) * 60L;
                minRuntime = rnd.nextInt(3) * 120L;
                return;
            }
            int teamCount = 2 + rnd.nextInt(2);
            teams = new String[teamCount];
            quotas = new ArrayList<>();
            quotas.add(Quota.none("root", null));
            int left = gpus - rnd.nextInt(gpus / 4 + 1); // some capacity may be a free pool
            for (int t = 0; t < teamCount; t++) {
                teams[t] = "t" + t;
                long g = t == teamCount - 1 ? left : rnd.nextInt(left + 1);
                left -= (int) g;
                Map<String, Long> borrow = rnd.nextBoolean() ? Map.of() : Map.of("", (long) rnd.nextInt(gpus));
                Map<String, Long> lend = rnd.nextBoolean() ? Map.of() : Map.of("", (long) rnd.nextInt(gpus));
                quotas.add(new Quota(teams[t], "root", g == 0 ? Map.of() : Map.of("", g), borrow, lend));
            }
            cycle = 30 + rnd.nextInt(60);
            grace = rnd.nextInt(4) * 60L;
            minRuntime = rnd.nextInt(3) * 120L;
        }

        /** Gives {@code total} GPUs of guarantee to 2 or 3 children of {@code parent}, and theirs on down. */
        private void split(String parent, String prefix, int total, int level, List<String> leaves) {
            int count = 2 + rnd.nextInt(2);
            int left = total;
            for (int c = 0; c < count; c++) {
                String name = prefix + c;
                int g = c == count - 1 ? left : rnd.nextInt(left + 1);
                left -= g;
                Map<String, Long> borrow = rnd.nextInt(3) > 0 ? Map.of() : Map.of("", (long) rnd.nextInt(total + 1));
                Map<String, Long> lend = rnd.nextInt(3) > 0 ? Map.of() : Map.of("", (long) rnd.nextInt(g + 1));
                quotas.add(new Quota(name, parent, g == 0 ? Map.of() : Map.of("", (long) g), borrow, lend));
                // Depth 3 everywhere under the root, 4 under the first team of each group and some others.
                boolean deeper = level < 1 || (level == 1 && g > 0 && (c == 0 || rnd.nextBoolean()));
                if (deeper) {
                    // Some of a guarantee stays with the parent: its own pool, inside its sub-tree.
                    split(name, name + "_", g - rnd.nextInt(g / 4 + 1), level + 1, leaves);
                } else {
                    leaves.add(name);
                }
            }
        }

        /** The account and its ancestors up to the root. */
        List<String> path(String account) {
            List<String> out = new ArrayList<>();
            for (String a = account; a != null; a = quota(a).parent()) {
                out.add(a);
            }
            return out;
        }

        Quota quota(String team) {
            return quotas.stream().filter(q -> q.account().equals(team)).findFirst().orElseThrow();
        }

        void submit(String team, int gpus, long limit) {
            Request r = Request.builder().nodes(1).gpusPerNode(gpus).build();
            JobId id = JobId.of(nextId++);
            pending.add(new PendingJob(id, "u" + team, team, "normal", List.of("p"), r, limit, now, now, 0, null));
            runFor.put(id, 60 + (long) rnd.nextInt((int) limit));
        }

        Snapshot snapshot() {
            return Snapshot.builder().now(now).nodes(nodes).partitions(List.of(part)).running(running)
                    .pending(pending).qos(List.of(Qos.named("normal", 0)))
                    .quotas(new QuotaTree(quotas, minRuntime, stopAt.keySet(), borrowing, borrowedAt)).build();
        }

        Map<String, QuotaUse> use() {
            Map<String, QuotaUse> m = new HashMap<>();
            engine.quotaUse(snapshot()).forEach(u -> m.put(u.account(), u));
            return m;
        }

        /** One cycle: plan, check the reclaims against the state planned from, apply. */
        Plan step() {
            Snapshot s = snapshot();
            Map<String, QuotaUse> before = use();
            Plan plan = engine.plan(s);
            Map<JobId, RunningJob> runningById = new HashMap<>();
            running.forEach(r -> runningById.put(r.id(), r));
            Map<JobId, PendingJob> pendingById = new HashMap<>();
            pending.forEach(p -> pendingById.put(p.id(), p));
            for (Preemption p : plan.preemptions()) {
                assertThat(p.reclaim()).as("only reclaims: no QOS here preempts").isTrue();
                RunningJob victim = runningById.get(p.victim());
                PendingJob by = pendingById.get(p.by());
                assertThat(plan.borrowing()).as("a reclaimed job borrows").contains(p.victim());
                assertThat(victim.account()).as("a reclaim serves another account").isNotEqualTo(by.account());
                QuotaUse theirs = before.get(victim.account());
                assertThat(theirs.inUse()).as("the victim's account uses more than its guarantee: the victim is "
                        + "not within it").isGreaterThan(theirs.guaranteed());
                // The owner: the job's account or an ancestor (not the root) under its guarantee with the job,
                // and the victim is not of its sub-tree.
                long asked = by.request().gpusPerNode();
                List<String> victimPath = path(victim.account());
                assertThat(path(by.account()).stream().filter(a -> quota(a).parent() != null).anyMatch(a -> {
                    QuotaUse owner = before.get(a);
                    return owner.guaranteed() > 0 && owner.inUse() + asked <= owner.guaranteed()
                            && !victimPath.contains(a);
                })).as("%s reclaims %s of %s for %s of %s: an account on its path is under its guarantee",
                        p.by(), p.victim(), victim.account(), asked, by.account()).isTrue();
                assertThat(now - victim.startTime()).as("the victim ran the minimum run time")
                        .isGreaterThanOrEqualTo(minRuntime);
                assertThat(stopAt).as("a job is reclaimed once").doesNotContainKey(p.victim());
                stopAt.put(p.victim(), now + grace);
            }
            for (Start st : plan.starts()) {
                PendingJob job = pendingById.get(st.job());
                pending.remove(job);
                running.add(new RunningJob(job.id(), job.user(), job.account(), job.qos(), st.partition(),
                        st.allocation(), now, now + job.timeLimitSeconds()));
            }
            borrowing = plan.borrowing();
            borrowedAt = plan.borrowedAt();
            return plan;
        }

        /** Time passes: jobs end, reclaimed jobs past their grace are stopped and requeued. */
        void advance() {
            now += cycle;
            List<RunningJob> still = new ArrayList<>();
            for (RunningJob r : running) {
                Long stop = stopAt.get(r.id());
                if (stop != null && stop <= now) {
                    stopAt.remove(r.id());
                    PendingJob again = new PendingJob(r.id(), r.user(), r.account(), r.qos(), List.of("p"),
                            Request.builder().nodes(1).gpusPerNode(r.allocation().get(0).gpus()).build(),
                            r.expectedEnd() - r.startTime(), now, now, 0, null);
                    pending.add(again);
                } else if (r.startTime() + runFor.get(r.id()) > now) {
                    still.add(r);
                } else {
                    stopAt.remove(r.id());
                }
            }
            running.clear();
            running.addAll(still);
        }

        void checkLimits() {
            Map<String, QuotaUse> use = use();
            long borrowed = 0;
            long lendable = 0;
            for (String t : teams) {
                Quota q = quota(t);
                QuotaUse u = use.get(t);
                assertThat(u.borrowed()).as("%s borrows within its maxBorrow", t).isLessThanOrEqualTo(q.maxBorrow(""));
                borrowed += u.borrowed();
                lendable = sat(lendable, Math.min(q.guaranteed(""), q.maxLend("")));
            }
            assertThat(borrowed).as("the cohort borrows no more than its members may lend")
                    .isLessThanOrEqualTo(lendable);
            long held = running.stream().mapToLong(r -> r.tres().gpus()).sum();
            assertThat(held).isLessThanOrEqualTo(8L * nodes.size());
        }

        /**
         * At every level: no account borrows beyond its maxBorrow (what its sub-tree borrows above it);
         * no account lends beyond its maxLend; what is borrowed at an account (from its children) is no
         * more than they may lend; nodes hold no more than they have.
         */
        void checkTreeLimits() {
            Map<String, QuotaUse> use = use();
            QuotaBook book = new QuotaBook(snapshot().quotas(), nodes, running, pending, now);
            for (Quota q : quotas) {
                QuotaUse u = use.get(q.account());
                if (q.parent() != null) {
                    assertThat(u.borrowed()).as("%s borrows within its maxBorrow", q.account())
                            .isLessThanOrEqualTo(q.maxBorrow(""));
                    assertThat(u.lent()).as("%s lends within its maxLend", q.account())
                            .isLessThanOrEqualTo(q.maxLend(""));
                }
                long lendable = 0;
                for (Quota c : quotas) {
                    if (q.account().equals(c.parent())) {
                        lendable = sat(lendable, Math.min(c.guaranteed(""), c.maxLend("")));
                    }
                }
                assertThat(book.borrowedAt(q.account(), ""))
                        .as("seed %d at %d: borrowed at %s: no more than its children may lend (%s)", seed, now,
                                q.account(), quotas).isLessThanOrEqualTo(lendable);
            }
            long held = running.stream().mapToLong(r -> r.tres().gpus()).sum();
            assertThat(held).isLessThanOrEqualTo(8L * nodes.size());
        }

        private static long sat(long a, long b) {
            long r = a + b;
            return r < 0 ? Long.MAX_VALUE : r;
        }
    }

    @Test
    void borrowingStaysWithinTheLimitsAndReclaimOnlyStopsBorrowers() {
        for (long seed = 0; seed < RUNS; seed++) {
            Sim sim = new Sim(seed);
            for (int c = 0; c < CYCLES; c++) {
                int arrivals = sim.rnd.nextInt(4);
                for (int k = 0; k < arrivals; k++) {
                    String team = sim.teams[sim.rnd.nextInt(sim.teams.length)];
                    sim.submit(team, 1 << sim.rnd.nextInt(4), 600 + sim.rnd.nextInt(7200));
                }
                sim.step();
                sim.checkLimits();
                sim.advance();
            }
        }
    }

    @Test
    void inTreesOfDepthThreeAndMoreBorrowingStaysWithinTheLimitsAtEveryLevel() {
        int borrowed = 0;
        int reclaims = 0;
        for (long seed = 0; seed < RUNS; seed++) {
            Sim sim = new Sim(seed, true);
            for (int c = 0; c < CYCLES; c++) {
                int arrivals = sim.rnd.nextInt(5);
                for (int k = 0; k < arrivals; k++) {
                    String team = sim.teams[sim.rnd.nextInt(sim.teams.length)];
                    sim.submit(team, 1 << sim.rnd.nextInt(4), 600 + sim.rnd.nextInt(7200));
                }
                Plan plan = sim.step();
                borrowed += plan.borrowing().size();
                reclaims += plan.preemptions().size();
                sim.checkTreeLimits();
                sim.advance();
            }
        }
        assertThat(borrowed).as("the runs borrow").isGreaterThan(0);
        assertThat(reclaims).as("the runs reclaim").isGreaterThan(0);
    }

    @Test
    void inTreesOfDepthThreeAndMoreAnAccountUnderItsGuaranteeGetsItBackWithinOneCyclePlusGrace() {
        int checked = 0;
        int crossGroup = 0;
        for (long seed = 0; seed < RUNS; seed++) {
            Sim sim = new Sim(seed, true);
            // The owner: a guaranteed leaf; the greedy team: any other leaf, in its group or another.
            List<String> guaranteed = java.util.Arrays.stream(sim.teams)
                    .filter(t -> sim.quota(t).guaranteed("") > 0).toList();
            if (guaranteed.isEmpty()) {
                continue;
            }
            String owner = guaranteed.get(sim.rnd.nextInt(guaranteed.size()));
            List<String> others = java.util.Arrays.stream(sim.teams).filter(t -> !t.equals(owner)).toList();
            String greedy = others.get(sim.rnd.nextInt(others.size()));
            List<String> ownerPath = sim.path(owner);
            List<String> greedyPath = sim.path(greedy);
            if (!ownerPath.get(ownerPath.size() - 2).equals(greedyPath.get(greedyPath.size() - 2))) {
                crossGroup++;
            }
            long guarantee = sim.quota(owner).guaranteed("");
            for (int c = 0; c < 10; c++) {
                for (int k = 0; k < 6; k++) {
                    sim.submit(greedy, 1 << sim.rnd.nextInt(4), 100_000);
                }
                sim.step();
                sim.checkTreeLimits();
                sim.advance();
            }
            sim.runFor.replaceAll((id, v) -> 1_000_000L);
            int demand = 1 + sim.rnd.nextInt((int) guarantee + 2);
            for (int k = 0; k < demand; k++) {
                sim.submit(owner, 1, 100_000);
            }
            sim.runFor.replaceAll((id, v) -> 1_000_000L);
            long arrived = sim.now;
            long deadline = arrived + sim.minRuntime + sim.grace + 2 * sim.cycle;
            long want = Math.min(demand, guarantee);
            long got = 0;
            while (sim.now <= deadline) {
                sim.step();
                sim.checkTreeLimits();
                got = sim.use().get(owner).inUse();
                if (got >= want) {
                    break;
                }
                sim.advance();
            }
            assertThat(got).as("seed %d: %s (path %s) guaranteed %d asked %d by %d s; greedy %s", seed, owner,
                    sim.path(owner), guarantee, demand, deadline - arrived, greedy).isGreaterThanOrEqualTo(want);
            checked++;
        }
        assertThat(checked).isGreaterThan(RUNS / 2);
        assertThat(crossGroup).as("some greedy teams are in another group: borrowing crosses two levels")
                .isGreaterThan(RUNS / 10);
    }

    @Test
    void anAccountUnderItsGuaranteeGetsItBackWithinOneCyclePlusGrace() {
        int checked = 0;
        for (long seed = 0; seed < RUNS; seed++) {
            Sim sim = new Sim(seed);
            String greedy = sim.teams[0];
            String owner = sim.teams[1];
            long guarantee = sim.quota(owner).guaranteed("");
            if (guarantee == 0) {
                continue;
            }
            // The owner is idle; the greedy team fills what it may with long jobs of any size.
            for (int c = 0; c < 10; c++) {
                for (int k = 0; k < 6; k++) {
                    sim.submit(greedy, 1 << sim.rnd.nextInt(4), 100_000);
                }
                sim.step();
                sim.advance();
            }
            // The greedy team's jobs keep running: the owner's demand arrives in 1-GPU jobs.
            sim.runFor.replaceAll((id, v) -> 1_000_000L);
            int demand = 1 + sim.rnd.nextInt((int) guarantee + 2);
            for (int k = 0; k < demand; k++) {
                sim.submit(owner, 1, 100_000);
            }
            sim.runFor.replaceAll((id, v) -> 1_000_000L);
            long arrived = sim.now;
            long deadline = arrived + sim.minRuntime + sim.grace + 2 * sim.cycle;
            long want = Math.min(demand, guarantee);
            long got = 0;
            while (sim.now <= deadline) {
                sim.step();
                sim.checkLimits();
                got = sim.use().get(owner).inUse();
                if (got >= want) {
                    break;
                }
                sim.advance();
            }
            assertThat(got).as("seed %d: %s guaranteed %d asked %d by %d s", seed, owner, guarantee, demand,
                    deadline - arrived).isGreaterThanOrEqualTo(want);
            checked++;
        }
        assertThat(checked).isGreaterThan(RUNS / 2);
    }
}
