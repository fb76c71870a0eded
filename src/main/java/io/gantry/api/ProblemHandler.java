package io.gantry.api;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.MissingRequestHeaderException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestNotUsableException;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import org.springframework.web.util.DisconnectedClientHelper;

import tools.jackson.core.JacksonException;

/**
 * Maps every error a request can end with to RFC 9457 problem+json, in one place. First in line:
 * Boot's own {@code ProblemDetailsExceptionHandler} (spring.mvc.problemdetails) would otherwise
 * answer bean-validation errors itself, without our {@code type} and {@code errors}.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
@RestControllerAdvice
class ProblemHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

    @ExceptionHandler(GantryException.class)
    ResponseEntity<ProblemDetail> gantry(GantryException e) {
        return respond(Problems.of(e.type(), e.getMessage(), e.errors()));
    }

    /** Two writers raced for the same record and this one lost, even after retrying: a conflict, not a fault. */
    @ExceptionHandler({org.springframework.dao.OptimisticLockingFailureException.class,
            org.springframework.dao.PessimisticLockingFailureException.class})
    ResponseEntity<ProblemDetail> raced(org.springframework.dao.ConcurrencyFailureException e) {
        log.info("Lock conflict answered 409: {}", e.getMessage());
        return respond(Problems.of(ProblemType.CONFLICT, "The record changed while this request ran (the scheduler "
                + "or another request got there first); read it again and retry", List.of()));
    }

    @ExceptionHandler(MethodArgumentNotValidException.class)
    ResponseEntity<ProblemDetail> invalidBody(MethodArgumentNotValidException e) {
        List<GantryException.FieldError> errors = e.getBindingResult().getFieldErrors().stream()
                .map(f -> new GantryException.FieldError(f.getField(), f.getDefaultMessage()))
                .toList();
        return respond(Problems.of(ProblemType.VALIDATION, summary(errors), errors));
    }

    @ExceptionHandler(HandlerMethodValidationException.class)
    ResponseEntity<ProblemDetail> invalidParameters(HandlerMethodValidationException e) {
        List<GantryException.FieldError> errors = e.getParameterValidationResults().stream()
                .flatMap(r -> r.getResolvableErrors().stream().map(err -> new GantryException.FieldError(
                        r.getMethodParameter().getParameterName(), err.getDefaultMessage())))
                .toList();
        return respond(Problems.of(ProblemType.VALIDATION, summary(errors), errors));
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<ProblemDetail> typeMismatch(MethodArgumentTypeMismatchException e) {
        String message = "cannot read '" + InputText.shown(String.valueOf(e.getValue())) + "'"
                + (e.getRequiredType() == null ? "" : ": expected " + InputText.describe(e.getRequiredType()));
        var error = new GantryException.FieldError(e.getName(), message);
        return respond(Problems.of(ProblemType.VALIDATION, e.getName() + ": " + message, List.of(error)));
    }

    @ExceptionHandler(MissingServletRequestParameterException.class)
    ResponseEntity<ProblemDetail> missingParameter(MissingServletRequestParameterException e) {
        var error = new GantryException.FieldError(e.getParameterName(), "is required");
        return respond(Problems.of(ProblemType.VALIDATION, e.getParameterName() + ": is required", List.of(error)));
    }

    @ExceptionHandler(MissingRequestHeaderException.class)
    ResponseEntity<ProblemDetail> missingHeader(MissingRequestHeaderException e) {
        var error = new GantryException.FieldError(e.getHeaderName(), "header is required");
        return respond(Problems.of(ProblemType.VALIDATION, e.getHeaderName() + ": header is required", List.of(error)));
    }

    /**
     * A body that is not JSON, or JSON of the wrong shape. Jackson's and Spring's own messages name Java
     * types and handler methods, so the answer is written here: the JSON path of the value at fault
     * (e.g. {@code environment.A}, {@code qos[2]}) and what was expected there, in JSON's terms.
     */
    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<ProblemDetail> unreadable(HttpMessageNotReadableException e) {
        JacksonException json = null;
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof RequestBodyTooLarge tooLarge) {
                // The body crossed gantry.api.max-request-bytes while the JSON reader read it.
                return gantry(tooLarge);
            }
            if (json == null && t instanceof JacksonException found) {
                json = found;
            }
        }
        if (json == null) {
            String why = e.getMessage() != null && e.getMessage().startsWith("Required request body is missing")
                    ? "the request body is missing" : "the request body cannot be read";
            return respond(Problems.of(ProblemType.MALFORMED, "The request body is not valid JSON for this operation: "
                    + why, List.of()));
        }
        String field = InputText.path(json);
        String message = InputText.jsonProblem(json);
        if (field.isEmpty()) {
            return respond(Problems.of(ProblemType.MALFORMED, "The request body is not valid JSON for this operation: "
                    + message, List.of()));
        }
        var error = new GantryException.FieldError(field, message);
        return respond(Problems.of(ProblemType.MALFORMED, "The request body is not valid JSON for this operation: "
                + field + ": " + message, List.of(error)));
    }

    /**
     * Tomcat could not decode a form body's (or a query's) parameters: bad percent escapes, bytes that
     * are not UTF-8, or a form body over its parameter limits. {@link QueryStringCheck} answers a bad
     * query before this; a form body arrives here.
     */
    @ExceptionHandler(org.apache.tomcat.util.http.InvalidParameterException.class)
    ResponseEntity<ProblemDetail> undecodableParameters(org.apache.tomcat.util.http.InvalidParameterException e) {
        log.debug("Undecodable parameters: {}", e.getMessage());
        return respond(Problems.of(ProblemType.MALFORMED, "The request's parameters cannot be decoded: percent "
                + "escapes must encode UTF-8 text, and a form body must be small", List.of()));
    }

    /**
     * Spring Security's firewall refused a parameter name or value as it was read (a form body with odd
     * names, say): a bad request, not a fault.
     */
    @ExceptionHandler(org.springframework.security.web.firewall.RequestRejectedException.class)
    ResponseEntity<ProblemDetail> rejected(org.springframework.security.web.firewall.RequestRejectedException e) {
        log.debug("Request rejected: {}", e.getMessage());
        return respond(Problems.of(ProblemType.MALFORMED, "The request holds a parameter name or value that is not "
                + "allowed (control characters, or characters no parameter name has)", List.of()));
    }

    /**
     * The store refused a write. A taken unique key is a create that lost a race (two writers of one
     * name, both past the service's check): a conflict, not a fault. The creates answer it themselves,
     * naming what exists ({@link UniqueKey#insert}); this answers for any other write that meets one.
     * A text with a NUL character (PostgreSQL cannot hold one): every field of the public API refuses
     * NUL before the store; this answers for any text that still got through.
     */
    @ExceptionHandler(org.springframework.dao.DataIntegrityViolationException.class)
    ResponseEntity<ProblemDetail> refusedByStore(org.springframework.dao.DataIntegrityViolationException e) {
        if (UniqueKey.taken(e)) {
            log.info("Unique key conflict answered 409: {}", e.getMostSpecificCause().getMessage());
            return respond(Problems.of(ProblemType.CONFLICT, "A record with the same name or key already exists "
                    + "(another request created it first); read it and retry", List.of()));
        }
        String message = String.valueOf(e.getMostSpecificCause().getMessage());
        if (message.contains("0x00")) {
            log.warn("A text with a NUL character reached the store: {}", message);
            return respond(Problems.of(ProblemType.VALIDATION, "A text in the request holds a NUL character, which "
                    + "cannot be stored", List.of()));
        }
        return unexpected(e);
    }

    @ExceptionHandler(NoResourceFoundException.class)
    ResponseEntity<ProblemDetail> noResource(NoResourceFoundException e) {
        return respond(Problems.of(ProblemType.NOT_FOUND, "No resource at /" + e.getResourcePath(), List.of()));
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    ResponseEntity<ProblemDetail> method(HttpRequestMethodNotSupportedException e) {
        ProblemDetail problem = Problems.of(ProblemType.METHOD_NOT_ALLOWED,
                e.getMethod() + " is not supported here; use " + e.getSupportedHttpMethods(), List.of());
        HttpHeaders headers = new HttpHeaders();
        if (e.getSupportedHttpMethods() != null) {
            headers.setAllow(e.getSupportedHttpMethods());
        }
        return ResponseEntity.status(problem.getStatus()).headers(headers)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    ResponseEntity<ProblemDetail> mediaType(HttpMediaTypeNotSupportedException e) {
        return respond(Problems.of(ProblemType.UNSUPPORTED_MEDIA_TYPE, "Content type " + e.getContentType()
                + " is not supported; send " + e.getSupportedMediaTypes(), List.of()));
    }

    @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
    ResponseEntity<ProblemDetail> notAcceptable(HttpMediaTypeNotAcceptableException e) {
        return respond(Problems.of(ProblemType.NOT_ACCEPTABLE, "Can answer only " + e.getSupportedMediaTypes(),
                List.of()));
    }

    @ExceptionHandler(AuthenticationException.class)
    ResponseEntity<ProblemDetail> unauthenticated(AuthenticationException e) {
        return respond(Problems.of(ProblemType.UNAUTHENTICATED, e.getMessage(), List.of()));
    }

    @ExceptionHandler(AccessDeniedException.class)
    ResponseEntity<ProblemDetail> forbidden(AccessDeniedException e) {
        return respond(Problems.of(ProblemType.FORBIDDEN, "Your role does not allow this operation", List.of()));
    }

    /**
     * The client went away (a closed tab, a dropped event stream, a broken pipe): there is no one
     * to answer and nothing to fix, so no stack trace in the log. Tomcat's ClientAbortException and
     * "Broken pipe" / "Connection reset" IOExceptions arrive wrapped or bare, hence the helper.
     */
    @ExceptionHandler(AsyncRequestNotUsableException.class)
    ResponseEntity<ProblemDetail> clientGone(AsyncRequestNotUsableException e) {
        log.debug("The client went away: {}", e.toString());
        return null;
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        if (DisconnectedClientHelper.isClientDisconnectedException(e)) {
            log.debug("The client went away: {}", e.toString());
            return null;
        }
        log.error("Unexpected error", e);
        return respond(Problems.of(ProblemType.INTERNAL, "An unexpected error occurred; it has been logged",
                List.of()));
    }

    private static ResponseEntity<ProblemDetail> respond(ProblemDetail problem) {
        return ResponseEntity.status(HttpStatus.valueOf(problem.getStatus()))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

    private static String summary(List<GantryException.FieldError> errors) {
        return errors.isEmpty() ? "The request is invalid" : GantryException.summary(errors);
    }

}
