package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Expected starts on small clusters, and why some jobs get none. */
class StartEstimatorTests {

    private static StartEstimates estimate(EngineFixtures.Scenario scenario) {
        return estimate(scenario.snapshot(), StartEstimator.Budget.UNLIMITED);
    }

    private static StartEstimates estimate(Snapshot s, StartEstimator.Budget budget) {
        Engine engine = new Engine();
        return engine.estimateStarts(s, engine.plan(s), budget);
    }

    private static StartEstimate of(StartEstimates estimates, EngineFixtures.JobBuilder job) {
        return estimates.of(job.id()).orElseThrow();
    }

    @Test
    void a_job_kept_back_by_priority_is_expected_after_the_jobs_ahead() {
        var idle = aCluster().nodes(4).gpusPerNode(8).scenario().policy(Policy.fifo());
        var first = aJob().nodes(4).exclusive();
        var small = aJob().gpus(1);
        // FIFO keeps the small job waiting behind the first (Priority), though one GPU is all it needs.
        StartEstimates fifo = estimate(idle.allBusyUntil(idle.now + 100).with(first, small));
        assertThat(of(fifo, small).start()).hasValue(idle.now + 100 + 3600);
    }

    @Test
    void a_job_alone_on_an_idle_cluster_is_expected_now() {
        var scenario = aCluster().nodes(4).gpusPerNode(8).scenario();
        var job = aJob().gpus(4);
        Snapshot s = scenario.with(job).snapshot();
        Engine engine = new Engine();
        // An empty plan: the estimator alone decides.
        StartEstimates e = engine.estimateStarts(s, new Plan(s.now(), List.of(), List.of(new Waiting(job.id(),
                PendingReason.PRIORITY, java.util.OptionalLong.empty(), null, List.of(), null))),
                StartEstimator.Budget.UNLIMITED);
        assertThat(of(e, job).start()).hasValue(s.now());
        assertThat(of(e, job).nodes()).hasSize(1);
    }

    @Test
    void the_second_of_two_whole_cluster_jobs_is_expected_when_the_first_ends() {
        var scenario = aCluster().nodes(4).gpusPerNode(8).scenario();
        long now = scenario.now;
        var first = aJob().nodes(4).exclusive().timeLimit(7200);
        var second = aJob().nodes(4).exclusive().timeLimit(3600);
        var third = aJob().nodes(2).exclusive().timeLimit(600);
        StartEstimates e = estimate(scenario.allBusyUntil(now + 1000).with(first, second, third));
        // The plan reserves the first at now+1000; the second queues behind it, the third behind both
        // (it cannot backfill before the first: that would delay it).
        assertThat(of(e, first).start()).hasValue(now + 1000);
        assertThat(of(e, second).start()).hasValue(now + 1000 + 7200);
        assertThat(of(e, third).start()).hasValue(now + 1000 + 7200 + 3600);
        assertThat(of(e, second).nodes()).hasSize(4);
    }

    @Test
    void a_small_job_is_expected_in_a_hole_before_a_big_one() {
        var scenario = aCluster().nodes(2).scenario();
        long now = scenario.now;
        var big = aJob().nodes(2).exclusive().timeLimit(3600);
        var bigger = aJob().nodes(2).exclusive().timeLimit(3600);
        var small = aJob().nodes(1).exclusive().timeLimit(500);
        scenario.runningOn(0, 64, 1000, List.of(), now + 1000).runningOn(1, 64, 1000, List.of(), now + 2000);
        StartEstimates e = estimate(scenario.with(big, bigger, small));
        assertThat(of(e, big).start()).hasValue(now + 2000);
        assertThat(of(e, bigger).start()).hasValue(now + 2000 + 3600);
        // Node 0 is free from now+1000 to now+2000: the 500 s job fits there.
        assertThat(of(e, small).start()).hasValue(now + 1000);
    }

    @Test
    void a_job_waiting_for_its_begin_time_is_expected_no_sooner() {
        var scenario = aCluster().nodes(2).scenario();
        var later = aJob().nodes(1).eligibleAt(scenario.now + 5000);
        StartEstimates e = estimate(scenario.with(later));
        assertThat(of(e, later).start()).hasValue(scenario.now + 5000);
    }

