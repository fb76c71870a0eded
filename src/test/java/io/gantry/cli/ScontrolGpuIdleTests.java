package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.json.JsonMapper;

/** {@code scontrol show partition}'s GPU idle policy line, which Slurm has no counterpart of. */
class ScontrolGpuIdleTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void aPartitionWithAPolicyShowsItAndOneWithoutShowsNothing() {
        assertThat(Scontrol.gpuIdleLine(JSON.readTree("""
                {"name":"gpu","gpuIdle":{"timeoutSeconds":1800,"thresholdPercent":5.0,"graceSeconds":600,
                 "action":"CANCEL"}}"""))).containsExactly("GpuIdleTimeout=1800", "GpuIdleThreshold=5%",
                "GpuIdleGrace=600", "GpuIdleAction=CANCEL");
        assertThat(Scontrol.gpuIdleLine(JSON.readTree("""
                {"name":"gpu","gpuIdle":{"timeoutSeconds":60,"thresholdPercent":12.5,"graceSeconds":0,
                 "action":"WARN"}}"""))).contains("GpuIdleThreshold=12.5%");
        assertThat(Scontrol.gpuIdleLine(JSON.readTree("{\"name\":\"cpu\",\"gpuIdle\":null}"))).isNull();
        assertThat(Scontrol.gpuIdleLine(JSON.readTree("{\"name\":\"cpu\"}"))).isNull();
    }
}
