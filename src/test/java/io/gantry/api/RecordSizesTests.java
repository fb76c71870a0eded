package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.lang.reflect.RecordComponent;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import jakarta.validation.Validation;
import jakarta.validation.Validator;
import jakarta.validation.ValidatorFactory;
import jakarta.validation.constraints.Size;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.gantry.jobs.JobSubmission;
import tools.jackson.databind.json.JsonMapper;

/**
 * A submission's text fields are refused at the same lengths, with the same words, as {@code @Valid}
 * refused them: 300 random submissions, each text field empty, at its limit, one over or far over,
 * checked by {@link RecordSizes} and by Hibernate Validator.
 */
class RecordSizesTests {

    private static ValidatorFactory factory;
    private static Validator validator;

    @BeforeAll
    static void validator() {
        factory = Validation.buildDefaultValidatorFactory();
        validator = factory.getValidator();
    }

    @AfterAll
    static void close() {
        factory.close();
    }

    private static Set<String> beanValidation(JobSubmission submission) {
        return validator.validate(submission).stream()
                .map(v -> v.getPropertyPath() + ": " + v.getMessage()).collect(Collectors.toSet());
    }

    private static Set<String> recordSizes(JobSubmission submission) {
        GantryException refused = catchThrowableOfType(GantryException.class, () -> RecordSizes.check(submission));
        if (refused == null) {
            return Set.of();
        }
        assertThat(refused.type()).isEqualTo(ProblemType.VALIDATION);
        assertThat(refused.getMessage()).isEqualTo(refused.errors().stream().map(e -> e.field() + ": " + e.message())
                .collect(Collectors.joining("; ")));
        return refused.errors().stream().map(e -> e.field() + ": " + e.message()).collect(Collectors.toSet());
    }

    @Test
    void aSubmissionIsRefusedAtTheSameFieldsWithTheSameWordsAsBeanValidation() {
        List<RecordComponent> sized = List.of(JobSubmission.class.getRecordComponents()).stream()
                .filter(c -> c.getAccessor().isAnnotationPresent(Size.class)).toList();
        assertThat(sized).as("the submission's sized text fields").hasSizeGreaterThan(15);
        JsonMapper json = JsonMapper.builder().build();
        Random random = new Random(36);
        int refusedSome = 0;
        for (int round = 0; round < 300; round++) {
            Map<String, Object> body = new HashMap<>();
            body.put("script", "#!/bin/bash\nhostname\n");
            for (RecordComponent component : sized) {
                int max = component.getAccessor().getAnnotation(Size.class).max();
                switch (random.nextInt(6)) {
                    case 0 -> body.put(component.getName(), "");
                    case 1 -> body.put(component.getName(), "x".repeat(max));
                    case 2 -> body.put(component.getName(), "y".repeat(max + 1));
                    case 3 -> body.put(component.getName(), "z".repeat(max + 1 + random.nextInt(5000)));
                    default -> { }
                }
            }
            JobSubmission submission = json.convertValue(body, JobSubmission.class);
            Set<String> expected = beanValidation(submission);
            assertThat(recordSizes(submission)).as("round %d", round).isEqualTo(expected);
            refusedSome += expected.isEmpty() ? 0 : 1;
        }
        assertThat(refusedSome).as("rounds with a field over its limit").isGreaterThan(250);
    }

    @Test
    void aSubmissionWithinEveryLimitPasses() {
        JobSubmission plain = JsonMapper.builder().build().convertValue(
                Map.of("script", "#!/bin/bash\nhostname\n", "name", "train", "partition", "gpu"), JobSubmission.class);
        RecordSizes.check(plain);
        assertThat(beanValidation(plain)).isEmpty();
    }

    record Untyped(@Size(max = 3) List<String> items) {
    }

    @Test
    void aSizeItCannotCheckAsBeanValidationWouldIsRefusedWhenFirstUsedNotSkipped() {
        assertThatThrownBy(() -> RecordSizes.check(new Untyped(List.of("a"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Untyped.items");
    }
}
