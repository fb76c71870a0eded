package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * Slurm's PriorityWeightTRES: each TRES's factor is what the job asks of it over its partition's total,
 * weighted and added to the priority, and the breakdown shows each.
 */
class TresPriorityTests {

    private static final long NOW = 1_000_000;
    private static final PriorityWeights NO_OTHER = new PriorityWeights(0, 0, 0, 0, 0, 0, 0, 86400, false);

    private static Priority priorityOf(TresPriorityWeights tres, EngineFixtures.JobBuilder job,
            EngineFixtures.JobBuilder blocker) {
        Policy policy = new Policy("tres", NO_OTHER.withTres(tres), false, 1);
        // 4 nodes of 64 CPUs and 8 GPUs: 256 CPUs, 32 GPUs; the blocker takes them all so the job waits.
        EngineFixtures.Scenario s = aCluster().nodes(4).gpusPerNode(8).scenario().at(NOW).policy(policy)
                .with(blocker, job);
        Plan plan = new Engine().plan(s.snapshot());
        return plan.waiting(job.id()).orElseThrow().priority();
    }

    @Test
    void each_tres_counts_its_share_of_the_partition_times_its_weight() {
        var blocker = aJob().nodes(4).gpusPerNode(8).exclusive();
        var job = aJob().tasks(64).gpus(8);
        Priority p = priorityOf(TresPriorityWeights.parse("CPU=1000,GRES/gpu=3000"), job, blocker);
        assertThat(p.tres().cpu()).isCloseTo(64.0 / 256, within(1e-9));
        assertThat(p.tres().gpu()).isCloseTo(8.0 / 32, within(1e-9));
        // 1000 x 0.25 + 3000 x 0.25, and nothing else weighs.
        assertThat(p.value()).isEqualTo(1000);
        assertThat(p.tres().text(TresPriorityWeights.parse("CPU=1000,GRES/gpu=3000"))).isEqualTo("cpu=250,gres/gpu=750");
    }

    @Test
    void a_bigger_gpu_job_ranks_higher_and_without_tres_weights_nothing_changes() {
        var blocker = aJob().nodes(4).gpusPerNode(8).exclusive();
        TresPriorityWeights gpu = TresPriorityWeights.parse("gres/GPU=3000");
        long small = priorityOf(gpu, aJob().gpus(1), blocker).value();
        long big = priorityOf(gpu, aJob().gpus(16), aJob().nodes(4).gpusPerNode(8).exclusive()).value();
        assertThat(big).isGreaterThan(small);
        assertThat(priorityOf(TresPriorityWeights.NONE, aJob().gpus(16), aJob().nodes(4).gpusPerNode(8).exclusive())
                .value()).isZero();
    }

    @Test
    void a_bad_weight_string_is_refused_naming_the_item() {
        assertThatThrownBy(() -> TresPriorityWeights.parse("CPU=1.5")).hasMessageContaining("CPU=1.5");
        assertThatThrownBy(() -> TresPriorityWeights.parse("Bogus=1")).hasMessageContaining("Bogus");
        assertThat(TresPriorityWeights.parse("cpu=1000,Mem=2000,GRES/gpu:h100=3000").toString())
                .isEqualTo("CPU=1000,Mem=2000,GRES/gpu=3000");
    }
}
