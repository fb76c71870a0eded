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

    @ParameterizedTest(name = "scancel --signal={0} sends {1}")
    @CsvSource({"USR1,USR1", "sigusr2,USR2", "SIGTERM,TERM", "10,USR1", "34,34", "' KILL ',KILL"})
    void aSignalToSendIsReadAsScancelReadsIt(String given, String name) {
        assertThat(JobSignal.signalName(given)).isEqualTo(name);
    }

    @ParameterizedTest(name = "scancel --signal=''{0}'' is refused")
    @ValueSource(strings = {"", " ", "FOO", "0", "65", "USR1@60", "B:USR1", "-9"})
    void aWordThatIsNoSignalIsRefused(String given) {
        assertThatIllegalArgumentException().isThrownBy(() -> JobSignal.signalName(given));
    }

    @org.junit.jupiter.api.Test
    void aJobWithoutItsOwnSignalGetsSigtermAsItsGraceTimeStartsButNotItsBatchShell() {
        JobSignalRequested.Target target = JobSignal.atGraceStart("42", java.util.List.of("n1", "n2"), null);
        assertThat(target.signal()).isEqualTo("TERM");
        assertThat(target.scope()).isEqualTo(JobSignalRequested.Scope.CHILDREN);
        assertThat(target.nodes()).containsExactly("n1", "n2");
    }

    @org.junit.jupiter.api.Test
    void aJobsOwnSignalIsWhatItGetsAsItsGraceTimeStartsOnItsBatchShellWithB() {
        JobSignalRequested.Target own = JobSignal.atGraceStart("42", java.util.List.of("n1", "n2"), "USR1@120");
        assertThat(own.signal()).isEqualTo("USR1");
        assertThat(own.scope()).isEqualTo(JobSignalRequested.Scope.CHILDREN);
        JobSignalRequested.Target batch = JobSignal.atGraceStart("42", java.util.List.of("n1", "n2"), "B:USR2@60");
        assertThat(batch.signal()).isEqualTo("USR2");
        assertThat(batch.scope()).isEqualTo(JobSignalRequested.Scope.BATCH);
        assertThat(batch.nodes()).as("only the batch host runs the batch shell").containsExactly("n1");
    }
}
