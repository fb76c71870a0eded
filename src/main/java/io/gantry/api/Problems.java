package io.gantry.api;

import java.util.List;

import org.springframework.http.ProblemDetail;

/** Builds the problem+json bodies; used by {@link ProblemHandler} and by the security filters. */
public final class Problems {

    private Problems() {
    }

    public static ProblemDetail of(ProblemType type, String detail, List<GantryException.FieldError> errors) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(type.status(), detail);
        problem.setType(type.uri());
        problem.setTitle(type.title());
        if (!errors.isEmpty()) {
            problem.setProperty("errors", errors);
        }
        return problem;
    }
}
