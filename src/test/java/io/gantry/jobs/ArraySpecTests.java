package io.gantry.jobs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Forms checked against Slurm 22.05's sbatch; it is laxer on the rows marked as Gantry's. */
class ArraySpecTests {

    @ParameterizedTest(name = "{0} has tasks [{1}], at most {2} running, written {3}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            3            | 3                        | -  | 3
            0-4          | 0 1 2 3 4                | -  | 0-4
            1,3,5-7      | 1 3 5 6 7                | -  | 1,3,5-7
            0-15:3       | 0 3 6 9 12 15            | -  | 0-15:3
            0-14:3       | 0 3 6 9 12               | -  | 0-12:3
            0-15%4       | 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 | 4 | 0-15%4
            0-15:5%2     | 0 5 10 15                | 2  | 0-15:5%2
            1-3,2-4      | 1 2 3 4                  | -  | 1-4
            7,1,4        | 1 4 7                    | -  | 1-7:3
            5,5          | 5                        | -  | 5
            1-3:2,10     | 1 3 10                   | -  | 1,3,10
            0-1000       | -                        | -  | 0-1000
            008          | 8                        | -  | 8
            """)
    void eachArrayFormGivesSortedDistinctTasks(String text, String ids, Integer maxRunning, String canonical) {
        ArraySpec spec = ArraySpec.parse(text);

        if (ids != null) {
            assertThat(spec.taskIds()).containsExactlyElementsOf(
                    Arrays.stream(ids.split(" ")).map(Integer::valueOf).toList());
        }
        assertThat(spec.maxRunning()).isEqualTo(maxRunning);
        assertThat(spec).hasToString(canonical);
    }

    @Test
    void theDefaultLimitIsSlurmsMaxArraySizeOf1001() {
        assertThat(ArraySpec.parse("0-1000").taskIds()).hasSize(1001);
    }

    @Test
    void aCallerCanAllowBiggerArrays() {
        assertThat(ArraySpec.parse("0-9999%50", 10_000).taskIds()).hasSize(10_000).endsWith(9999);
    }

    @ParameterizedTest(name = "{0} is rejected: {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            ``          | it is empty
            -1          | '-' at position 0: indexes cannot be negative
            1,-2        | '-' at position 2: indexes cannot be negative
            5-1         | the range at position 0 runs down from 5 to 1; write the smaller index first
            0-15:0      | the step at position 5 is 0; it must be at least 1
            0-15:-1     | '-' at position 5: expected a step
            0-15%0      | %0 at position 4 would never run a task; write %1 or more
            0-15%       | after '%' the maximum number of running tasks is missing at position 5
            %4          | an empty item at position 0; write indexes like 0-99 or 1,3,5-7
            1,,2        | an empty item at position 2; write indexes like 0-99 or 1,3,5-7
            1,          | an empty item at position 2; write indexes like 0-99 or 1,3,5-7
            1%2%3       | '%' at position 3: expected after '%' the maximum number of running tasks
            3:2         | ':' at position 1: a step needs a range, as in 0-15:3
            0:2-4       | ':' at position 1: a step comes after the range, as in 0-15:3
            0-          | the end of a range is missing at position 2
            a           | 'a' at position 0: expected an index
            0x10        | 'x' at position 1: expected an index
            1 2         | ' ' at position 1: expected an index
            1-2-3       | '-' at position 3: expected the end of a range
            0-1001      | index 1001 at position 2 is too large; indexes run from 0 to 1000
            1001        | index 1001 at position 0 is too large; indexes run from 0 to 1000
            0-1:1k      | 'k' at position 5: expected a step
            99999999999 | the number at position 0 is too large
            """)
    void malformedArraysNameThePositionAndTheProblem(String text, String problem) {
        assertThatExceptionOfType(JobSpecException.class).isThrownBy(() -> ArraySpec.parse(text))
            .withMessage("Invalid array '" + text + "': " + problem)
            .satisfies(error -> assertThat(error.problem()).isEqualTo(problem));
    }

    @Test
    void theCanonicalFormReadsBackAsTheSameSpecForThousandsOfRandomArrays() {
        Random random = new Random(4);
        for (int round = 0; round < 5_000; round++) {
            TreeSet<Integer> ids = new TreeSet<>();
            int count = 1 + random.nextInt(12);
            for (int i = 0; i < count; i++) {
                int start = random.nextInt(200);
                int step = 1 + random.nextInt(4);
                IntStream.iterate(start, id -> id + step).limit(1 + random.nextInt(6)).forEach(ids::add);
            }
            Integer maxRunning = random.nextBoolean() ? null : 1 + random.nextInt(10);
            ArraySpec spec = new ArraySpec(new ArrayList<>(ids), maxRunning);

            assertThat(ArraySpec.parse(spec.toString())).as("seed 4 round %d: %s", round, spec).isEqualTo(spec);
        }
    }

    @Test
    void aSpecCannotBeBuiltUnsortedOrEmpty() {
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new ArraySpec(List.of(), null));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new ArraySpec(List.of(2, 1), null));
        assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> new ArraySpec(List.of(1), 0));
    }

}