    @Test
    void advance_reservations_are_kept_clear() {
        var scenario = aCluster().nodes(2).scenario();
        long now = scenario.now;
        var job = aJob().nodes(2).exclusive().timeLimit(3600);
        Snapshot s = scenario.with(job).snapshot().toBuilder().reservations(List.of(
                new AdvanceReservation("maint", Set.of("n000"), now + 600, now + 1800, true))).build();
        StartEstimates e = estimate(s, StartEstimator.Budget.UNLIMITED);
        assertThat(of(e, job).start()).hasValue(now + 1800);
    }

    @Test
    void held_and_dependent_jobs_get_no_estimate() {
        var scenario = aCluster().nodes(2).scenario();
        var user = aJob().heldBy(PendingReason.JOB_HELD_USER);
        var admin = aJob().heldBy(PendingReason.JOB_HELD_ADMIN);
        var dependent = aJob().heldBy(PendingReason.DEPENDENCY);
        var never = aJob().heldBy(PendingReason.DEPENDENCY_NEVER_SATISFIED);
        var free = aJob();
        StartEstimates e = estimate(scenario.with(user, admin, dependent, never, free));
        assertThat(of(e, user).missing()).isEqualTo(StartEstimate.Missing.HELD);
        assertThat(of(e, admin).missing()).isEqualTo(StartEstimate.Missing.HELD);
        assertThat(of(e, dependent).missing()).isEqualTo(StartEstimate.Missing.DEPENDENCY);
        assertThat(of(e, never).missing()).isEqualTo(StartEstimate.Missing.NEVER_FITS);
        assertThat(of(e, user).start()).isEmpty();
        assertThat(e.of(free.id())).isEmpty(); // started by the plan: no longer pending
    }

    @Test
    void a_job_over_a_per_user_limit_waits_for_the_limit() {
        var scenario = aCluster().nodes(2).scenario()
                .qos(new Qos("normal", 0, 0, 1, Tres.UNLIMITED, Tres.UNLIMITED, Tres.UNLIMITED));
        var first = aJob().user("carol");
        var second = aJob().user("carol");
        StartEstimates e = estimate(scenario.with(first, second));
        assertThat(of(e, second).missing()).isEqualTo(StartEstimate.Missing.LIMIT);
    }

    @Test
    void a_job_that_cannot_run_as_the_cluster_is_gets_no_estimate() {
        var scenario = aCluster().nodes(2).gpusPerNode(4).state(1, NodeState.DOWN).scenario();
        var tooBig = aJob().nodes(2);
        var badFeature = aJob().constraint("nosuch");
        var tooLong = aJob().partitions("short").timeLimit(7200);
        scenario = aCluster().nodes(2).gpusPerNode(4).state(1, NodeState.DOWN).partition("short", 0, 2, 0, 3600)
                .scenario();
        StartEstimates e = estimate(scenario.with(tooBig, badFeature, tooLong));
        assertThat(of(e, tooBig).missing()).isEqualTo(StartEstimate.Missing.NEVER_FITS);
        assertThat(of(e, badFeature).missing()).isEqualTo(StartEstimate.Missing.NEVER_FITS);
        assertThat(of(e, tooLong).missing()).isEqualTo(StartEstimate.Missing.NEVER_FITS);
    }

