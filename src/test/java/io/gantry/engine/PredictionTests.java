package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** EASY++ predictions and selective reservations, each on a scenario small enough to work out by hand. */
class PredictionTests {

    private static final long NOW = 1_000_000;

    /** Node 0 runs a job with a limit of 1000 s predicted to end in 100 s; node 1 is free. */
    private static EngineFixtures.Scenario oneJobPredictedShort(EngineFixtures.JobBuilder... jobs) {
        return aCluster().nodes(2).cpusPerNode(1).scenario().runningPredicted(0, NOW + 1000, NOW + 100).with(jobs);
    }

    @Test
    void a_reservation_counts_on_a_running_jobs_predicted_end_and_backfill_on_nobodys_guess() {
        var big = aJob().nodes(2).submittedAt(NOW - 20);
        var small = aJob().nodes(1).timeLimit(500).guess(50).submittedAt(NOW - 10);

        Plan easy = oneJobPredictedShort(big, small).policy(Policy.easy()).plan();
        assertThat(easy.waiting(big.id()).orElseThrow().expectedStart()).hasValue(NOW + 1000);
        assertThat(easy.start(small.id())).as("ends by its limit before the reservation").isPresent();

        Plan predicted = oneJobPredictedShort(big, small).policy(Policy.named("easy:predict=1")).plan();
        assertThat(predicted.waiting(big.id()).orElseThrow().expectedStart()).hasValue(NOW + 100);
        // Its guess (50 s) would end before the reservation, its limit (500 s) would not: it waits.
        assertThat(predicted.waiting(small.id()).orElseThrow().reason()).isEqualTo(PendingReason.PRIORITY);
    }

    @Test
    void a_job_that_outlived_its_prediction_is_planned_to_its_limit() {
        var big = aJob().nodes(2).submittedAt(NOW - 20);
        var small = aJob().nodes(1).timeLimit(500).submittedAt(NOW - 10);
        Plan plan = oneJobPredictedShort(big, small).at(NOW + 200).policy(Policy.named("easy:predict=1")).plan();
        assertThat(plan.waiting(big.id()).orElseThrow().expectedStart()).hasValue(NOW + 1000);
        assertThat(plan.start(small.id())).isPresent();
    }

    @Test
    void backfill_on_guesses_fits_a_job_by_its_guess_and_a_wrong_guess_then_delays_the_reservation() {
        var big = aJob().nodes(2).submittedAt(NOW - 20);
        var small = aJob().nodes(1).timeLimit(500).guess(50).submittedAt(NOW - 10);
        Plan plan = oneJobPredictedShort(big, small).policy(Policy.named("easy:predict=2")).plan();
        assertThat(plan.waiting(big.id()).orElseThrow().expectedStart()).hasValue(NOW + 100);
        Start backfilled = plan.start(small.id()).orElseThrow();
        assertThat(backfilled.expectedEnd()).as("still killed at its limit").isEqualTo(NOW + 500);

        // At NOW + 120 the first job has ended as predicted, but the backfilled one outlived its 50 s:
        // it is planned to its limit, and the reservation moves there (the guarantee given up).
        var again = aCluster().nodes(2).cpusPerNode(1).scenario().at(NOW + 120);
        again.running.add(new RunningJob(small.id(), "alice", "physics", "normal", "main",
                backfilled.allocation(), NOW, NOW + 500, NOW + 50));
        again.pending.add(big.build());
        Plan later = again.policy(Policy.named("easy:predict=2")).plan();
        assertThat(later.waiting(big.id()).orElseThrow().expectedStart()).hasValue(NOW + 500);
    }

    @Test
    void a_prediction_past_the_limit_is_not_believed() {
        var big = aJob().nodes(2);
        Plan plan = aCluster().nodes(2).cpusPerNode(1).scenario().runningPredicted(0, NOW + 1000, NOW + 5000)
                .policy(Policy.named("easy:predict=1")).with(big).plan();
        assertThat(plan.waiting(big.id()).orElseThrow().expectedStart()).hasValue(NOW + 1000);
    }

    /**
     * One busy node; three one-node jobs of one hour that waited about 29 h (slowdown 29.8), 9 h
     * (slowdown 10) and 10 s (slowdown 1.0).
     */
    private static EngineFixtures.Scenario threeWaiting(EngineFixtures.JobBuilder old, EngineFixtures.JobBuilder middle,
            EngineFixtures.JobBuilder fresh) {
        return aCluster().nodes(1).cpusPerNode(1).scenario().allBusyUntil(NOW + 1000)
                .with(old.submittedAt(NOW - 104_400), middle.submittedAt(NOW - 32_400), fresh.submittedAt(NOW - 10));
    }

    @Test
    void selective_reservations_go_to_the_jobs_whose_slowdown_reached_the_threshold() {
        var old = aJob();
        var middle = aJob();
        var fresh = aJob();
        Plan none = threeWaiting(old, middle, fresh).policy(Policy.named("easy:depth=0")).plan();
        assertThat(none.waiting()).noneMatch(Waiting::reserved);

        Plan fixed = threeWaiting(old, middle, fresh).policy(Policy.named("easy:depth=0,slowdown=10")).plan();
        assertThat(fixed.waiting(old.id()).orElseThrow().expectedStart()).hasValue(NOW + 1000);
        assertThat(fixed.waiting(middle.id()).orElseThrow().expectedStart()).hasValue(NOW + 1000 + 3600);
        assertThat(fixed.waiting(fresh.id()).orElseThrow().reserved()).isFalse();
    }

    @Test
    void adaptive_reservations_go_only_to_jobs_faring_worse_than_the_mean() {
        var old = aJob();
        var middle = aJob();
        var fresh = aJob();
        // Mean slowdown so far: (29.8 + 10 + 1.0) / 3 = 13.6.
        Plan plan = threeWaiting(old, middle, fresh).policy(Policy.named("easy:depth=0,adaptive=1")).plan();
        assertThat(plan.waiting(old.id()).orElseThrow().expectedStart()).hasValue(NOW + 1000);
        assertThat(plan.waiting(middle.id()).orElseThrow().reserved()).isFalse();
        assertThat(plan.waiting(fresh.id()).orElseThrow().reserved()).isFalse();
    }

    @Test
    void the_depth_still_reserves_for_the_first_blocked_job_below_the_threshold() {
        var old = aJob();
        var middle = aJob();
        var fresh = aJob();
        Plan plan = threeWaiting(old, middle, fresh).policy(Policy.named("easy:depth=1,slowdown=100")).plan();
        assertThat(plan.waiting(old.id()).orElseThrow().expectedStart()).hasValue(NOW + 1000);
        assertThat(plan.waiting(middle.id()).orElseThrow().reserved()).isFalse();
    }

    @Test
    void the_settings_are_named_policy_options() {
        Policy p = Policy.named("default:predict=1,slowdown=5,adaptive=1,depth=0");
        assertThat(p.predictRunning()).isTrue();
        assertThat(p.reserveSlowdown()).isEqualTo(5);
        assertThat(p.adaptiveReservations()).isTrue();
        assertThat(p.reservationDepth()).isZero();
        assertThat(p.predictBackfill()).isFalse();
        assertThat(Policy.named("easy:predict=2").predictBackfill()).isTrue();
        assertThat(Policy.defaults().predictRunning()).isFalse();
        assertThat(Policy.defaults().selectiveReservations()).isFalse();
        assertThatThrownBy(() -> Policy.named("default:predict=3")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("predict");
        assertThatThrownBy(() -> Policy.named("default:slowdown=-1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slowdown");
    }
}
