package io.gantry.api;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;

import tools.jackson.databind.json.JsonMapper;

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

    /**
     * Writes a problem straight to the response, for filters that answer before Spring MVC (and so
     * before {@link ProblemHandler}) sees the request. A map rather than ProblemDetail itself: the
     * plain mapper lacks MVC's ProblemDetail mix-in.
     */
    static void write(HttpServletResponse response, JsonMapper json, String instance, ProblemType type, String detail,
            List<GantryException.FieldError> errors) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", type.uri().toString());
        body.put("title", type.title());
        body.put("status", type.status().value());
        body.put("detail", detail);
        body.put("instance", instance);
        if (!errors.isEmpty()) {
            body.put("errors", errors);
        }
        response.setStatus(type.status().value());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding("UTF-8");
        json.writeValue(response.getOutputStream(), body);
    }
}