    @Test
    void jobs_in_an_advance_reservation_are_expected_at_its_start_on_its_nodes_one_after_another() {
        var scenario = aCluster().nodes(2).scenario();
        long now = scenario.now;
        Snapshot s = scenario.snapshot();
        PendingJob first = new PendingJob(JobId.of(9001), "alice", "physics", "normal", List.of("main"),
                Request.builder().nodes(1).exclusive(true).build(), 600, now - 10, 0, 0, null, 0, "team");
        PendingJob second = new PendingJob(JobId.of(9002), "alice", "physics", "normal", List.of("main"),
                Request.builder().nodes(1).exclusive(true).build(), 600, now - 5, 0, 0, null, 0, "team");
        PendingJob tooLate = new PendingJob(JobId.of(9003), "alice", "physics", "normal", List.of("main"),
                Request.builder().nodes(1).exclusive(true).build(), 600, now - 1, 0, 0, null, 0, "team");
        s = s.toBuilder().pending(List.of(first, second, tooLate)).reservations(List.of(
                new AdvanceReservation("team", Set.of("n000"), now + 600, now + 1800, false))).build();
        StartEstimates e = estimate(s, StartEstimator.Budget.UNLIMITED);
        assertThat(e.of(first.id()).orElseThrow().start()).hasValue(now + 600);
        assertThat(e.of(first.id()).orElseThrow().nodes()).containsExactly("n000");
        assertThat(e.of(second.id()).orElseThrow().start()).hasValue(now + 1200);
        // A third would start at the reservation's end: it never runs in it.
        assertThat(e.of(tooLate.id()).orElseThrow().missing()).isEqualTo(StartEstimate.Missing.NEVER_FITS);
    }

    @Test
    void a_job_whose_advance_reservation_is_gone_never_starts() {
        var scenario = aCluster().nodes(2).scenario();
        long now = scenario.now;
        PendingJob orphan = new PendingJob(JobId.of(9001), "alice", "physics", "normal", List.of("main"),
                Request.oneCpu(), 600, now - 10, 0, 0, null, 0, "gone");
        Snapshot s = scenario.snapshot().toBuilder().pending(List.of(orphan)).build();
        assertThat(estimate(s, StartEstimator.Budget.UNLIMITED).of(orphan.id()).orElseThrow().missing())
                .isEqualTo(StartEstimate.Missing.NEVER_FITS);
    }

    @Test
    void jobs_past_the_budget_get_a_rough_time_behind_the_jobs_ahead_of_them() {
        var scenario = aCluster().nodes(1).scenario();
        var a = aJob().nodes(1).exclusive();
        var b = aJob().nodes(1).exclusive();
        var c = aJob().nodes(1).exclusive();
        var d = aJob().nodes(1).exclusive();
        var held = aJob().heldBy(PendingReason.JOB_HELD_USER);
        Snapshot s = scenario.allBusyUntil(scenario.now + 60).with(a, b, c, d, held).snapshot();
        StartEstimates e = estimate(s, new StartEstimator.Budget(1, 0));
        assertThat(e.cutShort()).isTrue();
        assertThat(of(e, a).start()).hasValue(scenario.now + 60); // the plan's reservation costs nothing
        assertThat(of(e, b).start()).hasValue(scenario.now + 60 + 3600);
        assertThat(of(e, b).rough()).isFalse();
        // No search for c and d: each is roughly placed after the jobs ahead of it (at the next whole
        // minute: the sums are kept by the minute), on no named node.
        long cStart = of(e, c).start().getAsLong();
        assertThat(cStart).isBetween(scenario.now + 60 + 2 * 3600, scenario.now + 60 + 2 * 3600 + 59);
        assertThat(cStart % 60).isZero();
        assertThat(of(e, c).rough()).isTrue();
        assertThat(of(e, c).nodes()).isEmpty();
        assertThat(of(e, d).start()).hasValue(cStart + 3600);
        assertThat(e.rough()).isEqualTo(2);
        assertThat(of(e, held).missing()).isEqualTo(StartEstimate.Missing.HELD);
    }

    @Test
    void a_rough_time_stays_put_from_one_pass_to_the_next_while_nothing_else_changes() {
        var scenario = aCluster().nodes(1).scenario();
        var a = aJob().nodes(1).exclusive();
        var b = aJob().nodes(1).exclusive();
        var c = aJob().nodes(1).exclusive().timeLimit(1234);
        var d = aJob().nodes(1).exclusive();
        Snapshot s = scenario.allBusyUntil(scenario.now + 60).with(a, b, c, d).snapshot();
        StartEstimates first = estimate(s, new StartEstimator.Budget(1, 0));
        assertThat(of(first, c).rough()).isTrue();
        // Seconds later (a store write per pass for every rough job would follow if the times moved).
        for (long later : new long[] {7, 25, 59}) {
            StartEstimates again = estimate(s.toBuilder().now(s.now() + later).build(), new StartEstimator.Budget(1, 0));
            assertThat(of(again, c).start()).as("%d s later", later).isEqualTo(of(first, c).start());
            assertThat(of(again, d).start()).as("%d s later", later).isEqualTo(of(first, d).start());
        }
    }

