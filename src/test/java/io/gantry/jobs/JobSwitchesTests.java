package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JobSwitchesTests {

    @Test
    void aCountAloneWaitsTheLongestAllowed() {
        assertThat(JobSwitches.parse("2")).isEqualTo(new JobSwitches(2, 300));
    }

    @Test
    void theWaitIsInSlurmsTimeFormatsAndCappedAtFiveMinutes() {
        assertThat(JobSwitches.parse("1@2").waitSeconds()).as("a bare number is minutes").isEqualTo(120);
        assertThat(JobSwitches.parse("1@0:30").waitSeconds()).isEqualTo(30);
        assertThat(JobSwitches.parse("1@1:00:00").waitSeconds()).isEqualTo(300);
        assertThat(JobSwitches.parse("1@0").waitSeconds()).as("zero: do not wait").isZero();
        assertThat(JobSwitches.parse("3@1:00").toString()).isEqualTo("3@60");
    }

    @Test
    void theStoredFormReadsBackAsWritten() {
        for (String given : new String[] {"1@0:30", "2@2", "3@0", "4"}) {
            JobSwitches parsed = JobSwitches.parse(given);
            assertThat(JobSwitches.stored(parsed.toString())).as(given).isEqualTo(parsed);
        }
        assertThat(JobSwitches.stored("1@30").waitSeconds()).as("stored seconds, not minutes").isEqualTo(30);
        assertThatThrownBy(() -> JobSwitches.stored("1")).hasMessageContaining("count@seconds");
    }

    @Test
    void badValuesSayWhatIsWrong() {
        assertThatThrownBy(() -> JobSwitches.parse("")).hasMessageContaining("count of leaf switches");
        assertThatThrownBy(() -> JobSwitches.parse("0")).hasMessageContaining("1 to");
        assertThatThrownBy(() -> JobSwitches.parse("x@1")).hasMessageContaining("'x'");
        assertThatThrownBy(() -> JobSwitches.parse("1@soon")).hasMessageContaining("'soon'");
        assertThatThrownBy(() -> JobSwitches.parse("1@UNLIMITED")).hasMessageContaining("UNLIMITED");
        assertThatThrownBy(() -> JobSwitches.parse("99999999999")).hasMessageContaining("not a count");
    }
}
