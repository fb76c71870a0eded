package io.gantry.steps;

import java.io.IOException;
import java.util.regex.Pattern;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

import io.gantry.noded.protocol.StepProtocol;
import io.gantry.api.RequestBodyLimit;
import tools.jackson.databind.json.JsonMapper;

/**
 * Caps a step request's body at {@link StepProtocol#MAX_REQUEST_BYTES} (413), far below the API's
 * general cap: no legal step comes near it, since the kernel takes 2 MiB of argv and environment,
 * and a 10 MB one would be parsed whole before {@link StepBounds} could refuse it.
 */
class StepRequestLimit extends OncePerRequestFilter {

    private static final Pattern CREATE = Pattern.compile("/api/v1/jobs/[^/]+/steps/?");

    private final RequestBodyLimit limit;

    StepRequestLimit(JsonMapper json) {
        this.limit = new RequestBodyLimit(StepProtocol.MAX_REQUEST_BYTES, json);
    }

    @Configuration(proxyBeanMethods = false)
    static class Registration {

        /** Right after the general cap, before security: a body too large is refused unread. */
        @Bean
        FilterRegistrationBean<StepRequestLimit> stepRequestLimit(JsonMapper json) {
            FilterRegistrationBean<StepRequestLimit> registration = new FilterRegistrationBean<>(
                    new StepRequestLimit(json));
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 2);
            registration.addUrlPatterns("/api/v1/jobs/*");
            return registration;
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        if ("POST".equals(request.getMethod()) && CREATE.matcher(path).matches()) {
            limit.doFilter(request, response, chain);
        } else {
            chain.doFilter(request, response);
        }
    }
}
