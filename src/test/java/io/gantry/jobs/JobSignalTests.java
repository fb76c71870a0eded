package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JobSignalTests {

    @ParameterizedTest(name = "--signal={0} is sent as {1}")
    @CsvSource(delimiter = '|', textBlock = """
            USR1           | USR1@60
            B:USR1@5       | B:USR1@5
            b:usr1@5       | B:USR1@5
            SIGTERM        | TERM@60
            sigterm@0      | TERM@0
            R:USR2@30      | USR2@30
            RB:HUP@10      | B:HUP@10
            BR:HUP@10      | B:HUP@10
            10             | USR1@60
            15@65535       | TERM@65535
            34@120         | 34@120
            B:64           | B:64@60
            SIGIOT         | ABRT@60
            """)
    void aValidSignalIsNormalisedAsSlurmReadsIt(String given, String sent) {
        assertThat(JobSignal.parse(given).toString()).isEqualTo(sent);
    }

    @ParameterizedTest(name = "--signal=''{0}'' is refused")
    @ValueSource(strings = {"", "B:", "@60", "USR1@", "USR1@-1", "USR1@65536", "USR1@1m", "0", "65", "FOO",
        "SIGFOO", "X:USR1", "USR1@60@1", "US R1"})
    void anInvalidSignalIsRefusedSayingWhy(String given) {
        assertThatIllegalArgumentException().isThrownBy(() -> JobSignal.parse(given));
    }

    @ParameterizedTest(name = "{0} is signal number {1}")
    @CsvSource({"USR1,10", "TERM,15", "KILL,9", "40,40"})
    void theSignalKnowsItsNumber(String given, int number) {
        assertThat(JobSignal.parse(given).number()).isEqualTo(number);
    }
}
