package io.gantry.api;

import java.net.URI;

import org.springframework.http.HttpStatus;

/** The stable kinds of error Gantry answers with; {@link #uri()} is the problem+json {@code type}. */
public enum ProblemType {
    VALIDATION("validation", "Invalid request", HttpStatus.BAD_REQUEST),
    MALFORMED("malformed-request", "Malformed request", HttpStatus.BAD_REQUEST),
    UNAUTHENTICATED("unauthenticated", "Authentication required", HttpStatus.UNAUTHORIZED),
    FORBIDDEN("forbidden", "Not allowed", HttpStatus.FORBIDDEN),
    NOT_FOUND("not-found", "Not found", HttpStatus.NOT_FOUND),
    METHOD_NOT_ALLOWED("method-not-allowed", "Method not allowed", HttpStatus.METHOD_NOT_ALLOWED),
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", "Unsupported media type", HttpStatus.UNSUPPORTED_MEDIA_TYPE),
    NOT_ACCEPTABLE("not-acceptable", "Not acceptable", HttpStatus.NOT_ACCEPTABLE),
    CONFLICT("conflict", "Conflict", HttpStatus.CONFLICT),
    TOO_MANY_REQUESTS("too-many-requests", "Too many requests", HttpStatus.TOO_MANY_REQUESTS),
    PAYLOAD_TOO_LARGE("payload-too-large", "Request body too large", HttpStatus.CONTENT_TOO_LARGE),
    MISDIRECTED("not-leader", "Not the leader", HttpStatus.MISDIRECTED_REQUEST),
    UNAVAILABLE("unavailable", "Service unavailable", HttpStatus.SERVICE_UNAVAILABLE),
    INTERNAL("internal", "Internal error", HttpStatus.INTERNAL_SERVER_ERROR);

    private static final String BASE = "https://gantry.dev/problems/";

    private final String slug;
    private final String title;
    private final HttpStatus status;

    ProblemType(String slug, String title, HttpStatus status) {
        this.slug = slug;
        this.title = title;
        this.status = status;
    }

    public URI uri() {
        return URI.create(BASE + slug);
    }

    public String title() {
        return title;
    }

    public HttpStatus status() {
        return status;
    }
}
