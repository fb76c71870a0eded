package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** Advance reservations in the engine: who may use the reserved nodes, and when. */
class AdvanceReservationTests {

    private static final long NOW = 1_000_000;
    private final Engine engine = new Engine();

    private static List<Node> nodes(int n) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            nodes.add(new Node("n" + i, 8, 64_000, 4, "h100", Set.of(), NodeState.UP, null, null));
        }
        return nodes;
    }

    private static PendingJob job(long id, int nodes, long limit, String reservation) {
        Request r = Request.builder().nodes(nodes).tasks(nodes).exclusive(true).build();
        return new PendingJob(JobId.of(id), "alice", "root", "normal", List.of("p"), r, limit, NOW - 10, NOW - 10, 0,
                null, 0, reservation);
    }

    private Plan plan(List<PendingJob> pending, AdvanceReservation... reservations) {
        List<Node> nodes = nodes(4);
        Partition p = new Partition("p", nodes.stream().map(Node::name).toList(), 0, 1, true);
        return engine.plan(Snapshot.builder().now(NOW).nodes(nodes).partitions(List.of(p)).pending(pending)
                .reservations(List.of(reservations)).build());
    }

    @Test
    void aMaintenanceWindowKeepsJobsWhoseTimeLimitWouldOverlapItOffItsNodes() {
        AdvanceReservation maint = new AdvanceReservation("maint", Set.of("n1", "n2"), NOW + 3600, NOW + 7200, true);
        // Ends before the window: may use every node.
        Plan before = plan(List.of(job(1, 4, 1800, null)), maint);
        assertThat(before.start(JobId.of(1))).isPresent();
        // Would run into the window: only n3 and n4 are left, so a 4-node job waits for maintenance...
        Plan into = plan(List.of(job(2, 4, 7200, null)), maint);
        assertThat(into.start(JobId.of(2))).isEmpty();
        assertThat(into.reasons().get(JobId.of(2))).isEqualTo(PendingReason.RESERVED_FOR_MAINTENANCE);
        assertThat(PendingReason.RESERVED_FOR_MAINTENANCE.slurmName())
                .isEqualTo("ReqNodeNotAvail, Reserved for maintenance");
        // ...and a 2-node job runs on the nodes outside it.
        Plan beside = plan(List.of(job(3, 2, 7200, null)), maint);
        assertThat(beside.start(JobId.of(3)).orElseThrow().nodeNames()).containsExactlyInAnyOrder("n3", "n4");
    }

    @Test
    void duringTheWindowOnlyJobsThatNameTheReservationRunOnItsNodes() {
        AdvanceReservation res = new AdvanceReservation("team", Set.of("n1", "n2"), NOW - 60, NOW + 3600, false);
        Plan plan = plan(List.of(job(1, 2, 600, "team"), job(2, 2, 600, null), job(3, 3, 600, null)), res);
        assertThat(plan.start(JobId.of(1)).orElseThrow().nodeNames()).containsExactlyInAnyOrder("n1", "n2");
        assertThat(plan.start(JobId.of(2)).orElseThrow().nodeNames()).containsExactlyInAnyOrder("n3", "n4");
        // Three nodes only exist once the reservation is over: that is when job 3 is expected to start.
        assertThat(plan.start(JobId.of(3))).isEmpty();
        assertThat(plan.reasons().get(JobId.of(3))).isEqualTo(PendingReason.RESOURCES);
        assertThat(plan.waiting(JobId.of(3)).orElseThrow().expectedStart()).hasValue(NOW + 3600);
    }

    @Test
    void aJobInAReservationWaitsForItsWindowAndNeverLeavesItsNodes() {
        AdvanceReservation later = new AdvanceReservation("later", Set.of("n1"), NOW + 600, NOW + 3600, false);
        Plan early = plan(List.of(job(1, 1, 600, "later")), later);
        assertThat(early.start(JobId.of(1))).isEmpty();
        assertThat(early.reasons().get(JobId.of(1))).isEqualTo(PendingReason.RESERVATION);

        AdvanceReservation now = new AdvanceReservation("now", Set.of("n1"), NOW - 1, NOW + 3600, false);
        Plan tooBig = plan(List.of(job(2, 2, 600, "now")), now);
        assertThat(tooBig.start(JobId.of(2))).isEmpty();
        Plan unknown = plan(List.of(job(3, 1, 600, "gone")), now);
        assertThat(unknown.reasons().get(JobId.of(3))).isEqualTo(PendingReason.RESERVATION);
    }
}
