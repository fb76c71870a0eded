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
 * Placement on random switch trees (one to four levels, some nodes on no switch, some nodes busy):
 * a job lands under the lowest switch that could hold it, and a job that asks for at most N leaf
 * switches (--switches=N@wait) never spans more while it may still wait, waits (TopologyWait) only
 * when N leaves cannot hold it, and takes what there is once its wait is over; a job that asks for
 * one block, or for groups of nodes that each share a block (--segment), gets them whenever the
 * blocks hold them and waits (TopologyWait) otherwise.
 */
class TopologyPropertyTests {

    private static final int CASES = 4000;
    private static final int CPUS = 4;

    /** A random forest of switches over the nodes, with the answers computed the slow, obvious way. */
    private record Tree(List<Node> nodes, List<Switch> switches, Map<String, String> parentOf,
            Map<String, Integer> level, Set<String> busy) {

        /** The switches above a node, its leaf first; a node on no switch is a leaf of its own. */
        List<String> path(Node n) {
            List<String> path = new ArrayList<>();
            String s = n.switchName() == null ? "own:" + n.name() : n.switchName();
            while (s != null) {
                path.add(s);
                s = parentOf.get(s);
            }
            return path;
        }

        int levelOf(String s) {
            return level.getOrDefault(s, 0);
        }

        List<Node> free() {
            return nodes.stream().filter(n -> !busy.contains(n.name())).toList();
        }

        /** Free nodes under each switch (leaves included). */
        Map<String, Integer> freeUnder() {
            Map<String, Integer> count = new HashMap<>();
            for (Node n : free()) {
                for (String s : path(n)) {
                    count.merge(s, 1, Integer::sum);
                }
            }
            return count;
        }

        /** Free nodes of each leaf under switch {@code top} (null: everywhere). */
        List<Integer> freeLeavesUnder(String top) {
            Map<String, Integer> perLeaf = new HashMap<>();
            for (Node n : free()) {
                List<String> path = path(n);
                if (top == null || path.contains(top)) {
                    perLeaf.merge(path.get(0), 1, Integer::sum);
                }
            }
            List<Integer> sizes = new ArrayList<>(perLeaf.values());
            sizes.sort((a, b) -> b - a);
            return sizes;
        }

        /** The level of the lowest switch above all of {@code chosen}; MAX_VALUE when no switch is. */
        int spanLevel(List<Node> chosen) {
            Set<String> common = null;
            for (Node n : chosen) {
                Set<String> above = new HashSet<>(path(n));
                if (common == null) {
                    common = above;
                } else {
                    common.retainAll(above);
                }
            }
            return common.stream().mapToInt(this::levelOf).min().orElse(Integer.MAX_VALUE);
        }

        int leavesSpanned(List<Node> chosen) {
            return (int) chosen.stream().map(n -> path(n).get(0)).distinct().count();
        }
    }

    @Test
    void a_job_lands_under_the_lowest_switch_that_holds_it() {
        int started = 0;
        for (long seed = 0; seed < CASES; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            Tree tree = tree(r);
            int want = 1 + r.nextInt(tree.nodes().size());
            Plan plan = plan(tree, want, 0, 0, 0);
            int free = tree.free().size();
            assertThat(plan.starts().size()).as("seed %d: starts iff %d free nodes hold %d", seed, free, want)
                    .isEqualTo(free >= want ? 1 : 0);
            if (free < want) {
                continue;
            }
            started++;
            int lowest = tree.freeUnder().entrySet().stream().filter(e -> e.getValue() >= want)
                    .mapToInt(e -> tree.levelOf(e.getKey())).min().orElse(Integer.MAX_VALUE);
            assertThat(tree.spanLevel(chosen(tree, plan))).as("seed %d: the span's level", seed).isEqualTo(lowest);
        }
        assertThat(started).isGreaterThan(CASES / 4);
    }

    @Test
    void a_job_asking_for_n_leaf_switches_never_spans_more_while_it_may_wait() {
        int waited = 0;
        int startedWithin = 0;
        for (long seed = 0; seed < CASES; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            Tree tree = tree(r);
            int want = 1 + r.nextInt(tree.nodes().size());
            int maxLeaves = 1 + r.nextInt(3);
            Plan plan = plan(tree, want, maxLeaves, 3600, 60);
            List<Integer> leaves = tree.freeLeavesUnder(null);
            int biggest = leaves.stream().limit(maxLeaves).mapToInt(Integer::intValue).sum();
            boolean fitsInLeaves = biggest >= want;
            assertThat(plan.starts().size()).as("seed %d: starts iff %d leaves hold %d", seed, maxLeaves, want)
                    .isEqualTo(fitsInLeaves ? 1 : 0);
            if (fitsInLeaves) {
                startedWithin++;
                List<Node> chosen = chosen(tree, plan);
                assertThat(tree.leavesSpanned(chosen)).as("seed %d", seed).isLessThanOrEqualTo(maxLeaves);
                // The lowest switch whose biggest leaves hold it.
                int lowest = Integer.MAX_VALUE;
                for (String s : tree.freeUnder().keySet()) {
                    int sum = tree.freeLeavesUnder(s).stream().limit(maxLeaves).mapToInt(Integer::intValue).sum();
                    if (sum >= want) {
                        lowest = Math.min(lowest, tree.levelOf(s));
                    }
                }
                assertThat(tree.spanLevel(chosen)).as("seed %d: the span's level", seed).isEqualTo(lowest);
            } else if (tree.free().size() >= want) {
                waited++;
                assertThat(plan.waiting()).singleElement().extracting(Waiting::reason)
                        .as("seed %d", seed).isEqualTo(PendingReason.TOPOLOGY_WAIT);
            }
        }
        assertThat(waited).isGreaterThan(CASES / 20);
        assertThat(startedWithin).isGreaterThan(CASES / 4);
    }

