package io.gantry.jobs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Units and rounding as Slurm 22.05's sbatch reads {@code --mem}. */
class MemorySizeTests {

    @ParameterizedTest(name = "{0} is {1} MB")
    @CsvSource(delimiter = '|', textBlock = """
            1024   | 1024
            512M   | 512
            512m   | 512
            16G    | 16384
            16g    | 16384
            16GB   | 16384
            16MB   | 16
            1T     | 1048576
            1024K  | 1
            500K   | 1
            1025K  | 2
            0      | 0
            0G     | 0
            """)
    void sizesAreMegabytesUnlessAUnitSaysOtherwiseAndKilobytesRoundUp(String text, long megabytes) {
        assertThat(MemorySize.parseMegabytes(text)).isEqualTo(megabytes);
    }

    @ParameterizedTest(name = "{0} is rejected: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            ``                     | it is empty
            -1                     | '-' at position 0 is not allowed; write a whole number with an optional K, M, G or T
            G                      | 'G' at position 0 is not allowed; write a whole number with an optional K, M, G or T
            1.5G                   | '.5G' at position 1 is not a unit; use K, M, G or T (no unit means megabytes)
            16B                    | 'B' at position 2 is not a unit; use K, M, G or T (no unit means megabytes)
            1P                     | 'P' at position 1 is not a unit; use K, M, G or T (no unit means megabytes)
            16Gx                   | 'Gx' at position 2 is not a unit; use K, M, G or T (no unit means megabytes)
            `16 G`                 | ' G' at position 2 is not a unit; use K, M, G or T (no unit means megabytes)
            99999999999999999999   | it is too large
            9999999999999T         | it is too large
            """)
    void malformedSizesNameTheProblem(String text, String problem) {
        assertThatExceptionOfType(JobSpecException.class).isThrownBy(() -> MemorySize.parseMegabytes(text))
            .withMessage("Invalid memory size '" + text + "': " + problem);
    }

}
