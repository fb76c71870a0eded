package io.gantry.security;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;

import io.gantry.api.ProblemType;
import io.gantry.api.Problems;
import tools.jackson.databind.json.JsonMapper;

/**
 * The 401 and 403 answers of the security filters, which run before Spring MVC and its
 * {@code ProblemHandler}: same problem+json bodies, plus the {@code WWW-Authenticate} header
 * RFC 6750 asks for (written here: Spring's entry point would also point clients at an OAuth
 * resource metadata document that Gantry does not serve).
 */
class ProblemResponses implements AuthenticationEntryPoint, AccessDeniedHandler {

    private final JsonMapper json;

    ProblemResponses(JsonMapper json) {
        this.json = json;
    }

    @Override
    public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
            throws IOException {
        String detail;
        if (e instanceof InvalidBearerTokenException) {
            detail = "The bearer token is invalid or expired: " + e.getMessage();
            response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\", error_description=\""
                    + e.getMessage().replace('"', '\'') + "\"");
        } else {
            detail = "This operation needs a bearer token: Authorization: Bearer <token> "
                    + "(POST /api/v1/auth/tokens issues one)";
            response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
        }
        write(response, Problems.of(ProblemType.UNAUTHENTICATED, detail, List.of()), request);
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException e)
            throws IOException {
        write(response, Problems.of(ProblemType.FORBIDDEN, "Your role does not allow this operation", List.of()),
                request);
    }

    private void write(HttpServletResponse response, ProblemDetail problem, HttpServletRequest request)
            throws IOException {
        // A map rather than ProblemDetail itself: the plain mapper lacks MVC's ProblemDetail mix-in.
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", problem.getType().toString());
        body.put("title", problem.getTitle());
        body.put("status", problem.getStatus());
        body.put("detail", problem.getDetail());
        body.put("instance", request.getRequestURI());
        response.setStatus(problem.getStatus());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding("UTF-8");
        json.writeValue(response.getOutputStream(), body);
    }
}
