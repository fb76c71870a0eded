package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * Slurm's {@code GrpWall} as a user sees it (issue 32): the wall-clock time all the jobs of an association
 * (and those below it) or of a QOS may run together. A job starts only if its time limit fits after what was
 * used and what running jobs may still run; else it pends with {@code AssocGrpWallLimit} or
 * {@code QOSGrpWallLimit}. Each job counts its own run time, whatever its size. And how usage decays:
 * halved each half-life, cleared when a reset period starts.
 */
class GrpWallTests {

    private static final long NOW = 1_000_000;
    private static final long HOUR = 3600;

    private static Plan plan(EngineFixtures.Scenario scenario, Budget... budgets) {
        return plan(scenario, Map.of(), budgets);
    }

    private static Plan plan(EngineFixtures.Scenario scenario, Map<String, Long> factors, Budget... budgets) {
        Budgets b = new Budgets(List.of(budgets), Map.of("physics", "science", "science", "root"), NOW, factors);
        Snapshot s = scenario.snapshot().toBuilder().budgets(b).build();
        Plan plan = new Engine().plan(s);
        Invariants.check(s, plan);
        return plan;
    }

    private static Budget wall(Budget b, long limitMinutes, long usedMinutes) {
        return b.withGrpWall(limitMinutes * 60, usedMinutes * 60);
    }

    private static Budget account(String name, long limitMinutes, long usedMinutes) {
        return wall(Budget.ofAccount(name, null, null), limitMinutes, usedMinutes);
    }

    private static PendingReason reasonOf(Plan plan, EngineFixtures.JobBuilder job) {
        return plan.waiting(job.id()).orElseThrow(() -> new AssertionError(job.id() + " started")).reason();
    }

    private static EngineFixtures.Scenario gpus() {
        return aCluster().nodes(2).gpusPerNode(8).scenario().at(NOW);
    }

    @Test
    void two_half_hour_jobs_fit_an_hour_of_grp_wall_whatever_their_size_and_the_third_pends_with_assoc_grp_wall_limit() {
        var first = aJob().gpus(4).timeLimit(1800);
        var second = aJob().gpus(1).timeLimit(1800);
        var third = aJob().gpus(1).timeLimit(1800);
        Plan plan = plan(gpus().with(first, second, third), account("physics", 60, 0));
        assertThat(plan.start(first.id())).isPresent();
        assertThat(plan.start(second.id())).isPresent();
        assertThat(reasonOf(plan, third)).isEqualTo(PendingReason.ASSOC_GRP_WALL_LIMIT);
    }

    @Test
    void the_wall_time_used_counts_so_a_job_longer_than_what_is_left_pends_and_a_shorter_one_starts() {
        var tooLong = aJob().timeLimit(21 * 60);
        var fits = aJob().timeLimit(20 * 60);
        assertThat(reasonOf(plan(gpus().with(tooLong), account("physics", 60, 40)), tooLong))
                .isEqualTo(PendingReason.ASSOC_GRP_WALL_LIMIT);
        assertThat(plan(gpus().with(fits), account("physics", 60, 40)).start(fits.id())).isPresent();
    }

    @Test
    void a_job_whose_time_limit_alone_is_above_grp_wall_never_starts() {
        var job = aJob().timeLimit(2 * HOUR);
        assertThat(reasonOf(plan(gpus().with(job), account("physics", 60, 0)), job))
                .isEqualTo(PendingReason.ASSOC_GRP_WALL_LIMIT);
    }

    @Test
    void grp_wall_on_an_ancestor_account_holds_every_account_below_it_and_no_other() {
        var job = aJob().timeLimit(1800);
        assertThat(reasonOf(plan(gpus().with(job), account("science", 60, 45)), job))
                .isEqualTo(PendingReason.ASSOC_GRP_WALL_LIMIT);
        var other = aJob().timeLimit(1800).account("chemistry");
        assertThat(plan(gpus().with(other), account("science", 60, 45)).start(other.id())).isPresent();
    }

    @Test
    void a_user_association_has_its_own_grp_wall() {
        var alices = aJob().timeLimit(1800);
        var carols = aJob().timeLimit(1800).user("carol");
        Plan plan = plan(gpus().with(alices, carols), wall(Budget.ofUser("physics", "alice", null, null), 60, 45));
        assertThat(reasonOf(plan, alices)).isEqualTo(PendingReason.ASSOC_GRP_WALL_LIMIT);
        assertThat(plan.start(carols.id())).isPresent();
    }

