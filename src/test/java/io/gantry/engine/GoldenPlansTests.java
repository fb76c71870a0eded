package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.LongFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine's plans and expected starts on thousands of seeded snapshots, hashed and compared with
 * the hashes recorded from the engine as it was before a refactoring (issue 31: the split of the
 * cycle into a resource profile and a queue pass changes no decision). Every field of every plan
 * counts: starts with their nodes and GPUs, reasons, reservations, preemptions, borrowing, and each
 * estimate with its nodes, for every search the estimator has and for budgets that cut passes short.
 *
 * <p>When a change is meant to change decisions, record the new hashes (the failure prints them) in
 * {@code src/test/resources/engine/golden-plans.sha256} and say why in the commit.
 */
class GoldenPlansTests {

    private static final String[] POLICIES = {"default", "easy", "fifo", "easy:predict=1",
        "default:predict=2,depth=0,adaptive=1", "default:slowdown=100"};

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"random", "switch-tree", "node-lists", "crowded", "alike", "predictions", "quotas"})
    void the_engine_decides_as_it_did_when_the_hashes_were_recorded(String family) throws IOException {
        assertThat(hash(family)).as("plans of the %s snapshots (recorded: %s)", family, recorded())
                .isEqualTo(recorded().get(family));
    }

    static String hash(String family) {
        Engine engine = new Engine();
        MessageDigest sha = sha256();
        switch (family) {
            case "random" -> assertThat(each(1000, RandomSnapshots::of, engine, sha, true))
                    .as("QOS preemptions among the random snapshots' plans").isGreaterThan(10);
            case "switch-tree" -> each(600, RandomSnapshots::withSwitchTree, engine, sha, true);
            case "node-lists" -> each(600, RandomSnapshots::withNodeLists, engine, sha, true);
            case "crowded" -> each(300, StartEstimatorPropertyTests::crowded, engine, sha, true);
            case "alike" -> each(300, StartEstimatorPropertyTests::withAlikeJobs, engine, sha, true);
            case "predictions" -> each(1000, seed -> PredictionPropertyTests.withPredictions(seed, POLICIES), engine,
                    sha, false);
            case "quotas" -> quotas(120, engine, sha);
            default -> throw new IllegalArgumentException(family);
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** Returns how many preemptions the plans made. */
    private static int each(int count, LongFunction<Snapshot> snapshots, Engine engine, MessageDigest sha,
            boolean estimates) {
        int preemptions = 0;
        for (long seed = 0; seed < count; seed++) {
            Snapshot s = snapshots.apply(seed);
            Plan plan = engine.plan(s);
            add(sha, "seed " + seed + "\n" + render(plan));
            preemptions += plan.preemptions().size();
            if (!estimates) {
                continue;
            }
            Cluster cluster = new Cluster(s.nodes(), s.partitions(), s.switches());
            for (StartEstimator.Search search : StartEstimator.Search.values()) {
                add(sha, search + " " + render(new StartEstimator(s, cluster, StartEstimator.Budget.UNLIMITED, search)
                        .run(plan)));
            }
            // Passes cut short by a budget of searches, the second going on where the first stopped:
            // jobs kept where the first put them, and rough times for the rest.
            StartEstimator budgeted = new StartEstimator(s, cluster, new StartEstimator.Budget(2, 0));
            StartEstimates first = budgeted.run(plan);
            add(sha, "budgeted " + render(first) + render(budgeted.run(plan, first)));
        }
        return preemptions;
    }

    /** Cycles of teams with guarantees borrowing from each other, so that reclaims happen. */
    private static void quotas(int runs, Engine engine, MessageDigest sha) {
        int reclaims = 0;
        for (long seed = 0; seed < runs; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int n = 2 + r.nextInt(4);
            List<Node> nodes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                nodes.add(new Node("n" + i, 64, 512_000, 8, "h100", Set.of(), NodeState.UP, null, null));
            }
            Partition part = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
            int teams = 2 + r.nextInt(2);
            List<Quota> quotas = new ArrayList<>();
            quotas.add(Quota.none("root", null));
            int left = 8 * n - r.nextInt(2 * n + 1);
            for (int t = 0; t < teams; t++) {
                long g = t == teams - 1 ? left : r.nextInt(left + 1);
                left -= (int) g;
                quotas.add(new Quota("t" + t, "root", g == 0 ? Map.of() : Map.of(Quota.ANY, g),
                        r.nextBoolean() ? Map.of() : Map.of(Quota.ANY, (long) r.nextInt(8 * n)), Map.of()));
            }
            List<Qos> qos = List.of(Qos.named("normal", 0));
            long minRuntime = r.nextInt(3) * 120L;
            long now = 1_000_000;
            long nextId = 1;
            List<RunningJob> running = new ArrayList<>();
            List<PendingJob> pending = new ArrayList<>();
            Map<JobId, Long> endAt = new HashMap<>();
            Set<JobId> stopping = new HashSet<>();
            Set<JobId> borrowing = Set.of();
            Map<JobId, Map<String, String>> borrowedAt = Map.of();
            for (int cycle = 0; cycle < 40; cycle++) {
                for (int k = r.nextInt(4); k > 0; k--) {
                    String team = "t" + r.nextInt(teams);
                    long limit = 600 + r.nextInt(7200);
                    pending.add(new PendingJob(JobId.of(nextId++), "u" + team, team, "normal", List.of("p"),
                            Request.builder().nodes(1).gpusPerNode(1 << r.nextInt(4)).build(), limit, now, now, 0,
                            null));
                }
                Snapshot s = Snapshot.builder().now(now).nodes(nodes).partitions(List.of(part)).running(running)
                        .pending(pending).qos(qos)
                        .quotas(new QuotaTree(quotas, minRuntime, Set.copyOf(stopping), borrowing, borrowedAt))
                        .build();
                Plan plan = engine.plan(s);
                add(sha, "seed " + seed + " cycle " + cycle + "\n" + render(plan));
                reclaims += plan.preemptions().size();
                for (Preemption p : plan.preemptions()) {
                    stopping.add(p.victim());
                    endAt.put(p.victim(), Math.min(endAt.get(p.victim()), now + 60));
                }
                for (Start st : plan.starts()) {
                    PendingJob job = pending.stream().filter(j -> j.id().equals(st.job())).findFirst().orElseThrow();
                    pending.remove(job);
                    running.add(new RunningJob(job.id(), job.user(), job.account(), job.qos(), st.partition(),
                            st.allocation(), now, st.expectedEnd()));
                    endAt.put(job.id(), now + 60 + r.nextInt((int) job.timeLimitSeconds()));
                }
                borrowing = plan.borrowing();
                borrowedAt = plan.borrowedAt();
                now += 30 + r.nextInt(60);
                long t = now;
                running.removeIf(j -> endAt.get(j.id()) <= t);
                stopping.removeIf(id -> endAt.get(id) <= t);
            }
        }
        assertThat(reclaims).as("the quota runs must reclaim, or they say nothing of the victim picker")
                .isGreaterThan(runs / 4);
    }

    /** Every field of the plan, sets and maps in a fixed order. */
    static String render(Plan plan) {
        StringBuilder sb = new StringBuilder();
        sb.append("now ").append(plan.now()).append('\n');
        plan.starts().forEach(s -> sb.append(s).append('\n'));
        plan.waiting().forEach(w -> sb.append(w).append('\n'));
        plan.preemptions().forEach(p -> sb.append(p).append('\n'));
        plan.borrowing().stream().sorted().forEach(id -> sb.append("borrows ").append(id).append('\n'));
        new TreeMap<>(plan.borrowedAt()).forEach((id, at) -> sb.append("borrowed ").append(id).append(' ')
                .append(new TreeMap<>(at)).append('\n'));
        return sb.toString();
    }

    /** Every estimate, and how the pass ended; not how long it took. */
    static String render(StartEstimates e) {
        StringBuilder sb = new StringBuilder();
        sb.append("cut ").append(e.cutShort()).append(" carried ").append(e.carried()).append(" resume ")
                .append(e.resumeAt()).append('\n');
        e.estimates().forEach(x -> sb.append(x).append('\n'));
        return sb.toString();
    }

    private static void add(MessageDigest sha, String s) {
        sha.update(s.getBytes(StandardCharsets.UTF_8));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> recorded() throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (InputStream in = GoldenPlansTests.class.getResourceAsStream("/engine/golden-plans.sha256")) {
            assertThat(in).as("src/test/resources/engine/golden-plans.sha256").isNotNull();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    String[] f = line.trim().split("\\s+");
                    m.put(f[1], f[0]);
                }
            }
        }
        return m;
    }
}
