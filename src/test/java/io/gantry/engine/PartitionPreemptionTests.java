package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/**
 * Slurm's PreemptType=preempt/partition_prio: a job of a partition of a higher PriorityTier that cannot
 * start otherwise stops the fewest jobs of partitions of a lower tier on the nodes the two share, each as
 * its own partition's PreemptMode says; OFF partitions, the same tier and higher tiers are never touched,
 * and with preempt/qos (the default) partition modes change nothing.
 */
class PartitionPreemptionTests {

    private static final long NOW = 1_000_000;
    private final Engine engine = new Engine();

    private static List<Node> nodes() {
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            nodes.add(new Node("n" + i, 16, 64_000, 4, "h100", Set.of(), NodeState.UP, null, null));
        }
        return nodes;
    }

    private static Partition partition(String name, List<String> nodes, int tier, Partition.PreemptMode mode) {
        return new Partition(name, nodes, 0, tier, true, MemoryDefault.NONE, mode);
    }

    /** hi (tier 2) on n1 and n2; lo (tier 1, REQUEUE) and scavenger (tier 0, CANCEL) on all; off (tier 0) on all. */
    private static List<Partition> partitions(Partition.PreemptMode loMode) {
        List<String> all = List.of("n1", "n2", "n3");
        return List.of(partition("hi", List.of("n1", "n2"), 2, Partition.PreemptMode.OFF),
                partition("lo", all, 1, loMode), partition("scavenger", all, 0, Partition.PreemptMode.CANCEL),
                partition("off", all, 0, Partition.PreemptMode.OFF), partition("hi2", all, 2, Partition.PreemptMode.REQUEUE));
    }

    private static RunningJob running(long id, String partition, String node, List<Integer> gpus, long started) {
        return new RunningJob(JobId.of(id), "bob", "root", "normal", partition,
                List.of(new NodeAllocation(node, 2, 1000, gpus)), started, started + 86_400);
    }

    private static PendingJob pending(long id, String partition, int gpusPerNode) {
        Request r = Request.builder().nodes(1).gpusPerNode(gpusPerNode).build();
        return new PendingJob(JobId.of(id), "alice", "root", "normal", List.of(partition), r, 3600, NOW - 5, NOW - 5,
                0, null);
    }

    private Plan plan(Preemption.Type type, List<Partition> partitions, List<RunningJob> running,
            List<PendingJob> pending) {
        return engine.plan(Snapshot.builder().now(NOW).nodes(nodes()).partitions(partitions).running(running)
                .pending(pending).qos(List.of(Qos.named("normal", 0))).preemptType(type).build());
    }

    private Plan plan(List<RunningJob> running, List<PendingJob> pending) {
        return plan(Preemption.Type.PARTITION_PRIO, partitions(Partition.PreemptMode.REQUEUE), running, pending);
    }

    /** Every GPU of n1, n2 and n3 taken by jobs of {@code partition}, the youngest on n2. */
    private static List<RunningJob> full(String partition) {
        return List.of(running(1, partition, "n1", List.of(0, 1, 2, 3), NOW - 4000),
                running(2, partition, "n2", List.of(0, 1), NOW - 3000), running(3, partition, "n2", List.of(2, 3), NOW - 100),
                running(4, partition, "n3", List.of(0, 1, 2, 3), NOW - 10));
    }

    @Test
    void aJobOfAHigherTierStopsTheYoungestLowerTierJobOnANodeItsPartitionHasAndStartsThere() {
        Plan plan = plan(full("lo"), List.of(pending(10, "hi", 2)));
        // Job 4 on n3 is younger, but hi has no n3: job 3 on n2 makes room.
        assertThat(plan.preemptions()).containsExactly(new Preemption(JobId.of(3), JobId.of(10),
                Preemption.Mode.REQUEUE, false, "partition hi (PriorityTier 2) may preempt partition lo (PriorityTier 1)"));
        Start start = plan.start(JobId.of(10)).orElseThrow();
        assertThat(start.partition()).isEqualTo("hi");
        assertThat(start.allocation().get(0).node()).isEqualTo("n2");
        assertThat(start.allocation().get(0).gpuIndices()).containsExactly(2, 3);
    }

    @Test
    void theVictimsPartitionSaysWhetherItIsRequeuedCancelledOrSuspended() {
        for (Partition.PreemptMode mode : List.of(Partition.PreemptMode.CANCEL, Partition.PreemptMode.SUSPEND,
                Partition.PreemptMode.REQUEUE)) {
            Plan plan = plan(Preemption.Type.PARTITION_PRIO, partitions(mode), full("lo"), List.of(pending(10, "hi", 2)));
            assertThat(plan.preemptions()).extracting(Preemption::mode).as("lo's PreemptMode %s", mode)
                    .containsExactly(mode.mode());
            assertThat(plan.start(JobId.of(10))).isPresent();
        }
    }

    @Test
    void theLowestTierIsStoppedFirstThenAsFewAsPossible() {
        List<RunningJob> running = List.of(running(1, "lo", "n1", List.of(0, 1), NOW - 10),
                running(2, "lo", "n1", List.of(2, 3), NOW - 20), running(3, "scavenger", "n2", List.of(0, 1), NOW - 4000),
                running(4, "lo", "n2", List.of(2, 3), NOW - 30));
        Plan plan = plan(running, List.of(pending(10, "hi", 2)));
        assertThat(plan.preemptions()).extracting(Preemption::victim, Preemption::mode)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(JobId.of(3), Preemption.Mode.CANCEL));
    }

    @Test
    void jobsOfTheSameOrAHigherTierAreNeverStopped() {
        List<RunningJob> running = List.of(running(1, "hi", "n1", List.of(0, 1, 2, 3), NOW - 10),
                running(2, "hi2", "n2", List.of(0, 1, 2, 3), NOW - 10), running(3, "hi2", "n3", List.of(0, 1, 2, 3), NOW - 10));
        Plan same = plan(running, List.of(pending(10, "hi", 1)));
        assertThat(same.preemptions()).isEmpty();
        assertThat(same.start(JobId.of(10))).isEmpty();
        Plan lower = plan(full("hi"), List.of(pending(11, "lo", 1), pending(12, "scavenger", 1)));
        assertThat(lower.preemptions()).isEmpty();
        assertThat(lower.starts()).isEmpty();
        assertThat(lower.reasons().get(JobId.of(11))).isEqualTo(PendingReason.RESOURCES);
    }

    @Test
    void jobsOfAnOffPartitionAreNeverStopped() {
        Plan plan = plan(full("off"), List.of(pending(10, "hi", 2), pending(11, "lo", 1)));
        assertThat(plan.preemptions()).isEmpty();
        assertThat(plan.starts()).isEmpty();
        Plan lo = plan(Preemption.Type.PARTITION_PRIO, partitions(Partition.PreemptMode.OFF), full("lo"),
                List.of(pending(10, "hi", 2)));
        assertThat(lo.preemptions()).isEmpty();
    }

    @Test
    void aJobThatRanLessThanItsQosExemptTimeIsNotChosen() {
        Qos exempt = Qos.named("normal", 0).withPreemptTimes(0, 600);
        Plan plan = engine.plan(Snapshot.builder().now(NOW).nodes(nodes()).partitions(partitions(Partition.PreemptMode.REQUEUE))
                .running(full("lo")).pending(List.of(pending(10, "hi", 2))).qos(List.of(exempt))
                .preemptType(Preemption.Type.PARTITION_PRIO).build());
        // Job 3 (n2) ran 100 s: job 2 beside it, which ran 3000 s, goes instead.
        assertThat(plan.preemptions()).extracting(Preemption::victim).containsExactly(JobId.of(2));
    }

    @Test
    void underQosPreemptionOrNoneTiersStopNothing() {
        for (Preemption.Type type : List.of(Preemption.Type.QOS, Preemption.Type.NONE)) {
            Plan plan = plan(type, partitions(Partition.PreemptMode.REQUEUE), full("scavenger"),
                    List.of(pending(10, "hi", 2)));
            assertThat(plan.preemptions()).as("%s", type).isEmpty();
            assertThat(plan.starts()).as("%s", type).isEmpty();
        }
    }

    @Test
    void underPreemptNoneAQosThatMayPreemptStopsNothing() {
        Qos high = new Qos("high", 100, 0, 0, null, null, null, Set.of("normal"), Preemption.Mode.REQUEUE);
        List<PendingJob> pending = List.of(new PendingJob(JobId.of(10), "alice", "root", "high", List.of("lo"),
                Request.builder().nodes(1).gpusPerNode(2).build(), 3600, NOW - 5, NOW - 5, 0, null));
        Snapshot.Builder b = Snapshot.builder().now(NOW).nodes(nodes()).partitions(partitions(Partition.PreemptMode.OFF))
                .running(full("lo")).pending(pending).qos(List.of(Qos.named("normal", 0), high));
        assertThat(engine.plan(b.build()).preemptions()).hasSize(1);
        assertThat(engine.plan(b.preemptType(Preemption.Type.NONE).build()).preemptions()).isEmpty();
        assertThat(engine.plan(b.preemptType(Preemption.Type.PARTITION_PRIO).build()).preemptions()).isEmpty();
    }

    /** Random snapshots whose running jobs are spread over the partitions, each partition with a random mode. */
    private static Snapshot spread(long seed) {
        Snapshot s = RandomSnapshots.of(seed);
        SplittableRandom r = new SplittableRandom(seed * 31 + 7);
        Partition.PreemptMode[] modes = Partition.PreemptMode.values();
        List<Partition> partitions = s.partitions().stream().map(p -> new Partition(p.name(), p.nodes(),
                p.maxTimeSeconds(), p.priorityTier(), p.up(), p.memoryDefault(), modes[r.nextInt(modes.length)])).toList();
        List<RunningJob> running = s.running().stream().map(j -> {
            List<Partition> holding = partitions.stream()
                    .filter(p -> j.allocation().stream().allMatch(a -> p.nodes().contains(a.node()))).toList();
            Partition p = holding.get(r.nextInt(holding.size()));
            return new RunningJob(j.id(), j.user(), j.account(), j.qos(), p.name(), j.allocation(),
                    j.startTime() - r.nextInt(5000), j.expectedEnd());
        }).toList();
        return s.toBuilder().partitions(partitions).running(running).build();
    }

    @Test
    void overRandomClustersEveryPartitionPreemptionStopsALowerTierJobOfANonOffPartitionOnTheStartsPartition() {
        int preemptions = 0;
        for (long n = 0; n < 1500; n++) {
            long seed = n;
            Snapshot s = spread(seed).toBuilder().preemptType(Preemption.Type.PARTITION_PRIO).build();
            Plan plan = engine.plan(s);
            Invariants.check(s, plan);
            Map<String, Partition> parts = s.partitions().stream()
                    .collect(Collectors.toMap(Partition::name, Function.identity()));
            Map<JobId, RunningJob> running = s.running().stream()
                    .collect(Collectors.toMap(RunningJob::id, Function.identity()));
            for (Preemption p : plan.preemptions()) {
                preemptions++;
                RunningJob victim = running.get(p.victim());
                Partition of = parts.get(victim.partition());
                Start by = plan.start(p.by()).orElseThrow(() -> new AssertionError("seed " + seed + ": "
                        + p.by() + " stopped " + p.victim() + " but does not start"));
                Partition in = parts.get(by.partition());
                assertThat(of.priorityTier()).as("seed %d: tier of %s", seed, p.victim()).isLessThan(in.priorityTier());
                assertThat(of.preemptMode()).as("seed %d", seed).isNotEqualTo(Partition.PreemptMode.OFF);
                assertThat(p.mode()).as("seed %d", seed).isEqualTo(of.preemptMode().mode());
                assertThat(victim.allocation()).as("seed %d", seed).anyMatch(a -> in.nodes().contains(a.node()));
                assertThat(p.cause()).as("seed %d", seed).contains("partition " + in.name(), "partition " + of.name());
            }
        }
        assertThat(preemptions).as("partition preemptions over the random clusters").isGreaterThan(20);
    }

    @Test
    void withPreemptQosPartitionModesChangeNoPlan() {
        for (long seed = 0; seed < 800; seed++) {
            Snapshot plain = RandomSnapshots.of(seed);
            Snapshot spread = spread(seed);
            Snapshot withoutModes = spread.toBuilder().partitions(plain.partitions()).build();
            assertThat(engine.plan(spread)).as("seed %d", seed).isEqualTo(engine.plan(withoutModes));
        }
    }
}
