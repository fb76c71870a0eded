package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * Slurm's billing TRES: a partition's TRESBillingWeights price what a job holds, and budgets on
 * {@code billing} (GrpTRESMins=billing=N and the rest) hold jobs by that price.
 */
class BillingTests {

    private static final long NOW = 1_000_000;

    @Test
    void slurm_weights_are_read_case_insensitively_with_memory_per_gb_under_the_g_suffix() {
        BillingWeights w = BillingWeights.parse("CPU=1.0,Mem=0.25G,GRES/gpu=2.0");
        // 4 CPUs, 8 GB, 2 GPUs: 4 + 2 + 4.
        assertThat(w.billing(Tres.of(4, 8192, 2, 1))).isCloseTo(10.0, within(1e-9));
        assertThat(BillingWeights.parse("cpu=1,mem=0.25g,gres/GPU:a100=2")).isEqualTo(w);
        // Without a suffix a memory weight is per MB, as in Slurm.
        assertThat(BillingWeights.parse("Mem=0.001").billing(Tres.of(0, 1000, 0, 0))).isCloseTo(1.0, within(1e-9));
        assertThat(BillingWeights.parse("Node=3").units(Tres.of(8, 0, 0, 2))).isEqualTo(6);
        assertThat(w.toString()).isEqualTo("CPU=1,Mem=0.25G,GRES/gpu=2");
    }

    @Test
    void without_weights_billing_is_the_cpus_and_the_count_is_truncated_as_slurm_stores_it() {
        assertThat(BillingWeights.parse(null).units(Tres.of(12, 65536, 4, 2))).isEqualTo(12);
        assertThat(BillingWeights.parse("CPU=0.5").units(Tres.of(3, 0, 0, 1))).isEqualTo(1);
    }

    @Test
    void max_tres_bills_the_largest_weighted_tres_instead_of_the_sum() {
        BillingWeights w = BillingWeights.parse("CPU=1,GRES/gpu=8").withMaxTres(true);
        assertThat(w.units(Tres.of(16, 0, 1, 1))).isEqualTo(16);
        assertThat(w.units(Tres.of(4, 0, 2, 1))).isEqualTo(16);
    }

    @Test
    void a_bad_weight_string_is_refused_naming_the_item() {
        assertThatThrownBy(() -> BillingWeights.parse("CPU=1,Licenses=2")).hasMessageContaining("Licenses");
        assertThatThrownBy(() -> BillingWeights.parse("CPU=abc")).hasMessageContaining("CPU=abc");
        assertThatThrownBy(() -> BillingWeights.parse("CPU=-1")).hasMessageContaining("not negative");
        assertThatThrownBy(() -> BillingWeights.parse("GRES/gpu")).hasMessageContaining("NAME=WEIGHT");
    }

    private static Plan plan(BillingWeights weights, Budgets budgets, EngineFixtures.JobBuilder... jobs) {
        Snapshot base = aCluster().nodes(2).gpusPerNode(8).scenario().at(NOW).with(jobs).snapshot();
        List<Partition> priced = base.partitions().stream().map(p -> new Partition(p.name(), p.nodes(),
                p.maxTimeSeconds(), p.priorityTier(), p.up(), p.memoryDefault(), p.preemptMode(), weights)).toList();
        Snapshot s = base.toBuilder().partitions(priced).budgets(budgets).build();
        Plan plan = new Engine().plan(s);
        Invariants.check(s, plan);
        return plan;
    }

    private static Budgets billingBudget(long grpMins, long usedSeconds) {
        Budget b = Budget.ofAccount("physics", null, null)
                .withBilling(new Budget.Billing(grpMins, Long.MAX_VALUE, Long.MAX_VALUE, usedSeconds));
        return new Budgets(List.of(b), Map.of("physics", "root"), NOW, Map.of());
    }

    private static PendingReason reasonOf(Plan plan, EngineFixtures.JobBuilder job) {
        return plan.waiting(job.id()).orElseThrow(() -> new AssertionError(job.id() + " started")).reason();
    }

