package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * {@code GrpWall} over time (issue 32): random account trees with random GrpWall on accounts, users and QOS
 * (some with usage factors), and cycles in which the plan's jobs start, run, end (at their time limit or
 * earlier) and their wall-clock time is accrued into the usage as the controller does. After every plan:
 * for every GrpWall, what was used plus what the running jobs may still run (times their QOS's factor) is
 * within it, so no set of running jobs ever runs past a GrpWall and none need be killed; every job waiting
 * with {@code AssocGrpWallLimit} or {@code QOSGrpWallLimit} does overrun one; and the limits really bind.
 */
class GrpWallPropertyTests {

    private static final int SEEDS = 300;
    private static final int CYCLES = 10;
    private static final Map<String, Long> FACTORS = Map.of("normal", 1000L, "half", 500L, "twice", 2000L);

    /** One GrpWall: whose (account and user, or QOS), its limit and what was used, in seconds. */
    private static final class Wall {
        final String account;
        final String user;
        final String qos;
        final long limit;
        long used;

        Wall(String account, String user, String qos, long limit) {
            this.account = account;
            this.user = user;
            this.qos = qos;
            this.limit = limit;
        }

        boolean covers(String jobAccount, String jobUser, String jobQos, Map<String, String> parents) {
            if (qos != null) {
                return qos.equals(jobQos);
            }
            if (user != null) {
                return account.equals(jobAccount) && user.equals(jobUser);
            }
            for (String a = jobAccount; a != null; a = parents.get(a)) {
                if (a.equals(account)) {
                    return true;
                }
            }
            return false;
        }

        Budget budget() {
            Budget b = qos != null ? Budget.ofQos(qos, null, null)
                    : user != null ? Budget.ofUser(account, user, null, null) : Budget.ofAccount(account, null, null);
            return b.withGrpWall(limit, used);
        }

        @Override
        public String toString() {
            return (qos != null ? "qos " + qos : account + (user == null ? "" : "/" + user)) + " GrpWall " + limit;
        }
    }

    @Test
    void no_running_set_ever_runs_past_a_grp_wall_and_a_job_waits_for_one_only_when_it_would() {
        int blocked = 0;
        int startedUnderWall = 0;
        for (long seed = 0; seed < SEEDS; seed++) {
            int[] counts = runSeed(seed);
            blocked += counts[0];
            startedUnderWall += counts[1];
        }
        assertThat(blocked).as("jobs waiting for a GrpWall").isGreaterThan(1000);
        assertThat(startedUnderWall).as("jobs started under a GrpWall").isGreaterThan(1000);
    }

    private static int[] runSeed(long seed) {
        Random r = new Random(seed);
        Map<String, String> parents = new HashMap<>();
        List<String> accounts = new ArrayList<>(List.of("root"));
        int count = 2 + r.nextInt(6);
        for (int i = 0; i < count; i++) {
            String name = "a" + i;
            parents.put(name, accounts.get(r.nextInt(accounts.size())));
            accounts.add(name);
        }
        List<String[]> users = new ArrayList<>();
        for (String a : accounts.subList(1, accounts.size())) {
            for (int u = r.nextInt(3); u >= 0; u--) {
                String name = "u" + r.nextInt(4);
                if (users.stream().noneMatch(x -> x[0].equals(a) && x[1].equals(name))) {
                    users.add(new String[] { a, name });
                }
            }
        }
        List<Wall> walls = new ArrayList<>();
        for (String a : accounts) {
            if (r.nextInt(3) == 0) {
                walls.add(new Wall(a, null, null, 60L * (30 + r.nextInt(600))));
            }
        }
        for (String[] u : users) {
            if (r.nextInt(5) == 0) {
                walls.add(new Wall(u[0], u[1], null, 60L * (30 + r.nextInt(300))));
            }
        }
        for (String q : FACTORS.keySet()) {
            if (r.nextInt(4) == 0) {
                walls.add(new Wall(null, null, q, 60L * (60 + r.nextInt(900))));
            }
        }
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            nodes.add(new Node("n" + i, 64, 256_000, 0, null, Set.of(), NodeState.UP, null, null));
        }
        Partition part = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 0, true);
        List<Qos> qos = FACTORS.keySet().stream().sorted().map(q -> Qos.named(q, 0)).toList();
        List<String> qosNames = qos.stream().map(Qos::name).toList();

        long now = 1_000_000;
        long nextId = 1;
        List<RunningJob> running = new ArrayList<>();
        Map<JobId, Long> runsFor = new HashMap<>();
        List<PendingJob> pending = new ArrayList<>();
        Engine engine = new Engine();
        int blocked = 0;
        int startedUnderWall = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            for (int k = 2 + r.nextInt(10); k > 0; k--) {
                String[] u = users.get(r.nextInt(users.size()));
                Request req = Request.builder().nodes(1).tasks(1 + r.nextInt(8)).cpusPerTask(1).memoryMb(1000).build();
                pending.add(new PendingJob(JobId.of(nextId++), u[1], u[0], qosNames.get(r.nextInt(qosNames.size())),
                        List.of("p"), req, 60L * (5 + r.nextInt(120)), now - 50 + k, now - 50 + k, 0, null, 0));
            }
            Budgets budgets = new Budgets(walls.stream().map(Wall::budget).toList(), parents, now, FACTORS);
            Snapshot s = new Snapshot(now, nodes, List.of(part), List.of(), running, pending, qos, List.of(),
                    Policy.easy()).toBuilder().budgets(budgets).build();
            Plan plan = engine.plan(s);
            Invariants.check(s, plan);
            String where = "seed " + seed + " cycle " + cycle;

            Map<JobId, Start> started = new HashMap<>();
            plan.starts().forEach(st -> started.put(st.job(), st));
            List<PendingJob> left = new ArrayList<>();
            for (PendingJob job : pending) {
                Start st = started.get(job.id());
                if (st == null) {
                    left.add(job);
                    continue;
                }
                running.add(new RunningJob(job.id(), job.user(), job.account(), job.qos(), st.partition(),
                        st.allocation(), now, st.expectedEnd()));
                // Most run to their time limit; some end earlier.
                long limit = st.expectedEnd() - now;
                runsFor.put(job.id(), r.nextInt(3) == 0 ? 1 + r.nextInt((int) limit) : limit);
                if (walls.stream().anyMatch(w -> w.covers(job.account(), job.user(), job.qos(), parents))) {
                    startedUnderWall++;
                }
            }

            // Used plus what every running job may still run, within every GrpWall.
            for (Wall w : walls) {
                long committed = w.used;
                for (RunningJob rj : running) {
                    if (w.covers(rj.account(), rj.user(), rj.qos(), parents)) {
                        committed += (rj.expectedEnd() - now) * FACTORS.get(rj.qos()) / 1000;
                    }
                }
                assertThat(committed).as("%s: %s used %d", where, w, w.used).isLessThanOrEqualTo(w.limit);
            }
            // A job waits for a GrpWall only if it overruns one, even counting everything started this pass.
            for (Waiting wt : plan.waiting()) {
                if (wt.reason() != PendingReason.ASSOC_GRP_WALL_LIMIT && wt.reason() != PendingReason.QOS_GRP_WALL_LIMIT) {
                    continue;
                }
                blocked++;
                PendingJob job = pending.stream().filter(p -> p.id().equals(wt.job())).findFirst().orElseThrow();
                boolean overruns = false;
                for (Wall w : walls) {
                    if ((w.qos != null) != (wt.reason() == PendingReason.QOS_GRP_WALL_LIMIT)
                            || !w.covers(job.account(), job.user(), job.qos(), parents)) {
                        continue;
                    }
                    long committed = w.used + job.timeLimitSeconds() * FACTORS.get(job.qos()) / 1000;
                    for (RunningJob rj : running) {
                        if (w.covers(rj.account(), rj.user(), rj.qos(), parents)) {
                            committed += (rj.expectedEnd() - now) * FACTORS.get(rj.qos()) / 1000;
                        }
                    }
                    overruns |= committed > w.limit;
                }
                assertThat(overruns).as("%s: job %s waits with %s", where, job.id(), wt.reason()).isTrue();
            }

            // Time passes: the jobs' wall-clock time is accrued (times their factor), and some end.
            long step = 60L * (5 + r.nextInt(60));
            List<RunningJob> still = new ArrayList<>();
            for (RunningJob rj : running) {
                long ran = Math.min(step, rj.startTime() + runsFor.get(rj.id()) - now);
                for (Wall w : walls) {
                    if (w.covers(rj.account(), rj.user(), rj.qos(), parents)) {
                        w.used += ran * FACTORS.get(rj.qos()) / 1000;
                    }
                }
                if (rj.startTime() + runsFor.get(rj.id()) > now + step) {
                    still.add(rj);
                }
            }
            running = still;
            pending = left;
            now += step;
        }
        return new int[] { blocked, startedUnderWall };
    }
}