    @Test
    void a_running_job_holds_what_it_may_still_run_until_its_time_limit() {
        // bob's job in physics may run 40 more minutes: 40 + 30 > 60.
        var job = aJob().timeLimit(1800);
        EngineFixtures.Scenario busy = gpus().running(aJob().build().id(), NOW + 2400,
                new NodeAllocation(EngineFixtures.nodeName(0), 1, 0, List.of()));
        assertThat(reasonOf(plan(busy.with(job), account("physics", 60, 0)), job))
                .isEqualTo(PendingReason.ASSOC_GRP_WALL_LIMIT);
        var shorter = aJob().timeLimit(1200);
        EngineFixtures.Scenario again = gpus().running(aJob().build().id(), NOW + 2400,
                new NodeAllocation(EngineFixtures.nodeName(0), 1, 0, List.of()));
        assertThat(plan(again.with(shorter), account("physics", 60, 0)).start(shorter.id())).isPresent();
    }

    @Test
    void a_qos_grp_wall_pends_its_jobs_with_qos_grp_wall_limit_before_the_associations_are_looked_at() {
        var job = aJob().timeLimit(HOUR);
        Plan plan = plan(gpus().with(job), wall(Budget.ofQos("normal", null, null), 30, 0), account("physics", 30, 0));
        assertThat(reasonOf(plan, job)).isEqualTo(PendingReason.QOS_GRP_WALL_LIMIT);
    }

    @Test
    void an_association_overrunning_both_its_gpu_minutes_and_its_grp_wall_names_the_gpu_minutes_first() {
        var job = aJob().gpus(1).timeLimit(HOUR);
        Budget both = wall(Budget.ofAccount("physics", Tres.parse("gres/gpu=30", Tres.UNLIMITED), null), 30, 0);
        assertThat(reasonOf(plan(gpus().with(job), both), job)).isEqualTo(PendingReason.ASSOC_GRP_GRES_MINUTES);
    }

    @Test
    void the_qos_usage_factor_scales_the_wall_time_a_job_is_charged() {
        // Under a QOS with UsageFactor 0.5 an hour's job is charged 30 minutes; with 2, two hours.
        var half = aJob().timeLimit(HOUR).qos("half");
        var twice = aJob().timeLimit(20 * 60).qos("twice");
        Map<String, Long> factors = Map.of("half", 500L, "twice", 2000L);
        EngineFixtures.Scenario s = gpus().qos(Qos.named("half", 0)).qos(Qos.named("twice", 0));
        assertThat(plan(s.with(half), factors, account("physics", 30, 0)).start(half.id())).isPresent();
        assertThat(reasonOf(plan(gpus().qos(Qos.named("twice", 0)).with(twice), factors, account("physics", 30, 0)),
                twice)).isEqualTo(PendingReason.ASSOC_GRP_WALL_LIMIT);
    }

    @Test
    void without_grp_wall_a_budget_of_nothing_limits_nothing() {
        assertThat(Budget.ofAccount("physics", null, null).withGrpWall(Budget.NO_WALL, 0).unlimited()).isTrue();
        assertThat(account("physics", 0, 0).unlimited()).isFalse();
        var job = aJob().timeLimit(60);
        assertThat(reasonOf(plan(gpus().with(job), account("physics", 0, 0)), job))
                .isEqualTo(PendingReason.ASSOC_GRP_WALL_LIMIT);
    }

    @Test
    void usage_halves_each_half_life_and_is_gone_when_a_reset_period_starts() {
        long week = 7 * 24 * HOUR;
        assertThat(new UsageDecay(week, week, false).factor()).isCloseTo(0.5, within(1e-12));
        assertThat(new UsageDecay(2 * week, week, false).factor()).isCloseTo(0.25, within(1e-12));
        assertThat(new UsageDecay(HOUR, 0, false).factor()).isEqualTo(1.0);
        assertThat(new UsageDecay(HOUR, week, true).factor()).isZero();
    }

    @Test
    void a_decayed_grp_wall_lets_the_job_start_that_the_same_usage_undecayed_keeps_waiting() {
        // 60 minutes used of 60: with NoDecay they stay used; a half-life later the rest is 30 and a 30-minute job fits.
        var job = aJob().timeLimit(1800);
        long used = 60 * 60;
        long decayed = Math.round(used * new UsageDecay(HOUR, HOUR, false).factor());
        assertThat(decayed).isEqualTo(30 * 60);
        assertThat(reasonOf(plan(gpus().with(job), wall(Budget.ofQos("normal", null, null), 60, 60)), job))
                .isEqualTo(PendingReason.QOS_GRP_WALL_LIMIT);
        var later = aJob().timeLimit(1800);
        assertThat(plan(gpus().with(later), Budget.ofQos("normal", null, null).withGrpWall(HOUR, decayed))
                .start(later.id())).isPresent();
    }
}
