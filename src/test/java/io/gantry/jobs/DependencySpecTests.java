package io.gantry.jobs;

import java.util.List;

import io.gantry.jobs.DependencySpec.Condition;
import io.gantry.jobs.DependencySpec.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.gantry.jobs.DependencySpec.Type.AFTER;
import static io.gantry.jobs.DependencySpec.Type.AFTERANY;
import static io.gantry.jobs.DependencySpec.Type.AFTERNOTOK;
import static io.gantry.jobs.DependencySpec.Type.AFTEROK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Forms checked against Slurm 22.05 ({@code sbatch -H -d ...} then {@code scontrol show job}). */
class DependencySpecTests {

    @Test
    void afterWaitsForTheStartOfEachListedJob() {
        assertThat(DependencySpec.parse("after:1:2")).isEqualTo(new DependencySpec(false, false,
                List.of(condition(AFTER, 1), condition(AFTER, 2))));
    }

    @Test
    void commaMeansAllConditionsMustHold() {
        DependencySpec spec = DependencySpec.parse("afterok:1:2,afterany:3");

        assertThat(spec.anyOf()).isFalse();
        assertThat(spec.conditions()).containsExactly(condition(AFTEROK, 1), condition(AFTEROK, 2), condition(AFTERANY, 3));
    }

    @Test
    void questionMarkMeansAnyConditionIsEnough() {
        DependencySpec spec = DependencySpec.parse("afterany:1?afternotok:2");

        assertThat(spec.anyOf()).isTrue();
        assertThat(spec.conditions()).containsExactly(condition(AFTERANY, 1), condition(AFTERNOTOK, 2));
    }

    @Test
    void singletonStandsAloneOrWithOtherConditions() {
        assertThat(DependencySpec.parse("singleton")).isEqualTo(new DependencySpec(false, true, List.of()));
        assertThat(DependencySpec.parse("singleton,afterok:5"))
            .isEqualTo(new DependencySpec(false, true, List.of(condition(AFTEROK, 5))));
    }

    @Test
    void anArrayTaskIsNamedWithAnUnderscoreAndTheWholeArrayWithAStar() {
        assertThat(DependencySpec.parse("afterok:12_3").conditions()).containsExactly(new Condition(AFTEROK, 12, 3, 0));
        assertThat(DependencySpec.parse("afterok:12_*")).isEqualTo(DependencySpec.parse("afterok:12"));
    }

    @Test
    void afterTakesADelayInMinutesForEachJob() {
        assertThat(DependencySpec.parse("after:7+10:8").conditions())
            .containsExactly(new Condition(AFTER, 7, null, 10), new Condition(AFTER, 8, null, 0));
    }

    @Test
    void aBareJobIdWaitsForItToEndAsAfteranyDoesInSlurm() {
        assertThat(DependencySpec.parse("42")).hasToString("afterany:42");
    }

    @ParameterizedTest(name = "{0} is written {1}")
    @CsvSource(delimiter = '|', textBlock = """
            afterok:1                     | afterok:1
            AFTEROK:1:2,AfterAny:3        | afterok:1:2,afterany:3
            afterok:1,afterok:2           | afterok:1:2
            afterok:1?afterok:2           | afterok:1?afterok:2
            afterok:1:2?afterany:3        | afterok:1?afterok:2?afterany:3
            afterany:5,singleton          | singleton,afterany:5
            SINGLETON                     | singleton
            after:7+10                    | after:7+10
            afternotok:4_2:4_3            | afternotok:4_2:4_3
            afterok:9_*                   | afterok:9
            AfterCorr:12:13               | aftercorr:12:13
            9                             | afterany:9
            """)
    void theCanonicalFormIsSlurmsAndReadsBackTheSame(String text, String canonical) {
        DependencySpec spec = DependencySpec.parse(text);

        assertThat(spec).hasToString(canonical);
        assertThat(DependencySpec.parse(canonical)).isEqualTo(spec);
    }

    @Test
    void oneConditionJoinedWithAQuestionMarkIsTheSameAsWithAComma() {
        assertThat(new DependencySpec(true, false, List.of(condition(AFTEROK, 1))))
            .isEqualTo(DependencySpec.parse("afterok:1"));
    }

    @ParameterizedTest(name = "{0} is rejected: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            ``                        | it is empty
            afterok:1,afterany:2?after:3 | ',' at position 9 (all must hold) and '?' at position 20 (any may hold) cannot be mixed; use one separator
            afterok                   | 'afterok' at position 0 is not a dependency type; use after, afterany, afterok, afternotok, aftercorr or singleton; or is the ':' and job id missing?
            afterok:                  | a job id is missing at position 8
            afterok:1:                | a job id is missing at position 10
            afterok:1::2              | a job id is missing at position 10
            afterok:abc               | 'a' at position 8: expected a job id
            afterok:-1                | '-' at position 8: expected a job id
            afterok:0                 | job id 0 at position 8 does not exist; ids start at 1
            afterok:1,                | an empty item at position 10; write type:jobid as in afterok:123
            ,afterok:1                | an empty item at position 0; write type:jobid as in afterok:123
            bogus:1                   | 'bogus' at position 0 is not a dependency type; use after, afterany, afterok, afternotok, aftercorr or singleton
            afterok:1,expand:2        | 'expand' at position 10 is not a dependency type; use after, afterany, afterok, afternotok, aftercorr or singleton
            afterburstbuffer:1        | 'afterburstbuffer' at position 0 is a Slurm dependency type Gantry does not support; use after, afterany, afterok, afternotok, aftercorr or singleton
            singleton:1               | singleton at position 0 takes no job ids
            afterok:1+10              | '+' at position 9: only after takes a delay in minutes, as in after:123+10
            after:1+0                 | the delay at position 8 is 0; leave out '+0' or give minutes
            after:1+x                 | 'x' at position 8: expected a delay in minutes
            after:1+                  | a delay in minutes is missing at position 8
            afterok:1_                | an array task id is missing at position 10
            afterok:1_x               | 'x' at position 10: expected an array task id
            afterok:1_99999999999     | the array task id at position 10 is too large
            afterok:99999999999999999999 | a job id at position 8 is too large
            46:47                     | '46' at position 0 is not a dependency type; use after, afterany, afterok, afternotok, aftercorr or singleton
            """)
    void malformedDependenciesNameThePositionAndTheProblem(String text, String problem) {
        assertThatExceptionOfType(JobSpecException.class).isThrownBy(() -> DependencySpec.parse(text))
            .withMessage("Invalid dependency '" + text + "': " + problem);
    }

    @Test
    void onlyAfterTakesADelayWhenBuiltDirectly() {
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new Condition(AFTEROK, 1, null, 5));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new Condition(AFTER, 0, null, 0));
    }

    @Test
    void typesAreWrittenInSlurmsLowerCase() {
        assertThat(Type.AFTERNOTOK.slurmName()).isEqualTo("afternotok");
    }

    private static Condition condition(Type type, long jobId) {
        return new Condition(type, jobId, null, 0);
    }

}
