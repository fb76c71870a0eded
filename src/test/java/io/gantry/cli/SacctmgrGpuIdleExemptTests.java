package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.gantry.cli.SacctmgrWords.Word;
import tools.jackson.databind.json.JsonMapper;

/** sacctmgr's QOS Flags as Gantry reads them: GpuIdleExempt only, -1 clearing it, shown under Flags. */
class SacctmgrGpuIdleExemptTests {

    @Test
    void flagsSetsAndClearsTheExemptionAndOverPartQosAndRefusesSlurmsOtherFlags() {
        assertThat(SacctmgrQos.qosSetting(Word.of("Flags=GpuIdleExempt")))
                .isEqualTo(Map.entry("flags", Map.of("gpuIdleExempt", true, "overPartQos", false)));
        assertThat(SacctmgrQos.qosSetting(Word.of("flags=gpuidleexempt,overpartqos")))
                .isEqualTo(Map.entry("flags", Map.of("gpuIdleExempt", true, "overPartQos", true)));
        assertThat(SacctmgrQos.qosSetting(Word.of("Flags=OverPartQOS")))
                .isEqualTo(Map.entry("flags", Map.of("gpuIdleExempt", false, "overPartQos", true)));
        assertThat(SacctmgrQos.qosSetting(Word.of("Flags=-1")))
                .isEqualTo(Map.entry("flags", Map.of("gpuIdleExempt", false, "overPartQos", false)));
        assertThatThrownBy(() -> SacctmgrQos.qosSetting(Word.of("Flags=DenyOnLimit")))
                .hasMessageContaining("GpuIdleExempt and OverPartQOS");
    }

    @Test
    void showQosPrintsTheFlag() {
        JsonMapper json = JsonMapper.builder().build();
        assertThat(SacctmgrQos.qosValues(json.readTree("{\"name\":\"nb\",\"gpuIdleExempt\":true}")).get("FLAGS"))
                .isEqualTo("GpuIdleExempt");
        assertThat(SacctmgrQos.qosValues(json.readTree("{\"name\":\"g\",\"gpuIdleExempt\":true,\"overPartQos\":true}"))
                .get("FLAGS")).isEqualTo("GpuIdleExempt,OverPartQOS");
        assertThat(SacctmgrQos.qosValues(json.readTree("{\"name\":\"normal\",\"gpuIdleExempt\":false}")).get("FLAGS"))
                .isNull();
    }
}
