package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.gantry.jobs.JobSubmission;
import tools.jackson.databind.json.JsonMapper;

/**
 * Bodies read through {@link RecordCreators} are the records Jackson's own creator call makes, and a
 * record that refuses its values is refused in the same words.
 */
class RecordCreatorsTests {

    private final JsonMapper plain = JsonMapper.builder().build();
    private final JsonMapper spread = JsonMapper.builder().addModule(new RecordCreators()).build();

    record Wide(String a, Integer b, Long c, List<String> d, Map<String, String> e, Instant f, Boolean g, int h) {
        Wide {
            if (h < 0) {
                throw new IllegalArgumentException("h must not be negative");
            }
            d = d == null ? null : List.copyOf(d);
        }
    }

    /** Whether the last {@link Probe} was made through Jackson's per-call adaptation. */
    private static volatile boolean adapted;

    record Probe(String a, String b, String c, String d, String e, String f) {
        Probe {
            adapted = StackWalker.getInstance().walk(frames -> frames.anyMatch(
                    frame -> frame.getMethodName().equals("invokeWithArguments")));
        }
    }

    @Test
    void aRecordOfManyComponentsIsMadeByOnePreparedCall() {
        plain.readValue("{\"a\":\"1\"}", Probe.class);
        assertThat(adapted).as("Jackson's own call").isTrue();
        spread.readValue("{\"a\":\"1\"}", Probe.class);
        assertThat(adapted).as("through RecordCreators").isFalse();
    }

    @Test
    void aSubmissionReadsTheSameWhicheverWayItsConstructorIsCalled() {
        String body = """
                {"name":"train","script":"#!/bin/bash\\n#SBATCH --gpus=8\\nsrun python train.py\\n","partition":"gpu",
                 "nodes":2,"gpusPerNode":8,"memoryMb":65536,"timeLimitSeconds":86400,"environment":{"A":"1","B":"2"},
                 "hold":true,"beginTime":"2026-12-07T00:00:00Z","exclusive":true,"killOnInvalidDep":false,
                 "container":{"image":"nvcr.io/nvidia/pytorch:24.01-py3"}}
                """;
        JobSubmission expected = plain.readValue(body, JobSubmission.class);
        JobSubmission read = spread.readValue(body, JobSubmission.class);
        assertThat(read).isEqualTo(expected);
        assertThat(read.gpusPerNode()).isEqualTo(8);
        assertThat(read.environment()).containsEntry("B", "2");
        assertThat(spread.readValue("{}", JobSubmission.class)).isEqualTo(plain.readValue("{}", JobSubmission.class));
    }

    @Test
    void aRecordsOwnChecksAndNormalisationStillApply() {
        Wide read = spread.readValue("{\"a\":\"x\",\"d\":[\"p\",\"q\"],\"f\":\"2026-12-06T08:00:00Z\",\"h\":3}", Wide.class);
        assertThat(read).isEqualTo(new Wide("x", null, null, List.of("p", "q"), null, Instant.parse("2026-12-06T08:00:00Z"),
                null, 3));
        assertThat(read.d()).isUnmodifiable();
    }

    @Test
    void aRecordThatRefusesItsValuesIsRefusedAsJacksonRefusesIt() {
        String body = "{\"a\":\"x\",\"h\":-1}";
        Throwable expected = catchThrowable(() -> plain.readValue(body, Wide.class));
        Throwable refused = catchThrowable(() -> spread.readValue(body, Wide.class));
        assertThat(expected).isNotNull();
        assertThat(refused).isInstanceOf(expected.getClass()).hasMessage(expected.getMessage());
        assertThat(refused).hasRootCauseInstanceOf(IllegalArgumentException.class).hasRootCauseMessage("h must not be negative");
    }
}