    @Test
    void once_its_switch_wait_is_over_a_job_takes_any_leaves() {
        for (long seed = 0; seed < CASES; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            Tree tree = tree(r);
            int want = 1 + r.nextInt(tree.nodes().size());
            Plan plan = plan(tree, want, 1 + r.nextInt(3), 300, 300 + r.nextInt(1000));
            assertThat(plan.starts().size()).as("seed %d", seed).isEqualTo(tree.free().size() >= want ? 1 : 0);
        }
    }

    @Test
    void a_job_that_asks_for_one_block_or_segments_gets_them_whenever_the_blocks_hold_them() {
        int started = 0;
        int waited = 0;
        for (long seed = 0; seed < CASES; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            List<Node> nodes = new ArrayList<>();
            int blocks = 1 + r.nextInt(5);
            for (int b = 0; b < blocks; b++) {
                for (int k = 1 + r.nextInt(6); k > 0; k--) {
                    nodes.add(new Node(EngineFixtures.nodeName(nodes.size()), CPUS, 16_000, 0, null, Set.of(),
                            NodeState.UP, null, "b" + b));
                }
            }
            for (int k = r.nextInt(3); k > 0; k--) {
                nodes.add(node(nodes.size(), null));
            }
            Set<String> busy = new HashSet<>();
            nodes.forEach(n -> {
                if (r.nextInt(3) == 0) {
                    busy.add(n.name());
                }
            });
            int segment = 1 + r.nextInt(4);
            int want = segment * (1 + r.nextInt(3));
            boolean whole = r.nextBoolean();
            if (whole) {
                segment = want;
            }
            Map<String, Integer> freePerBlock = new HashMap<>();
            for (Node n : nodes) {
                if (!busy.contains(n.name()) && n.block() != null) {
                    freePerBlock.merge(n.block(), 1, Integer::sum);
                }
            }
            int seg = segment;
            int groupsHeld = freePerBlock.values().stream().mapToInt(f -> f / seg).sum();
            Request request = Request.builder().nodes(want).tasks(want).exclusive(true).segment(segment).build();
            Plan plan = planOn(nodes, busy, request);
            boolean fits = groupsHeld >= want / segment;
            assertThat(plan.starts().size()).as("seed %d: %d nodes in groups of %d, blocks free %s", seed, want,
                    segment, freePerBlock).isEqualTo(fits ? 1 : 0);
            if (fits) {
                started++;
                Map<String, Integer> perBlock = new HashMap<>();
                Map<String, Node> byName = new HashMap<>();
                nodes.forEach(n -> byName.put(n.name(), n));
                for (NodeAllocation a : plan.starts().get(0).allocation()) {
                    String block = byName.get(a.node()).block();
                    assertThat(block).as("seed %d: a node outside every block", seed).isNotNull();
                    perBlock.merge(block, 1, Integer::sum);
                }
                assertThat(perBlock.values()).as("seed %d: whole groups in each block", seed)
                        .allSatisfy(count -> assertThat(count % seg).isZero());
            } else if (nodes.size() - busy.size() >= want) {
                Map<String, Integer> perBlock = new HashMap<>();
                nodes.stream().filter(n -> n.block() != null).forEach(n -> perBlock.merge(n.block(), 1, Integer::sum));
                boolean ever = perBlock.values().stream().mapToInt(f -> f / seg).sum() >= want / seg;
                waited += ever ? 1 : 0;
                assertThat(plan.waiting().get(0).reason()).as("seed %d: enough nodes free, not in blocks", seed)
                        .isEqualTo(ever ? PendingReason.TOPOLOGY_WAIT : PendingReason.PARTITION_CONFIG);
            }
        }
        assertThat(started).isGreaterThan(CASES / 5);
        assertThat(waited).isGreaterThan(CASES / 50);
    }