    @Test
    void a_billing_budget_counts_the_gpus_at_their_weight_and_the_job_that_would_overrun_it_pends() {
        BillingWeights gpu10 = BillingWeights.parse("CPU=1,GRES/gpu=10");
        // Each job: 1 CPU + 1 GPU = 11 billing, 60 minutes: 660 billing-minutes.
        var first = aJob().gpus(1).timeLimit(3600);
        var second = aJob().gpus(1).timeLimit(3600);
        Plan plan = plan(gpu10, billingBudget(1000, 0), first, second);
        assertThat(plan.start(first.id())).isPresent();
        assertThat(reasonOf(plan, second)).isEqualTo(PendingReason.ASSOC_GRP_BILLING_MINUTES);
        // The same two jobs billed as CPUs only (Slurm's default) fit: 2 x 60 billing-minutes.
        Plan cpus = plan(BillingWeights.CPUS, billingBudget(1000, 0), aJob().gpus(1).timeLimit(3600),
                aJob().gpus(1).timeLimit(3600));
        assertThat(cpus.starts()).hasSize(2);
    }

    @Test
    void a_running_job_holds_its_billing_until_its_limit_against_the_budget() {
        BillingWeights gpu16 = BillingWeights.parse("CPU=1,GRES/gpu=16");
        var job = aJob().gpus(1).timeLimit(1800);
        Snapshot base = aCluster().nodes(2).gpusPerNode(8).scenario().at(NOW)
                .running(aJob().build().id(), NOW + 1670, new NodeAllocation(EngineFixtures.nodeName(0), 1, 8000,
                        List.of(0)))
                .with(job).snapshot();
        List<Partition> priced = base.partitions().stream().map(p -> new Partition(p.name(), p.nodes(),
                p.maxTimeSeconds(), p.priorityTier(), p.up(), p.memoryDefault(), p.preemptMode(), gpu16)).toList();
        // 17 x 1800 billing-seconds, and the running job may still use 17 x 1670 of them.
        Snapshot s = base.toBuilder().partitions(priced).budgets(billingBudget(510, 1920)).build();
        Plan plan = new Engine().plan(s);
        assertThat(reasonOf(plan, job)).isEqualTo(PendingReason.ASSOC_GRP_BILLING_MINUTES);
    }

    @Test
    void billing_used_before_counts_against_the_budget() {
        BillingWeights gpu10 = BillingWeights.parse("CPU=1,GRES/gpu=10");
        var job = aJob().gpus(1).timeLimit(3600);
        // 400 billing-minutes used: 400 + 660 > 1000.
        assertThat(reasonOf(plan(gpu10, billingBudget(1000, 400 * 60), job), job))
                .isEqualTo(PendingReason.ASSOC_GRP_BILLING_MINUTES);
        var fits = aJob().gpus(1).timeLimit(3600);
        assertThat(plan(gpu10, billingBudget(1000, 340 * 60), fits).start(fits.id())).isPresent();
    }

    @Test
    void qos_billing_budgets_and_max_billing_minutes_per_job_pend_with_their_own_reasons() {
        BillingWeights gpu10 = BillingWeights.parse("CPU=1,GRES/gpu=10");
        var job = aJob().gpus(1).timeLimit(3600).qos("normal");
        Budget qos = Budget.ofQos("normal", null, null)
                .withBilling(new Budget.Billing(600, Long.MAX_VALUE, Long.MAX_VALUE, 0));
        Plan plan = plan(gpu10, new Budgets(List.of(qos), Map.of(), NOW, Map.of()), job);
        assertThat(reasonOf(plan, job)).isEqualTo(PendingReason.QOS_GRP_BILLING_MINUTES);
        var perJob = aJob().gpus(1).timeLimit(3600);
        Budget max = Budget.ofAccount("physics", null, null)
                .withBilling(new Budget.Billing(Long.MAX_VALUE, Long.MAX_VALUE, 659, 0));
        assertThat(reasonOf(plan(gpu10, new Budgets(List.of(max), Map.of(), NOW, Map.of()), perJob), perJob))
                .isEqualTo(PendingReason.ASSOC_MAX_BILLING_MINUTES_PER_JOB);
    }
}
