package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * Shapes that bend to what is free, as in Slurm: {@code -N min-max} starts on as many nodes as fit
 * (at least min, at most max), and {@code --time-min} lets backfill start a job now with a shorter
 * limit, down to its time-min, where its full limit would delay a reservation.
 */
class FlexibleShapeTests {

    private static final long NOW = 1_000_000;

    @Test
    void a_job_of_8_to_16_nodes_starts_on_the_12_that_are_free() {
        var flexible = aJob().nodes(8, 16).exclusive();
        Plan plan = busy(aCluster().nodes(16).cpusPerNode(4).scenario(), 0, 1, 2, 3).with(flexible).plan();

        Start start = plan.start(flexible.id()).orElseThrow();
        assertThat(start.allocation()).hasSize(12);
    }

    @Test
    void a_job_of_8_to_16_nodes_takes_no_more_than_16_and_waits_below_8() {
        var flexible = aJob().nodes(8, 16).exclusive();
        assertThat(aCluster().nodes(20).cpusPerNode(4).scenario().with(flexible).plan().start(flexible.id())
                .orElseThrow().allocation()).hasSize(16);

        var waiting = aJob().nodes(8, 16).exclusive();
        Plan plan = busy(aCluster().nodes(10).cpusPerNode(4).scenario(), 0, 1, 2).with(waiting).plan();
        assertThat(plan.start(waiting.id())).isEmpty();
    }

    @Test
    void a_flexible_job_spreads_its_tasks_and_gpus_over_the_nodes_it_got() {
        var flexible = aJob().nodes(2, 4).gpusPerNode(2);
        Plan plan = aCluster().nodes(3).cpusPerNode(8).gpusPerNode(4).scenario().with(flexible).plan();

        Start start = plan.start(flexible.id()).orElseThrow();
        assertThat(start.allocation()).hasSize(3);
        assertThat(start.allocation()).allSatisfy(a -> assertThat(a.gpuIndices()).hasSize(2));
    }

    @Test
    void time_min_backfills_into_a_hole_its_full_limit_would_not_fit() {
        // Two of four nodes busy for 1000 s: the 4-node job reserves +1000; a 1-node job of 5000 s would
        // delay it, but with --time-min=600 it runs now for at most the 1000 s before the reservation.
        var big = aJob().nodes(4).timeLimit(3600);
        var flexible = aJob().nodes(1).timeLimit(5000).timeMin(600);
        Plan plan = aCluster().nodes(4).cpusPerNode(1).scenario().policy(Policy.easy())
                .runningOn(0, 1, 0, List.of(), NOW + 1000).runningOn(1, 1, 0, List.of(), NOW + 1000)
                .with(big, flexible).plan();

        Start start = plan.start(flexible.id()).orElseThrow();
        assertThat(start.expectedEnd() - start.startTime()).isBetween(600L, 1000L);
        assertThat(plan.waiting(big.id()).orElseThrow().expectedStart()).hasValue(NOW + 1000);
    }

    @Test
    void without_time_min_or_with_a_time_min_longer_than_the_hole_it_waits() {
        for (long timeMin : new long[] {0, 1200}) {
            var big = aJob().nodes(4).timeLimit(3600);
            var job = aJob().nodes(1).timeLimit(5000).timeMin(timeMin);
            Plan plan = aCluster().nodes(4).cpusPerNode(1).scenario().policy(Policy.easy())
                    .runningOn(0, 1, 0, List.of(), NOW + 1000).runningOn(1, 1, 0, List.of(), NOW + 1000)
                    .with(big, job).plan();
            assertThat(plan.start(job.id())).as("time-min %d", timeMin).isEmpty();
        }
    }

    @Test
    void plans_with_flexible_shapes_keep_the_engines_invariants() {
        for (long seed = 0; seed < 2000; seed++) {
            Snapshot s = withFlexibleShapes(seed);
            Plan plan = new Engine().plan(s);
            Invariants.check(s, plan);
            assertThat(new Engine().plan(s)).as("seed %d", seed).isEqualTo(plan);
        }
    }

    /** Random snapshots where some jobs may take up to twice their nodes and some accept a tenth of their limit. */
    private static Snapshot withFlexibleShapes(long seed) {
        Snapshot s = RandomSnapshots.withSwitchTree(seed);
        SplittableRandom r = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
        List<PendingJob> pending = new ArrayList<>();
        for (PendingJob j : s.pending()) {
            Request.Builder req = j.request().toBuilder();
            if (r.nextInt(3) == 0) {
                req.maxNodes(Math.max(j.request().nodes(), 1) * (1 + r.nextInt(3)));
            }
            if (r.nextInt(3) == 0) {
                req.timeMinSeconds(1 + r.nextLong(j.timeLimitSeconds()));
            }
            pending.add(new PendingJob(j.id(), j.user(), j.account(), j.qos(), j.partitions(), req.build(),
                    j.timeLimitSeconds(), j.submitTime(), j.eligibleTime(), j.nice(), j.heldBy(),
                    j.expectedRunSeconds(), j.reservation()));
        }
        return new Snapshot(s.now(), s.nodes(), s.partitions(), s.switches(), s.running(), pending, s.qos(),
                s.associations(), s.policy(), s.reservations());
    }

    private static EngineFixtures.Scenario busy(EngineFixtures.Scenario scenario, int... nodes) {
        for (int i : nodes) {
            scenario.runningOn(i, 4, 0, List.of(), NOW + 10_000);
        }
        return scenario;
    }
}
