package io.gantry.simulation;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import io.gantry.engine.Engine;
import io.gantry.engine.JobId;
import io.gantry.engine.Node;
import io.gantry.engine.NodeState;
import io.gantry.engine.Partition;
import io.gantry.engine.PendingJob;
import io.gantry.engine.Plan;
import io.gantry.engine.Preemption;
import io.gantry.engine.Qos;
import io.gantry.engine.Quota;
import io.gantry.engine.QuotaTree;
import io.gantry.engine.Request;
import io.gantry.engine.RunningJob;
import io.gantry.engine.Snapshot;
import io.gantry.engine.Start;

/**
 * {@code gantry simulate-quotas}: a simulated day of guaranteed quotas (issue 16) through the
 * production engine on a virtual clock. Two teams are guaranteed half the GPUs each; team a always
 * has more work than the cluster holds, team b is idle until noon and then keeps about its whole
 * guarantee busy. The day runs twice: with lending (a borrows b's idle half, b reclaims it) and
 * without (each team capped at its guarantee, as Slurm's GrpTRES would), and prints the GPU
 * utilisation of both and how long b waited for its guarantee at noon. Reclaimed jobs are
 * requeued and start over; a scheduler cycle runs every {@code --cycle} seconds, a reclaimed job
 * stops {@code --grace} seconds after the cycle that chose it.
 */
public final class QuotaDay {

    private static final long DAY = 86_400;
    private static final long NOON = DAY / 2;

    private QuotaDay() {
    }

    /** The figures of one simulated day. */
    public record Day(double utilisation, double morning, double afternoon, long reclaims, long returnSeconds,
            long bPeak) {
    }

