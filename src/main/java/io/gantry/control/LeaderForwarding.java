package io.gantry.control;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.filter.OncePerRequestFilter;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.api.ProblemType;
import tools.jackson.databind.json.JsonMapper;

/**
 * On a follower, writes go to the leader. Every change to the live state is made by the leader, so
 * a follower passes each API request that changes something (POST, PUT, PATCH, DELETE under
 * {@code /api/v1}, sign-in aside) on to the leader and relays its answer as it is: status, body,
 * {@code Location}. It does not redirect: browsers and generated clients do not follow redirects
 * with their tokens. Reads are served by the follower itself from the store. Agents are told to go
 * to the leader ({@code 421}, with its URL) rather than proxied, since their long polls would hold a
 * follower's thread each.
 * <p>
 * A forwarded write carries the client's address ({@link #CLIENT_HEADER}) and the controllers' shared
 * forwarding secret ({@link #FORWARDED_HEADER}, kept in the store); the leader takes that address as
 * the request's (for the audit trail, sign-in throttling and logs) only when the secret is right, so a
 * client sending the headers itself changes nothing.
 */
class LeaderForwarding extends OncePerRequestFilter {

    static final String FORWARDED_HEADER = "X-Gantry-Forwarded";
    /** The address of the client a follower forwards for; trusted only with the forwarding secret. */
    static final String CLIENT_HEADER = "X-Gantry-Client-Address";
    private static final java.util.regex.Pattern ADDRESS = java.util.regex.Pattern.compile("[0-9A-Fa-f:.%a-zA-Z]{1,64}");
    private static final Logger log = LoggerFactory.getLogger(LeaderForwarding.class);
    private static final java.util.regex.Pattern AGENT_CALL = java.util.regex.Pattern.compile(
            java.util.regex.Pattern.quote(AgentProtocol.BASE) + "/[^/]+/(poll|reports|step-reports)");
    /** A step's output lives on the leader, in its relay: srun's polls for it are reads only the leader answers. */
    private static final java.util.regex.Pattern LEADER_READ = java.util.regex.Pattern.compile(
            "/api/v1/jobs/[^/]+/steps/[^/]+/io");
    private static final Set<String> WRITES = Set.of("POST", "PUT", "PATCH", "DELETE");
    private static final Set<String> REQUEST_HEADERS = Set.of("authorization", "content-type", "accept",
            "accept-language", "last-event-id", "user-agent");
    private static final Set<String> RESPONSE_HEADERS = Set.of("content-type", "location", "retry-after",
            "cache-control", "www-authenticate");