    private static Plan planOn(List<Node> nodes, Set<String> busy, Request request) {
        long now = 1_000_000;
        List<RunningJob> running = new ArrayList<>();
        long id = 1;
        for (String name : busy) {
            running.add(new RunningJob(JobId.of(id++), "other", "acct", "normal", "p0",
                    List.of(new NodeAllocation(name, CPUS, 0, List.of())), now - 100, now + 36_000));
        }
        PendingJob job = new PendingJob(JobId.of(100), "u", "acct", "normal", List.of("p0"), request, 3600, now - 60,
                now - 60, 0, null);
        List<String> names = nodes.stream().map(Node::name).toList();
        Snapshot s = new Snapshot(now, nodes, List.of(new Partition("p0", names, 0, 0, true)), List.of(), running,
                List.of(job), List.of(new Qos("normal", 0, 0, 0, null, null, null)), List.of(), Policy.easy());
        return new Engine().plan(s);
    }

    @Test
    void plans_on_random_trees_keep_the_engines_invariants() {
        for (long seed = 0; seed < 1500; seed++) {
            Snapshot s = RandomSnapshots.withSwitchTree(seed);
            Plan plan = new Engine().plan(s);
            Invariants.check(s, plan);
            assertThat(new Engine().plan(s)).as("seed %d: same snapshot, same plan", seed).isEqualTo(plan);
        }
    }

    private static List<Node> chosen(Tree tree, Plan plan) {
        Map<String, Node> byName = new HashMap<>();
        tree.nodes().forEach(n -> byName.put(n.name(), n));
        return plan.starts().get(0).allocation().stream().map(a -> byName.get(a.node())).toList();
    }

    /** One exclusive job of {@code want} nodes on the tree, eligible {@code waited} seconds ago. */
    private static Plan plan(Tree tree, int want, int maxLeaves, long switchWait, long waited) {
        long now = 1_000_000;
        List<RunningJob> running = new ArrayList<>();
        long id = 1;
        for (String name : tree.busy()) {
            running.add(new RunningJob(JobId.of(id++), "other", "acct", "normal", "p0",
                    List.of(new NodeAllocation(name, CPUS, 0, List.of())), now - 100, now + 36_000));
        }
        Request request = Request.builder().nodes(want).tasks(want).exclusive(true).switches(maxLeaves)
                .switchWaitSeconds(switchWait).build();
        PendingJob job = new PendingJob(JobId.of(100), "u", "acct", "normal", List.of("p0"), request, 3600,
                now - waited, now - waited, 0, null);
        List<String> names = tree.nodes().stream().map(Node::name).toList();
        Snapshot s = new Snapshot(now, tree.nodes(), List.of(new Partition("p0", names, 0, 0, true)), tree.switches(),
                running, List.of(job), List.of(new Qos("normal", 0, 0, 0, null, null, null)), List.of(),
                Policy.easy());
        return new Engine().plan(s);
    }

    /** Leaves of 1-6 nodes, 0-3 nodes on no switch, 0-3 levels of inner switches grouping 1-3 below each. */
    private static Tree tree(SplittableRandom r) {
        List<Node> nodes = new ArrayList<>();
        int leafCount = 1 + r.nextInt(8);
        List<String> tops = new ArrayList<>();
        for (int l = 0; l < leafCount; l++) {
            String leaf = "leaf" + l;
            tops.add(leaf);
            for (int k = 1 + r.nextInt(6); k > 0; k--) {
                nodes.add(node(nodes.size(), leaf));
            }
        }
        for (int k = r.nextInt(4); k > 0; k--) {
            nodes.add(node(nodes.size(), null));
        }
        Map<String, String> parentOf = new HashMap<>();
        Map<String, Integer> level = new HashMap<>();
        List<Switch> switches = new ArrayList<>();
        int levels = r.nextInt(4);
        for (int lv = 1; lv <= levels && tops.size() > 1; lv++) {
            List<String> next = new ArrayList<>();
            int i = 0;
            while (i < tops.size()) {
                int group = Math.min(tops.size() - i, 1 + r.nextInt(3));
                String parent = "s" + lv + "_" + next.size();
                int lvl = 0;
                for (String child : tops.subList(i, i + group)) {
                    parentOf.put(child, parent);
                    lvl = Math.max(lvl, level.getOrDefault(child, 0) + 1);
                }
                level.put(parent, lvl);
                next.add(parent);
                i += group;
            }
            tops = next;
        }
        for (int l = 0; l < leafCount; l++) {
            switches.add(new Switch("leaf" + l, parentOf.get("leaf" + l)));
        }
        for (String inner : level.keySet()) {
            switches.add(new Switch(inner, parentOf.get(inner)));
        }
        // Shuffle the list: the engine must not depend on its order.
        for (int i = switches.size() - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            Switch t = switches.get(i);
            switches.set(i, switches.get(j));
            switches.set(j, t);
        }
        Set<String> busy = new HashSet<>();
        for (Node n : nodes) {
            if (r.nextInt(3) == 0) {
                busy.add(n.name());
            }
        }
        return new Tree(List.copyOf(nodes), List.copyOf(switches), parentOf, level, busy);
    }

    private static Node node(int i, String leaf) {
        return new Node(EngineFixtures.nodeName(i), CPUS, 16_000, 0, null, Set.of(), NodeState.UP, leaf, null);
    }
}
