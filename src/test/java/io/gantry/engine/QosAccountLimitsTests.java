package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A QOS's MaxJobsPerAccount, MaxTRESPerAccount and MinTRESPerJob, in the scenarios recorded on the
 * reference Slurm 22.05 (src/test/resources/cli/slurm-22.05-limits/qos.txt), with the same outcomes and
 * reasons: one account's jobs under the QOS are held together, another account's run beside them.
 */
class QosAccountLimitsTests {

    private static Qos qos(int maxJobsPerAccount, String maxTresPerAccount, String minTresPerJob) {
        return Qos.named("q", 0).withAccountLimits(maxJobsPerAccount, Tres.parse(maxTresPerAccount, Tres.UNLIMITED),
                Tres.parse(minTresPerJob, Tres.ZERO));
    }

    private static PendingReason reasonOf(Plan plan, EngineFixtures.JobBuilder job) {
        return plan.waiting(job.id()).orElseThrow(() -> new AssertionError(job.id() + " started")).reason();
    }

    @Test
    void max_jobs_per_account_holds_the_second_job_of_one_account_and_not_another_accounts() {
        var first = aJob().qos("q").account("physics").user("alice");
        var second = aJob().qos("q").account("physics").user("alice");
        var chem = aJob().qos("q").account("chem").user("bob");
        Plan plan = aCluster().scenario().qos(qos(1, null, null)).with(first, second, chem).plan();
        assertThat(plan.start(first.id())).isPresent();
        assertThat(reasonOf(plan, second)).isEqualTo(PendingReason.QOS_MAX_JOBS_PER_ACCOUNT).hasToString("MaxJobsPerAccount");
        assertThat(plan.start(chem.id())).isPresent();
    }

    @Test
    void max_tres_per_account_holds_gpus_and_cpus_of_one_account_with_slurms_reasons() {
        var g1 = aJob().qos("q").account("physics").gpus(1);
        var g2 = aJob().qos("q").account("physics").gpus(1);
        var g3 = aJob().qos("q").account("physics").gpus(1);
        var cpus = aJob().qos("q").account("physics").cpusPerTask(4);
        var chem = aJob().qos("q").account("chem").user("bob").gpus(2);
        Plan plan = aCluster().nodes(2).gpusPerNode(8).scenario().qos(qos(0, "gres/gpu=2,cpu=3", null))
                .with(g1, g2, g3, cpus, chem).plan();
        assertThat(plan.start(g1.id())).isPresent();
        assertThat(plan.start(g2.id())).isPresent();
        assertThat(reasonOf(plan, g3)).isEqualTo(PendingReason.QOS_MAX_GRES_PER_ACCOUNT).hasToString("MaxGRESPerAccount");
        assertThat(reasonOf(plan, cpus)).isEqualTo(PendingReason.QOS_MAX_CPU_PER_ACCOUNT).hasToString("MaxCpuPerAccount");
        assertThat(plan.start(chem.id())).isPresent();
    }

    @Test
    void a_job_asking_less_than_min_tres_per_job_never_runs_and_says_which() {
        var fewGpus = aJob().qos("q").gpus(1).cpusPerTask(2);
        var fewCpus = aJob().qos("q").gpus(2).cpusPerTask(1);
        var enough = aJob().qos("q").gpus(2).cpusPerTask(2);
        Plan plan = aCluster().nodes(2).gpusPerNode(8).scenario().qos(qos(0, null, "gres/gpu=2,cpu=2"))
                .with(fewGpus, fewCpus, enough).plan();
        assertThat(reasonOf(plan, fewGpus)).isEqualTo(PendingReason.QOS_MIN_GRES).hasToString("QOSMinGRES");
        assertThat(reasonOf(plan, fewCpus)).isEqualTo(PendingReason.QOS_MIN_CPU).hasToString("QOSMinCpuNotSatisfied");
        assertThat(plan.start(enough.id())).isPresent();
    }
}
