package io.gantry.reports;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.gantry.gpus.AllocatedIdle;

/** Allocated-but-idle GPU time summed by account, user, partition and job, most idle first. */
class AllocatedIdleGpusTests {

    @Test
    void sumsEachGroupInHoursMostIdleFirst() {
        AllocatedIdleGpus report = AllocatedIdleGpus.of(5, List.of(
                new AllocatedIdle("1", "physics", "alice", "gpu", 3600, 7200),
                new AllocatedIdle("2", "physics", "bob", "gpu", 1800, 1800),
                new AllocatedIdle("3", "bio", "bob", "debug", 7200, 7200)));
        assertThat(report.thresholdPercent()).isEqualTo(5);
        assertThat(report.gpuHours()).isEqualTo(3.5);
        assertThat(report.measuredGpuHours()).isEqualTo(4.5);
        assertThat(report.byAccount()).containsExactly(new AllocatedIdleGpus.Group("bio", 2, 2),
                new AllocatedIdleGpus.Group("physics", 1.5, 2.5));
        assertThat(report.byUser()).containsExactly(new AllocatedIdleGpus.Group("bob", 2.5, 2.5),
                new AllocatedIdleGpus.Group("alice", 1, 2));
        assertThat(report.byPartition()).extracting(AllocatedIdleGpus.Group::name).containsExactly("debug", "gpu");
        assertThat(report.byJob()).extracting(AllocatedIdleGpus.Group::name).containsExactly("3", "1", "2");
    }

    @Test
    void aJobWithoutAnAccountIsGroupedUnderAnEmptyName() {
        AllocatedIdleGpus report = AllocatedIdleGpus.of(5, List.of(new AllocatedIdle("1", null, "alice", "gpu", 0, 60)));
        assertThat(report.byAccount()).containsExactly(new AllocatedIdleGpus.Group("", 0, 60 / 3600.0));
        assertThat(AllocatedIdleGpus.of(5, List.of()).byJob()).isEmpty();
    }
}