    @Test
    void a_rough_time_is_no_floor_for_the_exact_search_of_a_job_alike_it_further_down() {
        var early = aCluster().nodes(1).scenario().policy(Policy.fifo());
        long now = early.now;
        var a = aJob().nodes(1).exclusive().submittedAt(now - 900);
        var b = aJob().nodes(1).exclusive().submittedAt(now - 800);
        var c = aJob().nodes(1).exclusive().submittedAt(now - 600);
        var x = aJob().nodes(1).exclusive().submittedAt(now - 500);
        // Between passes r arrives behind b: the next pass searches b (head), gives r a rough time (it is
        // between the head and where the last pass stopped), then searches c.
        var r = aJob().nodes(1).exclusive().submittedAt(now - 700);
        Snapshot first = early.allBusyUntil(now + 60).with(a, b, c, x).snapshot();
        Snapshot second = aCluster().nodes(1).scenario().policy(Policy.fifo()).allBusyUntil(now + 60)
                .with(a, b, r, c, x).snapshot();
        Engine engine = new Engine();
        StartEstimator.Budget twoJobs = new StartEstimator.Budget(2, 0);
        Cluster cluster = new Cluster(second.nodes(), second.partitions(), second.switches());
        StartEstimates pass1 = engine.estimateStarts(first, engine.plan(first), twoJobs, null);
        StartEstimates pass2 = new StartEstimator(second, cluster, twoJobs, StartEstimator.Search.BY_EARLIEST)
                .run(engine.plan(second), pass1);
        assertThat(of(pass2, r).rough()).isTrue();
        // r's rough time is at the next whole minute after b, so later than c's exact one right after b:
        // c is not held back to it.
        assertThat(of(pass2, r).start().getAsLong()).isGreaterThan(now + 60 + 2 * 3600);
        assertThat(of(pass2, c).rough()).isFalse();
        assertThat(of(pass2, c).start()).hasValue(now + 60 + 2 * 3600);
    }

    @Test
    void rough_times_reach_months_ahead_in_coarser_buckets() {
        var scenario = aCluster().nodes(1).scenario();
        long now = scenario.now;
        long sixtyDays = 60L * 86_400;
        List<EngineFixtures.JobBuilder> jobs = new java.util.ArrayList<>();
        for (int k = 0; k < 10; k++) {
            jobs.add(aJob().nodes(1).exclusive().timeLimit(sixtyDays));
        }
        Snapshot s = scenario.allBusyUntil(now + 60).with(jobs.toArray(EngineFixtures.JobBuilder[]::new)).snapshot();
        StartEstimates e = estimate(s, new StartEstimator.Budget(1, 0));
        long previous = 0;
        for (int k = 2; k < jobs.size(); k++) {
            // Exact: one after another from when the running job ends; rough: up to a bucket later each.
            long exact = now + 60 + k * sixtyDays;
            long start = of(e, jobs.get(k)).start().getAsLong();
            assertThat(of(e, jobs.get(k)).rough()).isTrue();
            assertThat(start).as("job %d", k).isBetween(exact, exact + k * 2_000L);
            assertThat(start).as("job %d", k).isGreaterThanOrEqualTo(previous + sixtyDays);
            previous = start;
        }
    }

