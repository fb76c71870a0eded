package io.gantry.engine;

import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Expected values were checked against Slurm 22.05 ({@code sbatch -H -t ...} then
 * {@code scontrol show job}); where Slurm rounds up to a minute we expect exact seconds.
 */
class SlurmTimeTests {

    @ParameterizedTest(name = "{0} is {1} seconds ({2})")
    @CsvSource(delimiter = '|', textBlock = """
            90         | 5400   | minutes
            1          | 60     | minutes
            1:30       | 90     | minutes:seconds, which Slurm rounds up to 2 minutes
            0:30       | 30     | minutes:seconds under a minute
            2:03:04    | 7384   | hours:minutes:seconds
            1-2        | 93600  | days-hours
            1-2:30     | 95400  | days-hours:minutes
            1-2:30:15  | 95415  | days-hours:minutes:seconds
            1440       | 86400  | a day in minutes
            1:90:00    | 9000   | minutes over 59 carried into hours, as Slurm does
            10:75      | 675    | seconds over 59 carried into minutes, as Slurm does
            1-25       | 176400 | hours over 23 carried into days, as Slurm does
            007        | 420    | leading zeros
            """)
    void eachSlurmTimeFormatReadsAsExactSeconds(String text, long seconds, String form) {
        assertThat(SlurmTime.parseSeconds(text)).isEqualTo(seconds);
    }

    @ParameterizedTest(name = "{0} means no time limit")
    @CsvSource(textBlock = """
            0
            UNLIMITED
            unlimited
            INFINITE
            infinite
            0:0
            00:00:00
            0-0
            """)
    void zeroAndTheWordsForUnlimitedMeanNoLimit(String text) {
        assertThat(SlurmTime.parseSeconds(text)).isEqualTo(SlurmTime.UNLIMITED);
    }

    @ParameterizedTest(name = "{0} is rejected because {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            ""                     | it is empty
            abc                    | 'a' at position 0 is not allowed; use digits, '-' and ':' or UNLIMITED
            1h                     | 'h' at position 1 is not allowed; use digits, '-' and ':' or UNLIMITED
            1.5                    | '.' at position 1 is not allowed; use digits, '-' and ':' or UNLIMITED
            " 1"                   | ' ' at position 0 is not allowed; use digits, '-' and ':' or UNLIMITED
            -5                     | a time limit cannot be negative; use UNLIMITED for none
            -1                     | a time limit cannot be negative; use UNLIMITED for none
            1:2:3:4                | it has 4 ':'-separated fields, at most 3 are allowed
            1-2:3:4:5              | it has 4 ':'-separated fields, at most 3 are allowed
            1-2-3                  | only one '-' may separate days from hours
            1:-2                   | '1:' is not a number; days come first, as in d-h:m:s
            1-                     | it has an empty field
            1:                     | it has an empty field
            :1                     | it has an empty field
            1::2                   | it has an empty field
            9999999999999999999    | it is too large
            153722867280912931     | it is too large
            106751991167301-0      | it is too large
            """)
    void invalidTimeLimitsNameTheInputAndTheProblem(String text, String problem) {
        assertThatExceptionOfType(SlurmTimeException.class).isThrownBy(() -> SlurmTime.parseSeconds(text))
            .withMessage("Invalid time limit '" + text + "': " + problem)
            .satisfies(error -> assertThat(error.input()).isEqualTo(text));
    }

    @Test
    void theLargestLimitThatFitsStillReads() {
        assertThat(SlurmTime.parseSeconds("153722867280912930")).isEqualTo(153722867280912930L * 60);
    }

    @ParameterizedTest(name = "{0} seconds format as {1}")
    @CsvSource(delimiter = '|', textBlock = """
            -1     | UNLIMITED
            0      | 00:00:00
            59     | 00:00:59
            5400   | 01:30:00
            86399  | 23:59:59
            86400  | 1-00:00:00
            95415  | 1-02:30:15
            9000000 | 104-04:00:00
            """)
    void secondsFormatAsSlurmPrintsThem(long seconds, String formatted) {
        assertThat(SlurmTime.format(seconds)).isEqualTo(formatted);
    }

    @Test
    void negativeSecondsOtherThanUnlimitedCannotBeFormatted() {
        assertThatIllegalArgumentException().isThrownBy(() -> SlurmTime.format(-2));
    }

    @Test
    void everyFormattedLimitReadsBackAsTheSameSeconds() {
        Random random = new Random(42);
        for (int i = 0; i < 10_000; i++) {
            long seconds = 1 + (random.nextBoolean() ? random.nextInt(86_400 * 3) : (random.nextLong() >>> 20));
            String formatted = SlurmTime.format(seconds);
            assertThat(SlurmTime.parseSeconds(formatted)).as(formatted).isEqualTo(seconds);
        }
    }

}
