package io.gantry.jobs;

import java.time.Instant;
import java.time.ZoneId;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Submitted at 2026-12-02T15:46:21 UTC, the moment the expected values were taken from Slurm
 * 22.05 ({@code sbatch -H --begin=...} then the job's {@code EligibleTime}).
 */
class BeginTimeTests {

    private static final Instant NOW = Instant.parse("2026-12-02T15:46:21Z");

    private static final ZoneId UTC = ZoneId.of("UTC");

    @ParameterizedTest(name = "{0} begins at {1}")
    @CsvSource(delimiter = '|', textBlock = """
            now                  | 2026-12-02T15:46:21Z
            now+60               | 2026-12-02T15:47:21Z
            now+1hour            | 2026-12-02T16:46:21Z
            now+1hours           | 2026-12-02T16:46:21Z
            now+2minutes         | 2026-12-02T15:48:21Z
            now+30seconds        | 2026-12-02T15:46:51Z
            now+3days            | 2026-12-05T15:46:21Z
            now+1week            | 2026-12-09T15:46:21Z
            NOW+1HOUR            | 2026-12-02T16:46:21Z
            today                | 2026-12-02T00:00:00Z
            tomorrow             | 2026-12-03T00:00:00Z
            midnight             | 2026-12-03T00:00:00Z
            noon                 | 2026-12-03T12:00:00Z
            fika                 | 2026-12-03T15:00:00Z
            teatime              | 2026-12-02T16:00:00Z
            16:00                | 2026-12-02T16:00:00Z
            16:00:30             | 2026-12-02T16:00:30Z
            4:00PM               | 2026-12-02T16:00:00Z
            10:00AM              | 2026-12-03T10:00:00Z
            12:00am              | 2026-12-03T00:00:00Z
            2027-01-20           | 2027-01-20T00:00:00Z
            2027-01-20T12:34     | 2027-01-20T12:34:00Z
            2027-01-20T12:34:56  | 2027-01-20T12:34:56Z
            01/20/27             | 2027-01-20T00:00:00Z
            012027               | 2027-01-20T00:00:00Z
            01/20                | 2027-01-20T00:00:00Z
            12/25                | 2026-12-25T00:00:00Z
            tomorrowT10:00       | 2026-12-03T10:00:00Z
            todayT16:00          | 2026-12-02T16:00:00Z
            2025-01-01           | 2025-01-01T00:00:00Z
            """)
    void eachSlurmBeginFormResolvesAgainstTheSubmissionTime(String text, Instant expected) {
        assertThat(BeginTime.parse(text).resolve(NOW, UTC)).isEqualTo(expected);
    }

    @Test
    void timesOfDayAreReadInTheGivenZone() {
        ZoneId stockholm = ZoneId.of("Europe/Stockholm");

        assertThat(BeginTime.parse("17:00").resolve(NOW, stockholm)).isEqualTo(Instant.parse("2026-12-02T16:00:00Z"));
        assertThat(BeginTime.parse("16:00").resolve(NOW, stockholm)).isEqualTo(Instant.parse("2026-12-03T15:00:00Z"));
    }

    @Test
    void aBeginTimeKeepsItsTextAndComparesByIt() {
        assertThat(BeginTime.parse("now+1hour")).hasToString("now+1hour").isEqualTo(BeginTime.parse("now+1hour"));
    }

    @ParameterizedTest(name = "{0} is rejected: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            ``                 | it is empty
            xyz                | 'xyz' is not a date or time; use YYYY-MM-DD[THH:MM[:SS]], HH:MM[:SS], now+N[units], today, tomorrow, midnight or noon
            16                 | '16' is not a date or time; use YYYY-MM-DD[THH:MM[:SS]], HH:MM[:SS], now+N[units], today, tomorrow, midnight or noon
            elevenses          | 'elevenses' is not a date or time; use YYYY-MM-DD[THH:MM[:SS]], HH:MM[:SS], now+N[units], today, tomorrow, midnight or noon
            4pm                | '4pm' is not a date or time; use YYYY-MM-DD[THH:MM[:SS]], HH:MM[:SS], now+N[units], today, tomorrow, midnight or noon
            24:00              | '24:00' is not a time of day; use 00:00 to 23:59:59
            12:60              | '12:60' is not a time of day; use 00:00 to 23:59:59
            13:00PM            | hour 13 does not go with AM or PM; use 1 to 12
            now+               | after 'now' write +count[unit], as in now+1hour or now+60
            now-5              | after 'now' write +count[unit], as in now+1hour or now+60
            now+x              | after 'now' write +count[unit], as in now+1hour or now+60
            now+2m             | 'm' is not a unit; use seconds, minutes, hours, days or weeks
            now+10s            | 's' is not a unit; use seconds, minutes, hours, days or weeks
            now+99999999999999999999 | the delay is too large
            2027-13-01         | there is no such date (Invalid value for MonthOfYear (valid values 1 - 12): 13)
            2027-02-30         | there is no such date (Invalid date 'FEBRUARY 30')
            2027-01-20T        | a time of day is missing after position 10
            2027-01-20T25:00   | '25:00' is not a time of day; use 00:00 to 23:59:59
            2027-01-20X12:00   | 'x' at position 10: join a date and a time with 'T', as in 2027-01-20T12:34
            2027-1-2           | '2027-1-2' is not a date or time; use YYYY-MM-DD[THH:MM[:SS]], HH:MM[:SS], now+N[units], today, tomorrow, midnight or noon
            """)
    void malformedBeginTimesNameTheProblem(String text, String problem) {
        assertThatExceptionOfType(JobSpecException.class).isThrownBy(() -> BeginTime.parse(text))
            .withMessage("Invalid begin time '" + text + "': " + problem);
    }

}
