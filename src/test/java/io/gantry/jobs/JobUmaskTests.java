package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JobUmaskTests {

    @ParameterizedTest(name = "umask {0} is kept as {1}")
    @CsvSource({"0022,0022", "022,0022", "0077,0077", "777,0777", "0000,0000", "007,0007"})
    void threeOrFourOctalDigitsAreAUmask(String given, String kept) {
        assertThat(JobUmask.parse(given)).isEqualTo(kept);
    }

    @ParameterizedTest(name = "umask ''{0}'' is refused")
    @ValueSource(strings = {"", "22", "0", "00022", "0088", "u=rwx", "1022", " 022", "0x12", "02\n2"})
    void anythingElseIsRefused(String given) {
        assertThatIllegalArgumentException().isThrownBy(() -> JobUmask.parse(given))
                .withMessageContaining("3 or 4 octal digits");
    }
}