    // Looked up at the first request: filters are made with the web server, before the datasource's
    // settings are complete, and these two need the datasource.
    private final ObjectProvider<LeaderLock> leaders;
    private final ObjectProvider<LeaderDirectory> directories;
    private final ObjectProvider<JdbcTemplate> jdbc;
    private final ControlProperties properties;
    private final java.security.SecureRandom random = new java.security.SecureRandom();
    private volatile String secret;
    private final JsonMapper json;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(3)).build();

    LeaderForwarding(ObjectProvider<LeaderLock> leaders, ObjectProvider<LeaderDirectory> directories,
            ObjectProvider<JdbcTemplate> jdbc, ControlProperties properties, JsonMapper json) {
        this.leaders = leaders;
        this.directories = directories;
        this.jdbc = jdbc;
        this.properties = properties;
        this.json = json;
    }

    @Configuration(proxyBeanMethods = false)
    static class Registration {

        /** After the body-size cap, before security: the leader checks the caller's token itself. */
        @Bean
        FilterRegistrationBean<LeaderForwarding> leaderForwarding(ObjectProvider<LeaderLock> leader,
                ObjectProvider<LeaderDirectory> directory, ObjectProvider<JdbcTemplate> jdbc,
                ControlProperties properties, JsonMapper json) {
            FilterRegistrationBean<LeaderForwarding> registration = new FilterRegistrationBean<>(
                    new LeaderForwarding(leader, directory, jdbc, properties, json));
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 2);
            registration.addUrlPatterns("/api/v1/*");
            return registration;
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest received, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        HttpServletRequest request = withForwardedClient(received);
        String path = request.getRequestURI().substring(request.getContextPath().length());
        // The agents' own calls; ADMINs' writes under /agents (approve, rotate, revoke) are forwarded like any write.
        boolean agent = "POST".equals(request.getMethod()) && (AgentProtocol.REGISTER.equals(path)
                || AGENT_CALL.matcher(path).matches());
        boolean write = WRITES.contains(request.getMethod()) && !path.startsWith("/api/v1/auth/")
                || "GET".equals(request.getMethod()) && LEADER_READ.matcher(path).matches();
        if (!(agent || write) || leaders.getObject().heldNow()) {
            chain.doFilter(request, response);
            return;
        }
        LeaderDirectory directory = directories.getObject();
        String target = directory.leaderUrl();
        String own = directory.ownUrl();
        if (target == null || target.equals(own) || request.getHeader(FORWARDED_HEADER) != null) {
            // No leader yet, or the store still names this controller (it lost the lock a moment ago).
            problem(request, response, 503, "No scheduling leader is reachable yet; retry shortly");
            return;
        }
        if (agent) {
            response.setHeader("X-Gantry-Leader", target);
            problem(request, response, 421, "This controller is a follower; the leader is " + target);
            return;
        }
        forward(request, response, target + path + (request.getQueryString() == null ? "" : "?" + request.getQueryString()));
    }

    private void forward(HttpServletRequest request, HttpServletResponse response, String url) throws IOException {
        LeaderDirectory directory = directories.getObject();
        byte[] body = request.getInputStream().readAllBytes();
        HttpRequest.Builder out = HttpRequest.newBuilder(URI.create(url)).timeout(properties.forwardTimeout())
                .method(request.getMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body))
                .header(FORWARDED_HEADER, secret())
                .header(CLIENT_HEADER, request.getRemoteAddr());
        for (String name : java.util.Collections.list(request.getHeaderNames())) {
            if (REQUEST_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                for (String value : java.util.Collections.list(request.getHeaders(name))) {
                    out.header(name, value);
                }
            }
        }
        String forwardedFor = request.getHeader("X-Forwarded-For");
        out.header("X-Forwarded-For", forwardedFor == null ? request.getRemoteAddr()
                : forwardedFor + ", " + request.getRemoteAddr());
        HttpResponse<byte[]> answer;
        try {
            answer = http.send(out.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            directory.forget();
            log.warn("Could not forward {} {} to the leader: {}", request.getMethod(), request.getRequestURI(),
                    e.toString());
            problem(request, response, 503, "The scheduling leader did not answer; retry shortly");
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problem(request, response, 503, "Interrupted while forwarding to the leader; retry");
            return;
        }
        response.setStatus(answer.statusCode());
        answer.headers().map().forEach((name, values) -> {
            if (RESPONSE_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(v -> response.addHeader(name, v));
            }
        });
        response.getOutputStream().write(answer.body());
    }

    /**
     * The request as the client made it: for a write a follower forwarded with the right secret, with the
     * client's address in place of the follower's; any other request as it came (its headers ignored).
     */
    private HttpServletRequest withForwardedClient(HttpServletRequest request) {
        String presented = request.getHeader(FORWARDED_HEADER);
        String client = request.getHeader(CLIENT_HEADER);
        if (presented == null || client == null) {
            return request;
        }
        if (!java.security.MessageDigest.isEqual(secret().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                presented.getBytes(java.nio.charset.StandardCharsets.UTF_8)) || !ADDRESS.matcher(client).matches()) {
            log.warn("Ignored the client address {} claims to forward for: it is not a controller of this cluster "
                    + "(wrong forwarding secret) or the address is malformed", request.getRemoteAddr());
            return request;
        }
        return new jakarta.servlet.http.HttpServletRequestWrapper(request) {
            @Override
            public String getRemoteAddr() {
                return client;
            }

            @Override
            public String getRemoteHost() {
                return client;
            }
        };
    }

    /**
     * The forwarding secret every controller sharing the store shares: read from the store, created
     * there by the first controller that needs it (another creating it at the same moment wins alike).
     */
    private String secret() {
        String known = secret;
        if (known != null) {
            return known;
        }
        JdbcTemplate store = jdbc.getObject();
        List<String> stored = store.queryForList("SELECT secret FROM control_forwarding WHERE id = 1", String.class);
        if (stored.isEmpty()) {
            byte[] bytes = new byte[32];
            random.nextBytes(bytes);
            try {
                store.update("INSERT INTO control_forwarding (id, secret) VALUES (1, ?)",
                        java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
            } catch (DataIntegrityViolationException another) {
                // another controller created it first: take theirs
            }
            stored = store.queryForList("SELECT secret FROM control_forwarding WHERE id = 1", String.class);
        }
        secret = stored.get(0);
        return secret;
    }

    private void problem(HttpServletRequest request, HttpServletResponse response, int status, String detail)
            throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        ProblemType type = status == 421 ? ProblemType.MISDIRECTED : ProblemType.UNAVAILABLE;
        body.put("type", type.uri().toString());
        body.put("title", type.title());
        body.put("status", status);
        body.put("detail", detail);
        body.put("instance", request.getRequestURI());
        response.setStatus(status);
        if (status == 503) {
            response.setHeader("Retry-After", "1");
        }
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding("UTF-8");
        json.writeValue(response.getOutputStream(), body);
    }
}
