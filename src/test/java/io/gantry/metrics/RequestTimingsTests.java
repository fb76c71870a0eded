package io.gantry.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.servlet.HandlerMapping;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * {@code http_server_requests_seconds} as Prometheus scrapes it: one series per route, method, status,
 * outcome and exception, in the words Spring's own request metrics used, so that dashboards and
 * {@code loadtest}'s poll figures read the same series as before.
 */
class RequestTimingsTests {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final RequestTimings timings = new RequestTimings(registry);

    private static MockHttpServletRequest request(String method, String path) {
        MockHttpServletRequest request = new MockHttpServletRequest(method, path);
        request.setAsyncSupported(true);
        return request;
    }

    /** A handler that matched {@code pattern} (null: none did) and answered {@code status}. */
    private static FilterChain handler(String pattern, int status) {
        return new MockFilterChain() {
            @Override
            public void doFilter(ServletRequest request, ServletResponse response) {
                if (pattern != null) {
                    request.setAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE, pattern);
                }
                ((HttpServletResponse) response).setStatus(status);
            }
        };
    }

    private String count(String labels) {
        return registry.scrape().lines()
                .filter(l -> l.startsWith("http_server_requests_seconds_count{") && l.contains(labels))
                .map(l -> l.substring(l.lastIndexOf(' ') + 1)).findFirst().orElse("absent");
    }

    @Test
    void eachRouteIsCountedUnderItsPatternWithItsStatusAndOutcome() throws Exception {
        for (int i = 0; i < 3; i++) {
            timings.doFilter(request("POST", "/api/v1/jobs"), new MockHttpServletResponse(), handler("/api/v1/jobs", 201));
        }
        timings.doFilter(request("GET", "/api/v1/jobs/17"), new MockHttpServletResponse(), handler("/api/v1/jobs/{id}", 404));

        assertThat(count("error=\"none\",exception=\"none\",method=\"POST\",outcome=\"SUCCESS\",status=\"201\",uri=\"/api/v1/jobs\""))
                .isEqualTo("3");
        assertThat(count("method=\"GET\",outcome=\"CLIENT_ERROR\",status=\"404\",uri=\"/api/v1/jobs/{id}\"")).isEqualTo("1");
        assertThat(registry.scrape()).contains("http_server_requests_seconds_sum{").contains("http_server_requests_seconds_max{");
    }

    @Test
    void requestsNoRouteTookAreNamedByWhatHappenedNotByTheirPath() throws Exception {
        timings.doFilter(request("GET", "/nothing/here"), new MockHttpServletResponse(), handler(null, 404));
        timings.doFilter(request("GET", "/api/v1/jobs"), new MockHttpServletResponse(), handler(null, 401));
        timings.doFilter(request("GET", "/old"), new MockHttpServletResponse(), handler(null, 302));
        timings.doFilter(request("GET", "/"), new MockHttpServletResponse(), handler("", 200));

        assertThat(count("status=\"404\",uri=\"NOT_FOUND\"")).isEqualTo("1");
        assertThat(count("status=\"401\",uri=\"UNKNOWN\"")).isEqualTo("1");
        assertThat(count("outcome=\"REDIRECTION\",status=\"302\",uri=\"REDIRECTION\"")).isEqualTo("1");
        assertThat(count("status=\"200\",uri=\"root\"")).isEqualTo("1");
        assertThat(registry.scrape()).doesNotContain("/nothing/here").doesNotContain("/old");
    }

    @Test
    void aRequestThatThrowsIsCountedAsAServerErrorNamingTheException() {
        FilterChain failing = (request, response) -> {
            request.setAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE, "/api/v1/nodes");
            throw new IllegalStateException("store gone");
        };
        assertThatThrownBy(() -> timings.doFilter(request("GET", "/api/v1/nodes"), new MockHttpServletResponse(), failing))
                .isInstanceOf(IllegalStateException.class);

        assertThat(count("error=\"IllegalStateException\",exception=\"IllegalStateException\",method=\"GET\","
                + "outcome=\"SERVER_ERROR\",status=\"500\",uri=\"/api/v1/nodes\"")).isEqualTo("1");
    }

    @Test
    void aLongPollIsTimedWhenItCompletesNotWhenItsThreadLetsGo() throws Exception {
        MockHttpServletRequest poll = request("GET", "/api/v1/agents/n1/poll");
        MockHttpServletResponse response = new MockHttpServletResponse();
        AsyncContext[] started = new AsyncContext[1];
        timings.doFilter(poll, response, (request, r) -> {
            request.setAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE, "/api/v1/agents/{node}/poll");
            started[0] = request.startAsync();
        });
        assertThat(count("uri=\"/api/v1/agents/{node}/poll\"")).as("while the poll is held").isEqualTo("absent");

        response.setStatus(200);
        started[0].complete();

        assertThat(count("method=\"GET\",outcome=\"SUCCESS\",status=\"200\",uri=\"/api/v1/agents/{node}/poll\""))
                .isEqualTo("1");
    }
}