    public static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        int nodes = 16;
        long cycle = 30;
        long grace = 120;
        long minRuntime = 0;
        long seed = 1;
        try {
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--nodes" -> nodes = Integer.parseInt(v);
                    case "--cycle" -> cycle = Long.parseLong(v);
                    case "--grace" -> grace = Long.parseLong(v);
                    case "--min-runtime" -> minRuntime = Long.parseLong(v);
                    case "--seed" -> seed = Long.parseLong(v);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
                i++;
            }
            if (nodes < 2 || nodes % 2 != 0 || cycle <= 0 || grace < 0 || minRuntime < 0) {
                throw new IllegalArgumentException("--nodes must be even and at least 2, --cycle positive, "
                        + "--grace and --min-runtime not negative");
            }
        } catch (RuntimeException e) {
            err.println("simulate-quotas: " + e.getMessage());
            err.println("usage: simulate-quotas [--nodes 16] [--cycle 30] [--grace 120] [--min-runtime 0] [--seed 1]");
            return 2;
        }
        Day lending = simulate(nodes, cycle, grace, minRuntime, seed, true);
        Day capped = simulate(nodes, cycle, grace, minRuntime, seed, false);
        out.printf(Locale.ROOT, "%d nodes x 8 GPUs, teams a and b guaranteed %d GPUs each; cycle %d s, grace %d s, "
                + "min-runtime %d s, seed %d%n", nodes, nodes * 4, cycle, grace, minRuntime, seed);
        out.printf(Locale.ROOT, "%-16s %12s %12s %12s %9s %22s%n", "", "utilisation", "00-12h", "12-24h", "reclaims",
                "b at guarantee after");
        print(out, "with lending", lending);
        print(out, "without lending", capped);
        return 0;
    }

    private static void print(PrintStream out, String name, Day d) {
        out.printf(Locale.ROOT, "%-16s %11.1f%% %11.1f%% %11.1f%% %9d %20d s%n", name, 100 * d.utilisation(),
                100 * d.morning(), 100 * d.afternoon(), d.reclaims(), d.returnSeconds());
    }

    /** One day; {@code lend} false caps each team at its guarantee (maxBorrow 0). */
    public static Day simulate(int nodeCount, long cycle, long grace, long minRuntime, long seed, boolean lend) {
        Engine engine = new Engine();
        Random rnd = new Random(seed);
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(new Node(String.format(Locale.ROOT, "gpu%03d", i + 1), 64, 1_024_000, 8, "h100", Set.of(),
                    NodeState.UP, null, null));
        }
        Partition part = new Partition("gpu", nodes.stream().map(Node::name).toList(), 0, 1, true);
        long half = 4L * nodeCount;
        Map<String, Long> borrow = lend ? Map.of() : Map.of(Quota.ANY, 0L);
        List<Quota> quotas = List.of(Quota.none("root", null),
                new Quota("a", "root", Map.of(Quota.ANY, half), borrow, Map.of()),
                new Quota("b", "root", Map.of(Quota.ANY, half), borrow, Map.of()));
        Qos normal = Qos.named("normal", 0);

        List<PendingJob> pending = new ArrayList<>();
        List<RunningJob> running = new ArrayList<>();
        Map<JobId, Long> runFor = new HashMap<>();
        Map<JobId, Long> stopAt = new HashMap<>();
        Set<JobId> borrowing = new HashSet<>();
        java.util.Map<JobId, java.util.Map<String, String>> borrowedAt = java.util.Map.of();
        long[] nextId = {1};
        long usedA = 0;
        long usedMorning = 0;
        long usedAfternoon = 0;
        long reclaims = 0;
        long returned = -1;
        long bPeak = 0;
        long bTarget = half;

        for (long now = 0; now < DAY; now += cycle) {
            // Team a keeps a backlog bigger than the cluster; team b from noon keeps about its guarantee busy.
            long aQueued = pending.stream().filter(p -> p.account().equals("a")).mapToLong(p -> gpus(p)).sum();
            while (aQueued < 2 * 8L * nodeCount) {
                int g = rnd.nextBoolean() ? 8 : 4;
                submit(pending, runFor, nextId, "a", g, 1800 + rnd.nextInt(5400), now);
                aQueued += g;
            }
            if (now >= NOON) {
                long bWants = pending.stream().filter(p -> p.account().equals("b")).mapToLong(QuotaDay::gpus).sum()
                        + running.stream().filter(r -> r.account().equals("b")).mapToLong(r -> r.tres().gpus()).sum();
                while (bWants < bTarget) {
                    submit(pending, runFor, nextId, "b", 4, 1800 + rnd.nextInt(3600), now);
                    bWants += 4;
                }
            }
            Snapshot snapshot = Snapshot.builder().now(now).nodes(nodes).partitions(List.of(part)).running(running)
                    .pending(pending).qos(List.of(normal))
                    .quotas(new QuotaTree(quotas, minRuntime, stopAt.keySet(), borrowing, borrowedAt)).build();
            Plan plan = engine.plan(snapshot);
            borrowing = plan.borrowing();
            borrowedAt = plan.borrowedAt();
            for (Preemption p : plan.preemptions()) {
                if (p.reclaim() && stopAt.putIfAbsent(p.victim(), now + grace) == null) {
                    reclaims++;
                }
            }
            Map<JobId, PendingJob> byId = new HashMap<>();
            pending.forEach(p -> byId.put(p.id(), p));
            for (Start st : plan.starts()) {
                PendingJob job = byId.get(st.job());
                pending.remove(job);
                running.add(new RunningJob(job.id(), job.user(), job.account(), job.qos(), st.partition(),
                        st.allocation(), now, now + job.timeLimitSeconds()));
            }
            long bNow = running.stream().filter(r -> r.account().equals("b")).mapToLong(r -> r.tres().gpus()).sum();
            bPeak = Math.max(bPeak, bNow);
            if (now >= NOON && returned < 0 && bNow >= bTarget) {
                returned = now - NOON;
            }
            // The cycle's interval passes: GPU-seconds counted, jobs end, reclaimed ones stop and are requeued.
            long held = running.stream().mapToLong(r -> r.tres().gpus()).sum();
            usedA += held * cycle;
            if (now < NOON) {
                usedMorning += held * cycle;
            } else {
                usedAfternoon += held * cycle;
            }
            long next = now + cycle;
            List<RunningJob> still = new ArrayList<>();
            for (RunningJob r : running) {
                Long stop = stopAt.get(r.id());
                if (stop != null && stop < next) {
                    stopAt.remove(r.id());
                    JobId again = JobId.of(nextId[0]++);
                    pending.add(new PendingJob(again, r.user(), r.account(), r.qos(), List.of("gpu"),
                            Request.builder().nodes(1).gpusPerNode((int) r.tres().gpus()).build(),
                            r.expectedEnd() - r.startTime(), next, next, 0, null));
                    runFor.put(again, runFor.get(r.id()));
                } else if (r.startTime() + runFor.get(r.id()) > next) {
                    still.add(r);
                } else {
                    stopAt.remove(r.id());
                }
            }
            running = still;
        }
        double capacity = 8.0 * nodeCount;
        return new Day(usedA / (capacity * DAY), usedMorning / (capacity * NOON), usedAfternoon / (capacity * NOON),
                reclaims, returned, bPeak);
    }

    private static long gpus(PendingJob p) {
        return (long) p.request().gpusPerNode() * Math.max(1, p.request().nodes());
    }

    private static void submit(List<PendingJob> pending, Map<JobId, Long> runFor, long[] nextId, String team,
            int gpus, long runSeconds, long now) {
        JobId id = JobId.of(nextId[0]++);
        pending.add(new PendingJob(id, "u" + team, team, "normal", List.of("gpu"),
                Request.builder().nodes(1).gpusPerNode(gpus).build(), 4 * 3600, now, now, 0, null));
        runFor.put(id, runSeconds);
    }
}
