package io.gantry.api;

import java.util.List;

import org.springframework.http.HttpStatus;

/**
 * The one kind of exception a request can end with on purpose. Each has a stable problem
 * {@link ProblemType}, so clients can branch on {@code type} rather than parse messages.
 */
public class GantryException extends RuntimeException {

    private final ProblemType type;
    private final transient List<FieldError> errors;

    public GantryException(ProblemType type, String detail) {
        this(type, detail, List.of());
    }

    public GantryException(ProblemType type, String detail, List<FieldError> errors) {
        super(detail);
        this.type = type;
        this.errors = List.copyOf(errors);
    }

    public ProblemType type() {
        return type;
    }

    public HttpStatus status() {
        return type.status();
    }

    public List<FieldError> errors() {
        return errors;
    }

    public static GantryException notFound(String what, String name) {
        return new GantryException(ProblemType.NOT_FOUND, what + " '" + name + "' does not exist");
    }

    /** A 400 naming every field in {@code errors}, its detail each "field: message" joined by "; ". */
    public static GantryException invalid(List<FieldError> errors) {
        return new GantryException(ProblemType.VALIDATION, summary(errors), errors);
    }

    /** "field: message; field: message", as every problem with field errors is summed up. */
    public static String summary(List<FieldError> errors) {
        return errors.stream().map(e -> e.field() + ": " + e.message()).reduce((a, b) -> a + "; " + b).orElse("");
    }

    public static GantryException badRequest(String field, String message) {
        return new GantryException(ProblemType.VALIDATION, field + ": " + message,
                List.of(new FieldError(field, message)));
    }

    public static GantryException conflict(String detail) {
        return new GantryException(ProblemType.CONFLICT, detail);
    }

    /** One wrong input: where ({@code field}, a JSON path, query parameter or script line) and what. */
    public record FieldError(String field, String message) {
    }
}
