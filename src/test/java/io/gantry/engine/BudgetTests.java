package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * TRES-minutes budgets (Slurm's GrpTRESMins, GrpTRESRunMins, MaxTRESMinsPerJob) as a user sees them: a
 * job starts only if its TRES x time limit fits in every budget above it after what was used and what
 * running jobs may still use, else it pends with Slurm's reason for the first budget it would overrun.
 */
class BudgetTests {

    private static final long NOW = 1_000_000;
    private static final Tres GPU_60 = Tres.parse("gres/gpu=60", Tres.UNLIMITED);

    private static Tres gpuSeconds(long gpuMinutes) {
        return Tres.of(0, 0, gpuMinutes * 60, 0);
    }

    private static Plan plan(EngineFixtures.Scenario scenario, Budgets budgets) {
        Snapshot s = scenario.snapshot().toBuilder().budgets(budgets).build();
        Plan plan = new Engine().plan(s);
        Invariants.check(s, plan);
        return plan;
    }

    private static Budgets budgets(Budget... b) {
        return new Budgets(List.of(b), Map.of("physics", "science", "science", "root"), NOW, Map.of());
    }

    private static PendingReason reasonOf(Plan plan, EngineFixtures.JobBuilder job) {
        return plan.waiting(job.id()).orElseThrow(() -> new AssertionError(job.id() + " started")).reason();
    }

    private static EngineFixtures.Scenario gpus() {
        return aCluster().nodes(2).gpusPerNode(8).scenario().at(NOW);
    }

    @Test
    void two_half_hour_gpu_jobs_fit_a_60_gpu_minute_budget_and_the_third_pends_with_assoc_grp_gres_minutes() {
        var first = aJob().gpus(1).timeLimit(1800);
        var second = aJob().gpus(1).timeLimit(1800);
        var third = aJob().gpus(1).timeLimit(1800);
        Plan plan = plan(gpus().with(first, second, third), budgets(Budget.ofAccount("physics", GPU_60, Tres.ZERO)));
        assertThat(plan.start(first.id())).isPresent();
        assertThat(plan.start(second.id())).isPresent();
        assertThat(reasonOf(plan, third)).isEqualTo(PendingReason.ASSOC_GRP_GRES_MINUTES);
    }

    @Test
    void what_was_used_counts_so_a_job_that_would_overrun_the_rest_pends_and_one_that_fits_starts() {
        var tooLong = aJob().gpus(1).timeLimit(31 * 60);
        var fits = aJob().gpus(1).timeLimit(30 * 60);
        Budgets used30 = budgets(Budget.ofAccount("physics", GPU_60, gpuSeconds(30)));
        assertThat(reasonOf(plan(gpus().with(tooLong), used30), tooLong)).isEqualTo(PendingReason.ASSOC_GRP_GRES_MINUTES);
        assertThat(plan(gpus().with(fits), used30).start(fits.id())).isPresent();
    }

    @Test
    void without_budgets_the_same_jobs_all_start() {
        var first = aJob().gpus(1).timeLimit(3600);
        var second = aJob().gpus(1).timeLimit(3600);
        Plan plan = plan(gpus().with(first, second), Budgets.NONE);
        assertThat(plan.start(first.id())).isPresent();
        assertThat(plan.start(second.id())).isPresent();
    }

    @Test
    void a_budget_on_an_ancestor_account_holds_the_jobs_of_every_account_below_it() {
        var job = aJob().gpus(1).timeLimit(1800);
        Plan plan = plan(gpus().with(job), budgets(Budget.ofAccount("science", GPU_60, gpuSeconds(45))));
        assertThat(reasonOf(plan, job)).isEqualTo(PendingReason.ASSOC_GRP_GRES_MINUTES);
        var other = aJob().gpus(1).timeLimit(1800).account("chemistry");
        assertThat(plan(gpus().with(other), budgets(Budget.ofAccount("science", GPU_60, gpuSeconds(45))))
                .start(other.id())).isPresent();
    }

    @Test
    void a_running_job_counts_what_it_may_still_use_until_its_limit_and_what_it_used_since_the_accrual() {
        var job = aJob().gpus(1).timeLimit(1800);
        // bob's job in physics holds 1 GPU for 40 more minutes: 40 + 30 > 60.
        EngineFixtures.Scenario busy = gpus().running(aJob().build().id(), NOW + 2400,
                new NodeAllocation(EngineFixtures.nodeName(0), 1, 0, List.of(0)));
        assertThat(reasonOf(plan(busy.with(job), budgets(Budget.ofAccount("physics", GPU_60, Tres.ZERO))), job))
                .isEqualTo(PendingReason.ASSOC_GRP_GRES_MINUTES);

        // With 20 minutes left (started 100 s before now): 100 s since an accrual at its start + 20 + 30 <= 60
        // starts, but with the accrual 100 s later than its start those 100 s are in the usage already.
        var next = aJob().gpus(1).timeLimit(1800);
        EngineFixtures.Scenario shorter = gpus().running(aJob().build().id(), NOW + 1200,
                new NodeAllocation(EngineFixtures.nodeName(0), 1, 0, List.of(0)));
        Budget used = Budget.ofAccount("physics", GPU_60, gpuSeconds(9));
        Budgets accruedAtStart = new Budgets(List.of(used), Map.of(), NOW - 100, Map.of());
        Budgets accruedNow = new Budgets(List.of(used), Map.of(), NOW, Map.of());
        // 9 min used + 100 s since its start + 20 min left + 30 min > 60 min; without the 100 s it fits.
        assertThat(reasonOf(plan(shorter.with(next), accruedAtStart), next)).isEqualTo(PendingReason.ASSOC_GRP_GRES_MINUTES);
        var again = aJob().gpus(1).timeLimit(1800);
        EngineFixtures.Scenario same = gpus().running(aJob().build().id(), NOW + 1200,
                new NodeAllocation(EngineFixtures.nodeName(0), 1, 0, List.of(0)));
        assertThat(plan(same.with(again), accruedNow).start(again.id())).isPresent();
    }

    @Test
    void cpu_and_memory_budgets_pend_with_their_own_reasons() {
        var cpus = aJob().cpusPerTask(4).timeLimit(3600);
        Budgets cpu = budgets(Budget.ofAccount("physics", Tres.parse("cpu=200", Tres.UNLIMITED), Tres.ZERO));
        assertThat(reasonOf(plan(gpus().with(cpus), cpu), cpus)).isEqualTo(PendingReason.ASSOC_GRP_CPU_MINUTES_LIMIT);
        var memory = aJob().memoryMb(2048).timeLimit(3600);
        Budgets mem = budgets(Budget.ofUser("physics", "alice", Tres.parse("mem=1G", Tres.UNLIMITED), Tres.ZERO));
        assertThat(reasonOf(plan(gpus().with(memory), mem), memory)).isEqualTo(PendingReason.ASSOC_GRP_MEM_MINUTES);
    }

    @Test
    void the_qos_budget_is_checked_before_the_associations() {
        var job = aJob().gpus(2).timeLimit(3600);
        Plan plan = plan(gpus().with(job), budgets(Budget.ofQos("normal", GPU_60, Tres.ZERO),
                Budget.ofAccount("physics", GPU_60, Tres.ZERO)));
        assertThat(reasonOf(plan, job)).isEqualTo(PendingReason.QOS_GRP_GRES_MINUTES);
    }

    @Test
    void grp_tres_run_mins_counts_only_what_running_jobs_may_still_use() {
        var job = aJob().gpus(1).timeLimit(1800);
        Budget runMins = new Budget("physics", null, null, null, GPU_60, null, gpuSeconds(1_000_000));
        EngineFixtures.Scenario busy = gpus().running(aJob().build().id(), NOW + 2400,
                new NodeAllocation(EngineFixtures.nodeName(0), 1, 0, List.of(0)));
        assertThat(reasonOf(plan(busy.with(job), budgets(runMins)), job))
                .isEqualTo(PendingReason.ASSOC_GRP_GRES_RUN_MINUTES);
        var idle = aJob().gpus(1).timeLimit(1800);
        assertThat(plan(gpus().with(idle), budgets(runMins)).start(idle.id())).isPresent();
    }

    @Test
    void max_tres_mins_per_job_is_taken_from_the_lowest_association_that_sets_it() {
        var job = aJob().gpus(2).timeLimit(3600);
        Budget account = Budget.ofAccount("physics", null, null).withMaxPerJob(GPU_60);
        assertThat(reasonOf(plan(gpus().with(job), budgets(account)), job))
                .isEqualTo(PendingReason.ASSOC_MAX_GRES_MINUTES_PER_JOB);
        var allowed = aJob().gpus(2).timeLimit(3600);
        Budget user = Budget.ofUser("physics", "alice", null, null)
                .withMaxPerJob(Tres.parse("gres/gpu=120", Tres.UNLIMITED));
        assertThat(plan(gpus().with(allowed), budgets(account, user)).start(allowed.id())).isPresent();
    }

    @Test
    void a_qos_with_usage_factor_zero_is_not_charged_against_the_budgets() {
        var first = aJob().gpus(1).timeLimit(3600).qos("free");
        var second = aJob().gpus(1).timeLimit(3600).qos("free");
        Budgets free = new Budgets(List.of(Budget.ofAccount("physics", GPU_60, Tres.ZERO)), Map.of(), NOW,
                Map.of("free", 0L));
        Plan plan = plan(gpus().qos(new Qos("free", 0, 0, 0, null, null, null)).with(first, second), free);
        assertThat(plan.start(first.id())).isPresent();
        assertThat(plan.start(second.id())).isPresent();
    }
}
