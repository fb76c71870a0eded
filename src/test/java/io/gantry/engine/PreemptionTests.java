package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** QOS preemption: the fewest, youngest lower jobs make room for a job of a QOS allowed to stop them. */
class PreemptionTests {

    private static final long NOW = 1_000_000;
    private final Engine engine = new Engine();
    private static final Qos LOW = Qos.named("low", 0);
    private static final Qos HIGH = new Qos("high", 100, 0, 0, null, null, null, Set.of("low"), Preemption.Mode.REQUEUE);
    private static final Qos URGENT = new Qos("urgent", 200, 0, 0, null, null, null, Set.of("low"), Preemption.Mode.CANCEL);
    private static final Qos INTERACTIVE = new Qos("interactive", 150, 0, 0, null, null, null, Set.of("low"),
            Preemption.Mode.SUSPEND);

    private static List<Node> nodes() {
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            nodes.add(new Node("n" + i, 16, 64_000, 4, "h100", Set.of(), NodeState.UP, null, null));
        }
        return nodes;
    }

    private static RunningJob running(long id, String node, List<Integer> gpus, long started, String qos) {
        return new RunningJob(JobId.of(id), "bob", "root", qos, "p",
                List.of(new NodeAllocation(node, 2, 1000, gpus)), started, started + 86_400);
    }

    private static PendingJob pending(long id, String qos, int gpusPerNode) {
        Request r = Request.builder().nodes(1).gpusPerNode(gpusPerNode).build();
        return new PendingJob(JobId.of(id), "alice", "root", qos, List.of("p"), r, 3600, NOW - 5, NOW - 5, 0, null);
    }

    private Plan plan(List<RunningJob> running, List<PendingJob> pending) {
        return plan(running, pending, LOW, Set.of());
    }

    /** With {@code low} for QOS low, and {@code stopping}: victims already told to stop, in their grace time. */
    private Plan plan(List<RunningJob> running, List<PendingJob> pending, Qos low, Set<JobId> stopping) {
        List<Node> nodes = nodes();
        Partition p = new Partition("p", List.of("n1", "n2"), 0, 1, true);
        return engine.plan(Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).running(running)
                .pending(pending).qos(List.of(low, HIGH, URGENT, INTERACTIVE, Qos.named("normal", 0)))
                .quotas(new QuotaTree(List.of(), 0, stopping)).build());
    }

    /** n1: A (oldest) and B (youngest); n2: C and D; every GPU taken by QOS low. */
    private static List<RunningJob> full() {
        return List.of(running(1, "n1", List.of(0, 1), NOW - 4000, "low"), running(2, "n1", List.of(2, 3), NOW - 100, "low"),
                running(3, "n2", List.of(0, 1), NOW - 300, "low"), running(4, "n2", List.of(2, 3), NOW - 2000, "low"));
    }

    @Test
    void aHighQosJobStopsTheYoungestLowJobThatMakesRoom() {
        Plan plan = plan(full(), List.of(pending(10, "high", 2)));
        assertThat(plan.preemptions()).containsExactly(new Preemption(JobId.of(2), JobId.of(10), Preemption.Mode.REQUEUE));
        Start start = plan.start(JobId.of(10)).orElseThrow();
        assertThat(start.allocation().get(0).node()).isEqualTo("n1");
        assertThat(start.allocation().get(0).gpuIndices()).containsExactly(2, 3);
    }

    @Test
    void asFewJobsAsPossibleAreStoppedEvenWhenYoungerOnesAreTriedFirst() {
        // A whole node's four GPUs: stopping B (youngest, n1) is not enough; n2's C and D together are.
        Plan plan = plan(full(), List.of(pending(10, "high", 4)));
        assertThat(plan.preemptions()).extracting(Preemption::victim).containsExactlyInAnyOrder(JobId.of(3), JobId.of(4));
        assertThat(plan.start(JobId.of(10)).orElseThrow().allocation().get(0).node()).isEqualTo("n2");
    }

    @Test
    void theQosSaysWhetherVictimsAreRequeuedOrCancelled() {
        Plan plan = plan(full(), List.of(pending(10, "urgent", 2)));
        assertThat(plan.preemptions()).extracting(Preemption::mode).containsExactly(Preemption.Mode.CANCEL);
    }

    @Test
    void aQosThatMayNotPreemptWaitsAndNothingIsStopped() {
        Plan plan = plan(full(), List.of(pending(10, "normal", 2)));
        assertThat(plan.preemptions()).isEmpty();
        assertThat(plan.start(JobId.of(10))).isEmpty();
        assertThat(plan.reasons().get(JobId.of(10))).isEqualTo(PendingReason.RESOURCES);
    }

    @Test
    void whenEvenAllVictimsWouldNotMakeRoomNothingIsStoppedAndNobodyElseGetsTheirResources() {
        List<RunningJob> running = List.of(running(1, "n1", List.of(0, 1), NOW - 10, "low"),
                running(2, "n1", List.of(2, 3), NOW - 20, "high"), running(3, "n2", List.of(0, 1, 2, 3), NOW - 30, "high"));
        // Four GPUs on one node: n1 would still hold job 2 (high), n2 is all high.
        Plan plan = plan(running, List.of(pending(10, "high", 4), pending(11, "normal", 2)));
        assertThat(plan.preemptions()).isEmpty();
        assertThat(plan.starts()).isEmpty();
    }

    @Test
    void aJobThatRanLessThanItsQosExemptTimeIsNotChosenTheYoungestOfTheOthersIs() {
        // B (n1, 100 s) and C (n2, 300 s) ran less than 500 s: D (n2, 2,000 s) is the youngest one left.
        Plan plan = plan(full(), List.of(pending(10, "high", 2)), LOW.withPreemptTimes(0, 500), Set.of());
        assertThat(plan.preemptions()).containsExactly(new Preemption(JobId.of(4), JobId.of(10), Preemption.Mode.REQUEUE));
        assertThat(plan.start(JobId.of(10)).orElseThrow().allocation().get(0).gpuIndices()).containsExactly(2, 3);
    }

    @Test
    void whenEveryLowJobIsWithinItsExemptTimeNothingIsStoppedAndTheHighJobWaits() {
        Plan plan = plan(full(), List.of(pending(10, "high", 2)), LOW.withPreemptTimes(0, 5_000), Set.of());
        assertThat(plan.preemptions()).isEmpty();
        assertThat(plan.start(JobId.of(10))).isEmpty();
        assertThat(plan.reasons().get(JobId.of(10))).isEqualTo(PendingReason.RESOURCES);
    }

    @Test
    void aJobPastItsExemptTimeIsChosenAsBefore() {
        // B ran 100 s, exactly its exempt time: no longer exempt.
        Plan plan = plan(full(), List.of(pending(10, "high", 2)), LOW.withPreemptTimes(0, 100), Set.of());
        assertThat(plan.preemptions()).containsExactly(new Preemption(JobId.of(2), JobId.of(10), Preemption.Mode.REQUEUE));
    }

    @Test
    void aVictimWithAGraceTimeIsToldToStopAndThePreemptorWaitsWhileNobodyElseTakesItsGpus() {
        Plan plan = plan(full(), List.of(pending(10, "high", 2), pending(11, "normal", 2)), LOW.withPreemptTimes(20, 0),
                Set.of());
        assertThat(plan.preemptions()).containsExactly(new Preemption(JobId.of(2), JobId.of(10), Preemption.Mode.REQUEUE));
        assertThat(plan.starts()).isEmpty();
        assertThat(plan.reasons().get(JobId.of(10))).isEqualTo(PendingReason.RESOURCES);
    }

    @Test
    void aVictimInItsGraceTimeCountsAsGoneSoNoOtherJobIsStoppedForTheSamePreemptor() {
        Plan plan = plan(full(), List.of(pending(10, "high", 2)), LOW.withPreemptTimes(20, 0), Set.of(JobId.of(2)));
        assertThat(plan.preemptions()).isEmpty();
        assertThat(plan.starts()).isEmpty();
        assertThat(plan.reasons().get(JobId.of(10))).isEqualTo(PendingReason.RESOURCES);
    }

    @Test
    void onceTheVictimEndedAfterItsGraceThePreemptorStartsOnItsGpus() {
        List<RunningJob> rest = full().stream().filter(r -> !r.id().equals(JobId.of(2))).toList();
        Plan plan = plan(rest, List.of(pending(10, "high", 2)), LOW.withPreemptTimes(20, 0), Set.of());
        assertThat(plan.preemptions()).isEmpty();
        assertThat(plan.start(JobId.of(10)).orElseThrow().allocation().get(0).gpuIndices()).containsExactly(2, 3);
    }

    @Test
    void aQosThatSuspendsStartsAtOnceOnItsVictimsResourcesWhateverTheirGraceTime() {
        Plan plan = plan(full(), List.of(pending(10, "interactive", 2)), LOW.withPreemptTimes(20, 0), Set.of());
        assertThat(plan.preemptions()).containsExactly(new Preemption(JobId.of(2), JobId.of(10), Preemption.Mode.SUSPEND));
        assertThat(plan.start(JobId.of(10)).orElseThrow().allocation().get(0).gpuIndices()).containsExactly(2, 3);
    }

    @Test
    void theVictimsQosModeDecidesHowItIsStoppedAsInSlurmAndThePreemptorsOnlyWhereTheVictimsSetsNone() {
        Qos suspendable = new Qos("low", 0, 0, 0, null, null, null, Set.of(), Preemption.Mode.SUSPEND);
        Plan plan = plan(full(), List.of(pending(10, "urgent", 2)), suspendable, Set.of());
        assertThat(plan.preemptions()).containsExactly(new Preemption(JobId.of(2), JobId.of(10), Preemption.Mode.SUSPEND));

        Qos cancellable = new Qos("low", 0, 0, 0, null, null, null, Set.of(), Preemption.Mode.CANCEL);
        plan = plan(full(), List.of(pending(10, "interactive", 2)), cancellable, Set.of());
        assertThat(plan.preemptions()).containsExactly(new Preemption(JobId.of(2), JobId.of(10), Preemption.Mode.CANCEL));
    }
}
