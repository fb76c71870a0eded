package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.gantry.cli.SacctmgrWords.Word;
import tools.jackson.databind.json.JsonMapper;

/**
 * sacctmgr's QOS Flags as Gantry reads them: Slurm's NoDecay and Gantry's GpuIdleExempt, {@code Flags=} setting
 * exactly those listed, {@code +=} and {@code -=} one without touching the other, -1 clearing both, shown
 * under Flags; and GrpWall as a time, shown in minutes.
 */
class SacctmgrGpuIdleExemptTests {

    @Test
    void flagsSetsAndClearsTheExemptionNoDecayAndOverPartQosAndRefusesSlurmsOtherFlags() {
        assertThat(SacctmgrQos.qosFlags(Word.of("Flags=GpuIdleExempt")))
                .isEqualTo(Map.of("gpuIdleExempt", true, "noDecay", false, "overPartQos", false));
        assertThat(SacctmgrQos.qosFlags(Word.of("flags=gpuidleexempt,nodecay")))
                .isEqualTo(Map.of("gpuIdleExempt", true, "noDecay", true, "overPartQos", false));
        assertThat(SacctmgrQos.qosFlags(Word.of("Flags=-1"))).isEqualTo(Map.of("gpuIdleExempt", false, "noDecay", false,
                "overPartQos", false));
        assertThat(SacctmgrQos.qosFlags(Word.of("Flags+=NoDecay"))).isEqualTo(Map.of("noDecay", true));
        assertThat(SacctmgrQos.qosFlags(Word.of("Flags-=GpuIdleExempt"))).isEqualTo(Map.of("gpuIdleExempt", false));
        assertThat(SacctmgrQos.qosFlags(Word.of("Flags=OverPartQOS")))
                .isEqualTo(Map.of("gpuIdleExempt", false, "noDecay", false, "overPartQos", true));
        assertThat(SacctmgrQos.qosFlags(Word.of("Flags+=overpartqos"))).isEqualTo(Map.of("overPartQos", true));
        assertThatThrownBy(() -> SacctmgrQos.qosFlags(Word.of("Flags=DenyOnLimit")))
                .hasMessageContaining("OverPartQOS, NoDecay and GpuIdleExempt");
    }

    @Test
    void grpWallIsATimeWhoseBareNumberIsMinutesAndMinusOneClearsIt() {
        assertThat(SacctmgrQos.qosSetting(Word.of("GrpWall=90"))).isEqualTo(Map.entry("grpWallSeconds", 5400L));
        assertThat(SacctmgrAssociations.assocLimit(Word.of("grpwall=1-00:00:00")))
                .isEqualTo(Map.entry("grpWallSeconds", 86_400L));
        assertThat(SacctmgrAssociations.assocLimit(Word.of("GrpWall=-1"))).isEqualTo(Map.entry("grpWallSeconds", -1L));
        assertThatThrownBy(() -> SacctmgrQos.qosSetting(Word.of("GrpWall=soon"))).hasMessageContaining("soon");
    }

    @Test
    void showQosPrintsTheFlag() {
        JsonMapper json = JsonMapper.builder().build();
        assertThat(SacctmgrQos.qosValues(json.readTree("{\"name\":\"nb\",\"gpuIdleExempt\":true}")).get("FLAGS"))
                .isEqualTo("GpuIdleExempt");
        assertThat(SacctmgrQos.qosValues(json.readTree("{\"name\":\"g\",\"gpuIdleExempt\":true,\"overPartQos\":true}"))
                .get("FLAGS")).isEqualTo("OverPartQOS,GpuIdleExempt");
        assertThat(SacctmgrQos.qosValues(json.readTree("{\"name\":\"normal\",\"gpuIdleExempt\":false}")).get("FLAGS"))
                .isNull();
        Map<String, String> both = SacctmgrQos.qosValues(json.readTree(
                "{\"name\":\"q\",\"gpuIdleExempt\":true,\"noDecay\":true,\"grpWallSeconds\":5400}"));
        assertThat(both.get("FLAGS")).isEqualTo("NoDecay,GpuIdleExempt");
        assertThat(both.get("GRPW")).isEqualTo("90");
    }
}
