package io.gantry.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.gantry.cluster.ClusterProperties.PartitionConfig;

/** A partition's gpu-idle-* fields in the cluster file: read with their defaults, each mistake naming its field. */
class GpuIdlePolicyTests {

    @Test
    void theClusterFileFieldsAreCheckedEachNamingItself() {
        List<String> problems = new ArrayList<>();
        GpuIdlePolicy ok = GpuIdlePolicy.of("p", new PartitionConfig("gpu", "n1", true, null, null, 0, "UP", null,
                null, 600L, null, 120L, "requeue"), problems);
        assertThat(problems).isEmpty();
        assertThat(ok).isEqualTo(new GpuIdlePolicy(600, null, 120, GpuIdlePolicy.Action.REQUEUE));
        assertThat(GpuIdlePolicy.of("p", new PartitionConfig("gpu", "n1", true, null, null, 0, "UP", null, null),
                problems)).isNull();
        assertThat(GpuIdlePolicy.of("p", new PartitionConfig("gpu", "n1", true, null, null, 0, "UP", null, null, 0L,
                150.0, -1L, "KILL"), problems)).isNull();
        assertThat(problems).hasSize(4).anyMatch(m -> m.startsWith("p.gpu-idle-timeout-seconds: must be 1 or more"))
                .anyMatch(m -> m.startsWith("p.gpu-idle-threshold-percent:"))
                .anyMatch(m -> m.startsWith("p.gpu-idle-grace-seconds:"))
                .anyMatch(m -> m.startsWith("p.gpu-idle-action: must be WARN, REQUEUE or CANCEL"));
        problems.clear();
        GpuIdlePolicy.of("p", new PartitionConfig("gpu", "n1", true, null, null, 0, "UP", null, null, null, null,
                30L, null), problems);
        assertThat(problems).containsExactly(
                "p.gpu-idle-timeout-seconds: the other gpu-idle-* fields need it (seconds, 1 or more)");
    }
}
