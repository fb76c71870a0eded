package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * Blocks you can require, over many cycles on random clusters: random switch trees, blocks of
 * random sizes (some nodes in none), a queue mixing --exclusive=topo jobs, --segment jobs (some of the
 * whole node count), --switches jobs and plain ones, and jobs ending as time passes. After every
 * cycle: no job shares a node of a topo job's blocks, a topo job or a --segment=N job that fits one
 * block is in exactly one, --segment groups stay whole in their blocks, a job asking for N leaf
 * switches while it may still wait spans at most N, and the engine's general invariants hold.
 */
class BlockPropertyTests {

    private static final int SEEDS = 300;
    private static final int CYCLES = 12;
    private static final int CPUS = 4;
    private static final long STEP = 900;

    /** What the test remembers of each job, to check the allocation it got. */
    private record Asked(Request request) {
    }

    @Test
    void topo_and_segment_jobs_keep_their_blocks_cycle_after_cycle() {
        int topoStarts = 0;
        int oneBlockChecks = 0;
        int topoWaits = 0;
        for (long seed = 0; seed < SEEDS; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            List<Node> nodes = new ArrayList<>();
            List<Switch> switches = new ArrayList<>();
            cluster(r, nodes, switches);
            Map<String, Node> byName = new HashMap<>();
            nodes.forEach(n -> byName.put(n.name(), n));
            Map<String, Integer> blockSize = new HashMap<>();
            nodes.stream().filter(n -> n.block() != null).forEach(n -> blockSize.merge(n.block(), 1, Integer::sum));
            int largestBlock = blockSize.values().stream().mapToInt(Integer::intValue).max().orElse(0);

            List<String> names = nodes.stream().map(Node::name).toList();
            List<Partition> partitions = List.of(new Partition("p0", names, 0, 0, true));
            Cluster indexed = new Cluster(nodes, partitions, switches);
            Map<JobId, Asked> asked = new HashMap<>();
            List<PendingJob> pending = new ArrayList<>();
            List<RunningJob> running = new ArrayList<>();
            long now = 1_000_000;
            long nextId = 1;
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                for (int k = r.nextInt(5); k > 0; k--) {
                    JobId id = JobId.of(nextId++);
                    Request request = request(r, nodes.size(), largestBlock);
                    asked.put(id, new Asked(request));
                    pending.add(new PendingJob(id, "u" + r.nextInt(3), "acct", "normal", List.of("p0"), request,
                            1800 + r.nextInt(4) * 1800L, now, now, 0, null));
                }
                long t = now;
                running.removeIf(j -> j.expectedEnd() <= t);
                Snapshot s = new Snapshot(now, nodes, partitions, switches, running, pending,
                        List.of(new Qos("normal", 0, 0, 0, null, null, null)), List.of(), Policy.easy());
                Plan plan = new Engine().plan(s);
                Invariants.check(s, plan);
                String where = "seed " + seed + " cycle " + cycle;
                for (Start st : plan.starts()) {
                    Request req = asked.get(st.job()).request();
                    Set<String> blocks = blocksOf(st.allocation(), byName);
                    if (req.topoExclusive()) {
                        topoStarts++;
                    }
                    // Without any block (a few random clusters) there is nothing to keep a job in.
                    if (largestBlock > 0 && (req.topoExclusive() && req.nodes() <= largestBlock
                            || req.segment() == req.nodes())) {
                        oneBlockChecks++;
                        assertThat(blocks).as("%s: job %s fits one block and asked for it", where, st.job())
                                .hasSize(1);
                        if (req.nodes() > 1) {
                            // One node never straddles blocks, in one or on a node in none.
                            assertThat(blocks).as("%s: job %s %s spans nodes outside the blocks %s", where, st.job(), req, st.allocation())
                                    .doesNotContainNull();
                        }
                    }
                    if (largestBlock > 0 && req.segment() > 0 && req.nodes() > 1) {
                        Map<String, Integer> perBlock = new HashMap<>();
                        st.allocation().forEach(a -> perBlock.merge(String.valueOf(byName.get(a.node()).block()),
                                1, Integer::sum));
                        assertThat(perBlock.keySet()).as("%s: --segment job %s", where, st.job()).doesNotContain("null");
                        assertThat(perBlock.values()).as("%s: whole groups of %d per block", where, req.segment())
                                .allSatisfy(n -> assertThat(n % req.segment()).isZero());
                    }
                    if (req.switches() > 0) {
                        assertThat(Placement.leavesSpanned(indexed,
                                st.allocation().stream().mapToInt(a -> names.indexOf(a.node())).toArray()))
                                .as("%s: job %s asked for at most %d leaf switches and waits a day for them", where,
                                        st.job(), req.switches()).isLessThanOrEqualTo(req.switches());
                    }
                    running.add(new RunningJob(st.job(), "u", "acct", "normal", st.partition(), st.allocation(),
                            st.startTime(), st.expectedEnd(), req.topoExclusive()));
                    pending.removeIf(p -> p.id().equals(st.job()));
                }
                for (Waiting w : plan.waiting()) {
                    if (asked.get(w.job()).request().topoExclusive() && w.reason() == PendingReason.TOPOLOGY_WAIT) {
                        topoWaits++;
                    }
                }
                assertTopoBlocksAreTheirOwn(where, running, byName);
                now += STEP;
            }
        }
        assertThat(topoStarts).as("topo jobs started").isGreaterThan(SEEDS);
        assertThat(oneBlockChecks).as("jobs that had to land in one block").isGreaterThan(SEEDS);
        assertThat(topoWaits).as("topo jobs told they wait for a whole block").isGreaterThan(SEEDS / 10);
    }

    @Test
    void a_reserved_topo_job_keeps_its_whole_block_from_backfill() {
        // Block b0 (4 nodes) is half busy for an hour; the topo job reserves it (b1 is busy for ten),
        // and short jobs that would fit in b0's free nodes must not start there if they would overlap.
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            nodes.add(new Node(EngineFixtures.nodeName(i), CPUS, 16_000, 0, null, Set.of(), NodeState.UP, null,
                    i < 4 ? "b0" : "b1"));
        }
        long now = 1_000_000;
        List<RunningJob> running = new ArrayList<>();
        for (int i : new int[] {0, 1, 4, 5, 6, 7}) {
            running.add(new RunningJob(JobId.of(50 + i), "o", "acct", "normal", "p0",
                    List.of(new NodeAllocation(EngineFixtures.nodeName(i), CPUS, 0, List.of())), now - 10,
                    i < 4 ? now + 3600 : now + 36_000));
        }
        PendingJob topo = new PendingJob(JobId.of(1), "u", "acct", "normal", List.of("p0"),
                Request.builder().nodes(2).tasks(2).topoExclusive(true).build(), 7200, now - 100, now - 100, 0, null);
        PendingJob longFiller = new PendingJob(JobId.of(2), "u", "acct", "normal", List.of("p0"),
                Request.builder().nodes(1).build(), 7200, now - 50, now - 50, 0, null);
        PendingJob shortFiller = new PendingJob(JobId.of(3), "u", "acct", "normal", List.of("p0"),
                Request.builder().nodes(1).build(), 1800, now - 40, now - 40, 0, null);
        List<String> names = nodes.stream().map(Node::name).toList();
        Snapshot s = new Snapshot(now, nodes, List.of(new Partition("p0", names, 0, 0, true)), List.of(), running,
                List.of(topo, longFiller, shortFiller), List.of(new Qos("normal", 0, 0, 0, null, null, null)),
                List.of(), Policy.easy());
        Plan plan = new Engine().plan(s);
        Invariants.check(s, plan);
        Waiting w = plan.waiting().stream().filter(x -> x.job().equals(topo.id())).findFirst().orElseThrow();
        assertThat(w.reason()).as("two nodes are free in b0, but not the whole block")
                .isEqualTo(PendingReason.TOPOLOGY_WAIT);
        assertThat(w.expectedStart()).hasValue(now + 3600);
        for (Start st : plan.starts()) {
            for (NodeAllocation a : st.allocation()) {
                int i = names.indexOf(a.node());
                assertThat(i < 4 && st.expectedEnd() > now + 3600)
                        .as("job %s on %s would run into the topo job's block reservation", st.job(), a.node())
                        .isFalse();
            }
        }
        assertThat(plan.starts()).extracting(Start::job).as("the short job backfills; the long one may not")
                .contains(shortFiller.id()).doesNotContain(longFiller.id());
    }

    private static void assertTopoBlocksAreTheirOwn(String where, List<RunningJob> running, Map<String, Node> byName) {
        Map<String, JobId> owner = new HashMap<>();
        for (RunningJob j : running) {
            if (j.topoExclusive()) {
                for (String b : blocksOf(j.allocation(), byName)) {
                    if (b != null) {
                        JobId before = owner.put(b, j.id());
                        assertThat(before).as("%s: block %s held by topo jobs %s and %s", where, b, before, j.id())
                                .isNull();
                    }
                }
            }
        }
        for (RunningJob j : running) {
            for (String b : blocksOf(j.allocation(), byName)) {
                JobId topo = owner.get(b);
                assertThat(topo == null || topo.equals(j.id())).as("%s: job %s runs in block %s of topo job %s",
                        where, j.id(), b, topo).isTrue();
            }
        }
    }

    private static Set<String> blocksOf(List<NodeAllocation> allocation, Map<String, Node> byName) {
        Set<String> blocks = new HashSet<>();
        allocation.forEach(a -> blocks.add(byName.get(a.node()).block()));
        return blocks;
    }

    /** A topo, segment, switches or plain job of 1 to a few nodes, sometimes bigger than any block. */
    private static Request request(SplittableRandom r, int clusterSize, int largestBlock) {
        int n = 1 + r.nextInt(Math.max(1, Math.min(clusterSize / 2, largestBlock + 2)));
        Request.Builder b = Request.builder().nodes(n).tasks(n);
        switch (r.nextInt(5)) {
            case 0, 1 -> b.topoExclusive(true);
            case 2 -> {
                int[] divisors = java.util.stream.IntStream.rangeClosed(1, n).filter(d -> n % d == 0).toArray();
                b.segment(r.nextBoolean() ? n : divisors[r.nextInt(divisors.length)]).exclusive(true);
            }
            case 3 -> b.switches(1 + r.nextInt(2)).switchWaitSeconds(86_400).exclusive(r.nextBoolean());
            default -> b.cpusPerTask(1 + r.nextInt(CPUS));
        }
        return b.build();
    }

    /** 1-6 leaf switches of 1-6 nodes under 0-2 levels of parents; blocks of 2-6 consecutive nodes, some left out. */
    private static void cluster(SplittableRandom r, List<Node> nodes, List<Switch> switches) {
        int leaves = 1 + r.nextInt(6);
        List<String> leafOf = new ArrayList<>();
        for (int l = 0; l < leaves; l++) {
            for (int k = 1 + r.nextInt(6); k > 0; k--) {
                leafOf.add("leaf" + l);
            }
        }
        int parents = r.nextInt(3);
        for (int l = 0; l < leaves; l++) {
            switches.add(new Switch("leaf" + l, parents == 0 ? null : "top" + (l % parents)));
        }
        for (int p = 0; p < parents; p++) {
            switches.add(new Switch("top" + p, parents > 1 ? "root" : null));
        }
        if (parents > 1) {
            switches.add(new Switch("root", null));
        }
        int i = 0;
        int block = 0;
        while (i < leafOf.size()) {
            int size = 2 + r.nextInt(5);
            boolean inBlock = r.nextInt(5) != 0;
            for (int k = 0; k < size && i < leafOf.size(); k++, i++) {
                nodes.add(new Node(EngineFixtures.nodeName(i), CPUS, 16_000, 0, null, Set.of(), NodeState.UP,
                        leafOf.get(i), inBlock ? "b" + block : null));
            }
            block += inBlock ? 1 : 0;
        }
    }
}
