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
 * stops {@code --grace} seconds after the cycle that chose it. {@code --tree} runs a two-level day
 * instead ({@link #simulateTree}) and prints, besides, the GPUs borrowed at each level.
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
        boolean tree = false;
        try {
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                if (args[i].equals("--tree")) {
                    tree = true;
                    continue;
                }
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
            err.println("usage: simulate-quotas [--tree] [--nodes 16] [--cycle 30] [--grace 120] [--min-runtime 0] "
                    + "[--seed 1]");
            return 2;
        }
        if (tree) {
            printTree(out, nodes, cycle, grace, minRuntime, seed);
            return 0;
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

    private static void printTree(PrintStream out, int nodes, long cycle, long grace, long minRuntime, long seed) {
        Result lending = simulateTree(nodes, cycle, grace, minRuntime, seed, true);
        Result capped = simulateTree(nodes, cycle, grace, minRuntime, seed, false);
        out.printf(Locale.ROOT, "%d nodes x 8 GPUs: research %d (vision %d, nlp %d), prod %d; cycle %d s, grace %d s, "
                + "min-runtime %d s, seed %d%n", nodes, nodes * 4, nodes * 2, nodes * 2, nodes * 4, cycle, grace,
                minRuntime, seed);
        out.printf(Locale.ROOT, "%-16s %12s %12s %12s %9s %20s %20s%n", "", "utilisation", "00-12h", "12-24h",
                "reclaims", "nlp at 12h after", "prod at 18h after");
        for (Map.Entry<String, Result> e : List.of(Map.entry("with lending", lending),
                Map.entry("without lending", capped))) {
            Result d = e.getValue();
            out.printf(Locale.ROOT, "%-16s %11.1f%% %11.1f%% %11.1f%% %9d %18d s %18d s%n", e.getKey(),
                    100 * d.utilisation(), 100 * d.morning(), 100 * d.afternoon(), d.reclaims(),
                    d.returnSeconds().get("nlp@12h"), d.returnSeconds().get("prod@18h"));
        }
        out.println("GPUs borrowed on average (with lending), by where they are borrowed:");
        out.printf(Locale.ROOT, "%-40s %8s %8s%n", "", "00-12h", "12-24h");
        out.printf(Locale.ROOT, "%-40s %8.1f %8.1f%n", "inside research (vision on nlp's GPUs)",
                lending.borrowedMorning().getOrDefault("research", 0.0),
                lending.borrowedAfternoon().getOrDefault("research", 0.0));
        out.printf(Locale.ROOT, "%-40s %8.1f %8.1f%n", "at the root (research on prod's GPUs)",
                lending.borrowedMorning().getOrDefault("root", 0.0), lending.borrowedAfternoon().getOrDefault("root", 0.0));
    }

    private static void print(PrintStream out, String name, Day d) {
        out.printf(Locale.ROOT, "%-16s %11.1f%% %11.1f%% %11.1f%% %9d %20d s%n", name, 100 * d.utilisation(),
                100 * d.morning(), 100 * d.afternoon(), d.reclaims(), d.returnSeconds());
    }

    /**
     * A team of the simulated day: an account under {@code parent} guaranteed {@code guarantee} GPUs.
     * A {@code backlog} team always has more work queued than the cluster holds (whole-node and
     * half-node jobs of 30-120 min); the others, from each step's time on, keep about its number of
     * GPUs busy with 4-GPU jobs of 30-90 min. An account with no jobs of its own (a parent) has neither.
     */
    record Team(String name, String parent, long guarantee, boolean backlog, List<long[]> steps) {

        static Team parent(String name, long guarantee) {
            return new Team(name, "root", guarantee, false, List.of());
        }

        long target(long now) {
            long t = 0;
            for (long[] step : steps) {
                if (now >= step[0]) {
                    t = step[1];
                }
            }
            return t;
        }
    }

    /**
     * The figures of a day: utilisation (whole day, before and after noon), reclaims, and per team
     * step ("nlp@12h") how long after it the team first held its target, -1 if never; per account
     * borrowed at, the average GPUs jobs borrowed there before and after noon.
     */
    public record Result(double utilisation, double morning, double afternoon, long reclaims,
            Map<String, Long> returnSeconds, Map<String, Long> peaks, Map<String, Double> borrowedMorning,
            Map<String, Double> borrowedAfternoon) {
    }

    /** One day; {@code lend} false caps each team at its guarantee (maxBorrow 0). */
    public static Day simulate(int nodeCount, long cycle, long grace, long minRuntime, long seed, boolean lend) {
        long half = 4L * nodeCount;
        Result r = simulate(List.of(new Team("a", "root", half, true, List.of()),
                new Team("b", "root", half, false, List.<long[]>of(new long[] {NOON, half}))), nodeCount, cycle, grace,
                minRuntime, seed, lend);
        return new Day(r.utilisation(), r.morning(), r.afternoon(), r.reclaims(), r.returnSeconds().get("b@12h"),
                r.peaks().get("b"));
    }

    /**
     * The two-level day ({@code --tree}): {@code research} (half the GPUs: {@code vision} and {@code nlp}
     * a quarter each) and {@code prod} (the other half). vision always has a backlog; nlp is idle
     * until noon, then keeps its quarter busy; prod keeps a quarter busy from midnight and its whole
     * half from 18:00. In the morning vision borrows nlp's idle quarter inside research and research
     * borrows prod's idle quarter at the root; nlp reclaims at noon, prod at 18:00.
     */
    public static Result simulateTree(int nodeCount, long cycle, long grace, long minRuntime, long seed, boolean lend) {
        long quarter = 2L * nodeCount;
        return simulate(List.of(Team.parent("research", 2 * quarter),
                new Team("vision", "research", quarter, true, List.of()),
                new Team("nlp", "research", quarter, false, List.<long[]>of(new long[] {NOON, quarter})),
                new Team("prod", "root", 2 * quarter, false,
                        List.<long[]>of(new long[] {0, quarter}, new long[] {NOON + DAY / 4, 2 * quarter}))),
                nodeCount, cycle, grace, minRuntime, seed, lend);
    }

    static Result simulate(List<Team> teams, int nodeCount, long cycle, long grace, long minRuntime, long seed,
            boolean lend) {
        Engine engine = new Engine();
        Random rnd = new Random(seed);
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            nodes.add(new Node(String.format(Locale.ROOT, "gpu%03d", i + 1), 64, 1_024_000, 8, "h100", Set.of(),
                    NodeState.UP, null, null));
        }
        Partition part = new Partition("gpu", nodes.stream().map(Node::name).toList(), 0, 1, true);
        Map<String, Long> borrow = lend ? Map.of() : Map.of(Quota.ANY, 0L);
        List<Quota> quotas = new ArrayList<>();
        quotas.add(Quota.none("root", null));
        for (Team t : teams) {
            quotas.add(new Quota(t.name(), t.parent(), Map.of(Quota.ANY, t.guarantee()), borrow, Map.of()));
        }
        Qos normal = Qos.named("normal", 0);

        List<PendingJob> pending = new ArrayList<>();
        List<RunningJob> running = new ArrayList<>();
        Map<JobId, Long> runFor = new HashMap<>();
        Map<JobId, Long> stopAt = new HashMap<>();
        Set<JobId> borrowing = new HashSet<>();
        Map<JobId, Map<String, String>> borrowedAt = Map.of();
        long[] nextId = {1};
        long usedDay = 0;
        long usedMorning = 0;
        long usedAfternoon = 0;
        long reclaims = 0;
        Map<String, Long> returned = new java.util.TreeMap<>();
        Map<String, Long> peaks = new java.util.TreeMap<>();
        Map<String, Long> borrowedMorning = new java.util.TreeMap<>();
        Map<String, Long> borrowedAfternoon = new java.util.TreeMap<>();

        for (long now = 0; now < DAY; now += cycle) {
            for (Team t : teams) {
                if (t.backlog()) {
                    // A backlog bigger than the cluster.
                    long queued = pending.stream().filter(p -> p.account().equals(t.name())).mapToLong(QuotaDay::gpus)
                            .sum();
                    while (queued < 2 * 8L * nodeCount) {
                        int g = rnd.nextBoolean() ? 8 : 4;
                        submit(pending, runFor, nextId, t.name(), g, 1800 + rnd.nextInt(5400), now);
                        queued += g;
                    }
                } else if (t.target(now) > 0) {
                    long wants = pending.stream().filter(p -> p.account().equals(t.name())).mapToLong(QuotaDay::gpus)
                            .sum() + held(running, t.name());
                    while (wants < t.target(now)) {
                        submit(pending, runFor, nextId, t.name(), 4, 1800 + rnd.nextInt(3600), now);
                        wants += 4;
                    }
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
            for (Team t : teams) {
                long has = held(running, t.name());
                peaks.merge(t.name(), has, Math::max);
                for (long[] step : t.steps()) {
                    String key = t.name() + "@" + step[0] / 3600 + "h";
                    if (now >= step[0] && !returned.containsKey(key) && has >= step[1]) {
                        returned.put(key, now - step[0]);
                    }
                }
            }
            // The cycle's interval passes: GPU-seconds counted, jobs end, reclaimed ones stop and are requeued.
            long held = running.stream().mapToLong(r -> r.tres().gpus()).sum();
            usedDay += held * cycle;
            Map<String, Long> borrowedNow = now < NOON ? borrowedMorning : borrowedAfternoon;
            for (RunningJob r : running) {
                Map<String, String> at = borrowedAt.get(r.id());
                if (at != null && at.containsKey(Quota.ANY)) {
                    borrowedNow.merge(at.get(Quota.ANY), r.tres().gpus() * cycle, Long::sum);
                }
            }
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
        for (Team t : teams) {
            for (long[] step : t.steps()) {
                returned.putIfAbsent(t.name() + "@" + step[0] / 3600 + "h", -1L);
            }
        }
        double capacity = 8.0 * nodeCount;
        Map<String, Double> morning = new java.util.TreeMap<>();
        borrowedMorning.forEach((level, gpuSeconds) -> morning.put(level, gpuSeconds / (double) NOON));
        Map<String, Double> afternoon = new java.util.TreeMap<>();
        borrowedAfternoon.forEach((level, gpuSeconds) -> afternoon.put(level, gpuSeconds / (double) NOON));
        return new Result(usedDay / (capacity * DAY), usedMorning / (capacity * NOON), usedAfternoon / (capacity * NOON),
                reclaims, returned, peaks, morning, afternoon);
    }

    private static long held(List<RunningJob> running, String account) {
        return running.stream().filter(r -> r.account().equals(account)).mapToLong(r -> r.tres().gpus()).sum();
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