    @Test
    void rough_times_count_the_free_gpus_of_all_the_nodes_a_job_may_use() {
        var scenario = aCluster().nodes(2).gpusPerNode(4).scenario();
        long now = scenario.now;
        var first = aJob().gpus(1).timeLimit(600);
        List<EngineFixtures.JobBuilder> rest = new java.util.ArrayList<>();
        for (int k = 0; k < 19; k++) {
            rest.add(aJob().gpus(1).timeLimit(600));
        }
        Snapshot s = scenario.allBusyUntil(now + 600).with(first)
                .with(rest.toArray(EngineFixtures.JobBuilder[]::new)).snapshot();
        StartEstimates e = estimate(s, new StartEstimator.Budget(1, 0));
        // Eight GPUs in all: the first eight from when the running jobs end (the budget's one exact, the
        // rough ones from the next whole minute), eight more after them, then four.
        List<Long> starts = rest.stream().map(j -> of(e, j).start().getAsLong() - now).toList();
        assertThat(starts.get(0)).isEqualTo(600L);
        long firstRough = starts.get(1);
        assertThat(firstRough).isBetween(600L, 659L);
        assertThat(starts.subList(1, 7)).containsOnly(firstRough);
        assertThat(starts.subList(7, 15)).containsOnly(firstRough + 600);
        assertThat(starts.subList(15, 19)).containsOnly(firstRough + 1200);
        // The budget searched for the first of them; the other 18 are rough.
        assertThat(rest.stream().filter(j -> of(e, j).rough()).count()).isEqualTo(18);
    }

    @Test
    void a_pass_goes_on_where_the_last_one_stopped_and_keeps_its_times_for_the_jobs_between() {
        var scenario = aCluster().nodes(1).scenario();
        var a = aJob().nodes(1).exclusive();
        var b = aJob().nodes(1).exclusive();
        var c = aJob().nodes(1).exclusive();
        var d = aJob().nodes(1).exclusive();
        Snapshot s = scenario.allBusyUntil(scenario.now + 60).with(a, b, c, d).snapshot();
        Engine engine = new Engine();
        Plan plan = engine.plan(s);
        StartEstimator.Budget twoJobs = new StartEstimator.Budget(2, 0);
        StartEstimates first = engine.estimateStarts(s, plan, twoJobs, null);
        assertThat(of(first, c).start()).hasValue(scenario.now + 60 + 2 * 3600);
        assertThat(of(first, d).rough()).isTrue();

        // Half the budget for the head of the queue (b), the rest from where the first pass stopped (d).
        StartEstimates second = engine.estimateStarts(s, plan, twoJobs, first);
        assertThat(second.carried()).isEqualTo(1);
        assertThat(second.resumeAt()).isZero(); // it searched to the end: the next starts again at the head
        assertThat(of(second, b).start()).hasValue(scenario.now + 60 + 3600);
        assertThat(of(second, c).start()).hasValue(scenario.now + 60 + 2 * 3600);
        assertThat(of(second, d).start()).hasValue(scenario.now + 60 + 3 * 3600);
        assertThat(of(second, d).rough()).isFalse();
        assertThat(of(second, d).nodes()).hasSize(1);
    }

    @Test
    void a_time_kept_from_an_earlier_pass_moves_to_when_its_nodes_can_take_the_job_again() {
        var a = aJob().nodes(1).exclusive();
        var b = aJob().nodes(1).exclusive();
        var c = aJob().nodes(1).exclusive();
        var d = aJob().nodes(1).exclusive();
        var early = aCluster().nodes(1).scenario();
        Snapshot before = early.allBusyUntil(early.now + 60).with(a, b, c, d).snapshot();
        var late = aCluster().nodes(1).scenario();
        // The running job now ends much later: c's old time would overlap it.
        Snapshot after = late.allBusyUntil(late.now + 20_000).with(a, b, c, d).snapshot();
        Engine engine = new Engine();
        StartEstimator.Budget twoJobs = new StartEstimator.Budget(2, 0);
        StartEstimates first = engine.estimateStarts(before, engine.plan(before), twoJobs, null);
        StartEstimates second = engine.estimateStarts(after, engine.plan(after), twoJobs, first);
        assertThat(of(first, c).start()).hasValue(early.now + 60 + 2 * 3600);
        assertThat(of(second, b).start()).hasValue(late.now + 20_000 + 3600);
        // c keeps its node, once b (ahead of it, searched again) is done there; d is searched after it.
        assertThat(of(second, c).start()).hasValue(late.now + 20_000 + 2 * 3600);
        assertThat(of(second, d).start()).hasValue(late.now + 20_000 + 3 * 3600);
        assertThat(second.carried()).isEqualTo(1);
    }
}
