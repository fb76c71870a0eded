package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SchedulingTests {

    private static final long NOW = 1_000_000;

    @Test
    void easy_backfills_a_short_job_that_ends_before_the_reservation() {
        var big = aJob().nodes(4).timeLimit(3600);
        var small = aJob().nodes(1).timeLimit(500);
        // Two of four nodes busy for 1000 s more: the 4-node job waits, the short one fits in the hole.
        Plan plan = aCluster().nodes(4).cpusPerNode(1).scenario().policy(Policy.easy())
                .runningOn(0, 1, 0, List.of(), NOW + 1000).runningOn(1, 1, 0, List.of(), NOW + 1000)
                .with(big, small).plan();
        assertThat(plan.waiting(big.id()).orElseThrow().expectedStart()).hasValue(NOW + 1000);
        Start s = plan.start(small.id()).orElseThrow();
        assertThat(s.backfilled()).isTrue();
    }

    @Test
    void easy_does_not_backfill_a_job_that_would_delay_the_reservation() {
        var big = aJob().nodes(4).timeLimit(3600);
        var longer = aJob().nodes(1).timeLimit(5000);
        Plan plan = aCluster().nodes(4).cpusPerNode(1).scenario().policy(Policy.easy())
                .runningOn(0, 1, 0, List.of(), NOW + 1000).runningOn(1, 1, 0, List.of(), NOW + 1000)
                .with(big, longer).plan();
        assertThat(plan.starts()).isEmpty();
        assertThat(plan.waiting(longer.id()).orElseThrow().reason()).isEqualTo(PendingReason.PRIORITY);
        assertThat(plan.waiting(big.id()).orElseThrow().reason()).isEqualTo(PendingReason.RESOURCES);
    }

    @Test
    void a_long_job_may_backfill_on_nodes_the_reservation_does_not_need() {
        var two = aJob().nodes(3).timeLimit(3600);
        var longer = aJob().nodes(1).timeLimit(50_000);
        // Three nodes busy until +1000, one free: the reservation takes the three, the free node is fair game.
        Plan plan = aCluster().nodes(4).cpusPerNode(1).scenario().policy(Policy.easy())
                .runningOn(0, 1, 0, List.of(), NOW + 1000).runningOn(1, 1, 0, List.of(), NOW + 1000)
                .runningOn(2, 1, 0, List.of(), NOW + 1000)
                .with(two, longer).plan();
        assertThat(plan.start(longer.id())).as(plan.toString()).isPresent();
        assertThat(plan.waiting(two.id()).orElseThrow().expectedStart()).hasValue(NOW + 1000);
    }

    @Test
    void fifo_never_starts_a_job_behind_a_blocked_one() {
        var big = aJob().nodes(4);
        var small = aJob().nodes(1).timeLimit(10);
        Plan plan = aCluster().nodes(4).cpusPerNode(1).scenario().policy(Policy.fifo())
                .runningOn(0, 1, 0, List.of(), NOW + 1000)
                .with(big, small).plan();
        assertThat(plan.starts()).isEmpty();
        assertThat(plan.waiting(small.id()).orElseThrow().reason()).isEqualTo(PendingReason.PRIORITY);
        assertThat(plan.waiting(big.id()).orElseThrow().reason()).isEqualTo(PendingReason.RESOURCES);
    }

    @Test
    void easy_reserves_for_one_job_per_partition_and_conservative_for_more() {
        var first = aJob().nodes(4);
        var second = aJob().nodes(4);
        var scenario = aCluster().nodes(4).cpusPerNode(1).scenario().allBusyUntil(NOW + 100).with(first, second);
        Plan easy = scenario.policy(Policy.easy()).plan();
        assertThat(easy.waiting(first.id()).orElseThrow().expectedStart()).hasValue(NOW + 100);
        assertThat(easy.waiting(second.id()).orElseThrow().reserved()).isFalse();
        Plan conservative = scenario.policy(new Policy("conservative", PriorityWeights.FIRST_COME_FIRST_SERVED,
                true, Integer.MAX_VALUE)).plan();
        assertThat(conservative.waiting(second.id()).orElseThrow().expectedStart()).hasValue(NOW + 100 + 3600);
    }

    @Test
    void fifo_and_easy_go_by_submit_time_then_job_id() {
        var later = aJob().submittedAt(NOW - 10);
        var earlier = aJob().submittedAt(NOW - 20);
        Plan plan = aCluster().nodes(1).cpusPerNode(1).scenario().policy(Policy.easy()).with(later, earlier).plan();
        assertThat(plan.start(earlier.id())).isPresent();
        assertThat(plan.waiting(later.id())).isPresent();
    }

    @Test
    void the_default_policy_puts_a_short_job_ahead_of_a_long_one_submitted_at_the_same_time() {
        var longJob = aJob().timeLimit(86_400).submittedAt(NOW - 5);
        var shortJob = aJob().timeLimit(600).submittedAt(NOW - 5);
        Plan plan = aCluster().nodes(1).cpusPerNode(1).scenario().policy(Policy.defaults())
                .with(longJob, shortJob).plan();
        assertThat(plan.start(shortJob.id())).isPresent();
        assertThat(plan.waiting(longJob.id()).orElseThrow().priority().shortJob())
                .isLessThan(plan.start(shortJob.id()).orElseThrow().priority().shortJob());
    }

    @Test
    void age_lets_a_long_waiting_job_overtake_a_fresh_short_one() {
        var old = aJob().timeLimit(86_400).submittedAt(NOW - 3 * 86_400);
        var fresh = aJob().timeLimit(60).submittedAt(NOW);
        Plan plan = aCluster().nodes(1).cpusPerNode(1).scenario().policy(Policy.defaults()).with(old, fresh).plan();
        assertThat(plan.start(old.id())).isPresent();
    }

    @Test
    void nice_lowers_priority() {
        var nice = aJob().nice(1_000_000).submittedAt(NOW - 20);
        var plain = aJob().submittedAt(NOW - 10);
        Plan plan = aCluster().nodes(1).cpusPerNode(1).scenario().policy(Policy.defaults()).with(nice, plain).plan();
        assertThat(plan.start(plain.id())).isPresent();
    }

    @Test
    void a_higher_tier_partition_is_scheduled_first() {
        var low = aJob().partitions("main").submittedAt(NOW - 100);
        var high = aJob().partitions("urgent").submittedAt(NOW - 1);
        Plan plan = aCluster().nodes(1).cpusPerNode(1).partition("urgent", 0, 1, 5, 0).scenario()
                .with(low, high).plan();
        assertThat(plan.start(high.id())).isPresent();
    }

    @Test
    void a_job_listing_two_partitions_starts_in_the_one_with_room() {
        var job = aJob().partitions("a", "b");
        Plan plan = aCluster().nodes(2).cpusPerNode(1).partition("a", 0, 1, 0, 0).partition("b", 1, 2, 0, 0)
                .scenario().runningOn(0, 1, 0, List.of(), NOW + 100).with(job).plan();
        assertThat(plan.start(job.id()).orElseThrow().partition()).isEqualTo("b");
    }

    @Test
    void the_plan_is_the_same_for_the_same_snapshot() {
        var scenario = aCluster().nodes(6).gpusPerNode(4).nodesPerSwitch(2).scenario().policy(Policy.defaults())
                .runningOn(0, 8, 0, List.of(1, 2), NOW + 50)
                .with(aJob().gpus(6), aJob().gpus(1), aJob().nodes(3).gpusPerNode(4), aJob().tasks(40));
        Snapshot s = scenario.snapshot();
        assertThat(new Engine().plan(s)).isEqualTo(new Engine().plan(s));
    }

    @Test
    void a_job_past_the_starvation_threshold_goes_first_and_gets_the_reservation() {
        var starving = aJob().nodes(4).timeLimit(86_400).submittedAt(NOW - 10 * 86_400);
        var fresh = aJob().nodes(4).timeLimit(60).submittedAt(NOW - 10);
        Policy policy = Policy.named("default:age=0,starvation=86400");
        Plan plan = aCluster().nodes(4).cpusPerNode(1).scenario().policy(policy).allBusyUntil(NOW + 100)
                .with(fresh, starving).plan();
        assertThat(plan.waiting(starving.id()).orElseThrow().expectedStart()).hasValue(NOW + 100);
        assertThat(plan.waiting(fresh.id()).orElseThrow().reserved()).isFalse();
    }

    @Test
    void a_run_time_guess_orders_jobs_but_reservations_keep_trusting_the_time_limit() {
        var guessedShort = aJob().timeLimit(86_400).submittedAt(NOW - 5);
        var plain = aJob().timeLimit(3600).submittedAt(NOW - 5);
        var scenario = aCluster().nodes(1).cpusPerNode(1).scenario().policy(Policy.defaults()).with(plain);
        scenario.pending.add(new PendingJob(guessedShort.id(), "alice", "physics", "normal", java.util.List.of("main"),
                Request.oneCpu(), 86_400, NOW - 5, 0, 0, null, 60));
        Plan plan = scenario.plan();
        Start s = plan.start(guessedShort.id()).orElseThrow();
        assertThat(s.expectedEnd()).isEqualTo(NOW + 86_400);
    }
}
