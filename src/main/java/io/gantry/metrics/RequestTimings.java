package io.gantry.metrics;

import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerMapping;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Times every request into Micrometer's {@code http.server.requests} (Prometheus:
 * {@code http_server_requests_seconds}) with Spring's tag names and values: {@code method}, {@code uri}
 * (the matched route, or {@code NOT_FOUND}, {@code REDIRECTION}, {@code root}, {@code UNKNOWN}),
 * {@code status}, {@code outcome}, {@code exception} and {@code error}.
 * <p>
 * It stands in for Spring's observation filter (turned off in application.yml), which made an
 * observation, a context, its key values, an "active requests" long-task sample and a meter lookup by
 * tags for every request: 8 % of a submission's request-thread CPU when 16 clients submitted (issue
 * 36's profile). Here a request costs a clock read and one lookup of a timer kept per tag set. An
 * asynchronous request (an agent's long poll) is timed until it completes.
 */
public final class RequestTimings extends OncePerRequestFilter {

    static final String NAME = "http.server.requests";

    private final MeterRegistry registry;
    private final ConcurrentHashMap<Tags, Timer> timers = new ConcurrentHashMap<>();

    public RequestTimings(MeterRegistry registry) {
        this.registry = registry;
    }

    @Configuration(proxyBeanMethods = false)
    static class Registration {

        /** Outermost, where Spring's observation filter was, so that it times what every other filter does. */
        @Bean
        FilterRegistrationBean<RequestTimings> requestTimings(MeterRegistry registry) {
            FilterRegistrationBean<RequestTimings> registration = new FilterRegistrationBean<>(new RequestTimings(registry));
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
            return registration;
        }
    }

    /** One timer's tags, in Spring's {@code DefaultServerRequestObservationConvention} words. */
    record Tags(String method, String uri, int status, String exception) {

        static Tags of(HttpServletRequest request, HttpServletResponse response, Throwable thrown) {
            int status = thrown != null && response.getStatus() < 400 ? 500 : response.getStatus();
            Throwable error = thrown != null ? thrown : (Throwable) request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
            return new Tags(request.getMethod() == null ? "UNKNOWN" : request.getMethod(), uri(request, status), status,
                    error == null ? "none" : exceptionName(error));
        }

        private static String uri(HttpServletRequest request, int status) {
            if (request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE) instanceof String pattern) {
                return pattern.isEmpty() ? "root" : pattern;
            }
            if (status >= 300 && status < 400) {
                return "REDIRECTION";
            }
            return status == 404 ? "NOT_FOUND" : "UNKNOWN";
        }

        private static String exceptionName(Throwable error) {
            String simple = error.getClass().getSimpleName();
            return simple.isEmpty() ? error.getClass().getName() : simple;
        }

        String outcome() {
            return switch (status / 100) {
                case 1 -> "INFORMATIONAL";
                case 2 -> "SUCCESS";
                case 3 -> "REDIRECTION";
                case 4 -> "CLIENT_ERROR";
                case 5 -> "SERVER_ERROR";
                default -> "UNKNOWN";
            };
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long start = System.nanoTime();
        Throwable thrown = null;
        try {
            chain.doFilter(request, response);
        } catch (IOException | ServletException | RuntimeException | Error e) {
            thrown = e;
            throw e;
        } finally {
            if (thrown == null && request.isAsyncStarted()) {
                request.getAsyncContext().addListener(new Completion(request, response, start));
            } else {
                record(Tags.of(request, response, thrown), System.nanoTime() - start);
            }
        }
    }

    void record(Tags tags, long nanos) {
        timers.computeIfAbsent(tags, this::timer).record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer timer(Tags tags) {
        return Timer.builder(NAME)
                .tag("method", tags.method())
                .tag("uri", tags.uri())
                .tag("status", Integer.toString(tags.status()))
                .tag("outcome", tags.outcome())
                .tag("exception", tags.exception())
                .tag("error", tags.exception())
                .register(registry);
    }

    /** Times an asynchronous request (a long poll, an event stream) when it completes, however it ends. */
    private final class Completion implements AsyncListener {

        private final HttpServletRequest request;
        private final HttpServletResponse response;
        private final long start;

        Completion(HttpServletRequest request, HttpServletResponse response, long start) {
            this.request = request;
            this.response = response;
            this.start = start;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            record(Tags.of(request, response, event.getThrowable()), System.nanoTime() - start);
        }

        @Override
        public void onTimeout(AsyncEvent event) {
        }

        @Override
        public void onError(AsyncEvent event) {
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
        }
    }
}
