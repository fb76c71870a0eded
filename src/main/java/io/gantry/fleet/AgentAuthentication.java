package io.gantry.fleet;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
import org.springframework.http.MediaType;
import org.springframework.util.unit.DataSize;
import org.springframework.web.filter.OncePerRequestFilter;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.api.RequestBodyLimit;
import tools.jackson.databind.json.JsonMapper;

/**
 * Authenticates the agent protocol's calls before a byte of their body is read: a registration must
 * carry the join token or a node's credential, a poll or report its node's credential. Only then is
 * the body read, and no more than {@link #MAX_BODY} of it (413 past that). So a stranger cannot make
 * the controller parse megabytes, and a 10 MB body with a wrong bearer is refused 401 unread. First
 * of all filters, ahead of the general body cap, so the answer to a stranger is always 401.
 * <p>
 * What it established travels to {@link AgentController} as the request attribute {@link #CALLER}.
 */
class AgentAuthentication extends OncePerRequestFilter {

    static final String CALLER = "io.gantry.fleet.AgentAuthentication.caller";
    /** Registrations, polls and report batches are a few KB; 1 MiB leaves room for 10,000s of job ids. */
    static final DataSize MAX_BODY = DataSize.ofMegabytes(1);

    private static final Logger log = LoggerFactory.getLogger(AgentAuthentication.class);
    private static final Pattern NODE_CALL = Pattern.compile(
            Pattern.quote(AgentProtocol.BASE) + "/([^/]+)/(poll|reports|step-reports|output|step-stats)");

    /** Who an agent call comes from: {@code node} is null for a join with the join token. */
    record AgentCaller(String node) {

        static final AgentCaller JOINING = new AgentCaller(null);

        boolean joining() {
            return node == null;
        }
    }

    // Looked up at the first request: filters are made with the web server, before the store is ready.
    private final ObjectProvider<AgentCredentials> credentials;
    private final ObjectProvider<JoinToken> joinToken;
    private final JsonMapper json;
    private final RequestBodyLimit bodyLimit;

    AgentAuthentication(ObjectProvider<AgentCredentials> credentials, ObjectProvider<JoinToken> joinToken,
            JsonMapper json) {
        this.credentials = credentials;
        this.joinToken = joinToken;
        this.json = json;
        this.bodyLimit = new RequestBodyLimit(MAX_BODY.toBytes(), json);
    }

    @Configuration(proxyBeanMethods = false)
    static class Registration {

        @Bean
        FilterRegistrationBean<AgentAuthentication> agentAuthentication(ObjectProvider<AgentCredentials> credentials,
                ObjectProvider<JoinToken> joinToken, JsonMapper json) {
            FilterRegistrationBean<AgentAuthentication> registration = new FilterRegistrationBean<>(
                    new AgentAuthentication(credentials, joinToken, json));
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
            registration.addUrlPatterns(AgentProtocol.BASE + "/*");
            return registration;
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!"POST".equals(request.getMethod())) {
            chain.doFilter(request, response);
            return;
        }
        String path = request.getRequestURI().substring(request.getContextPath().length());
        AgentCaller caller;
        try {
            if (AgentProtocol.REGISTER.equals(path)) {
                caller = registering(request);
            } else {
                Matcher call = NODE_CALL.matcher(path);
                if (!call.matches()) {
                    chain.doFilter(request, response);
                    return;
                }
                String node = call.group(1);
                credentials.getObject().require(node, request.getHeader("Authorization"), request.getRemoteAddr());
                caller = new AgentCaller(node);
            }
        } catch (GantryException refused) {
            problem(request, response, refused);
            return;
        }
        request.setAttribute(CALLER, caller);
        bodyLimit.doFilter(request, response, chain);
    }

    private AgentCaller registering(HttpServletRequest request) {
        String presented = AgentCredentials.bearer(request.getHeader("Authorization"));
        if (joinToken.getObject().matches(presented)) {
            return AgentCaller.JOINING;
        }
        Optional<String> node = credentials.getObject().nodeOf(presented);
        if (node.isEmpty()) {
            log.warn("Refused an agent registration from {}: wrong join token or unknown credential",
                    request.getRemoteAddr());
            throw new GantryException(ProblemType.UNAUTHENTICATED,
                    "Wrong join token or unknown node credential (see gantry.agents.join-token)");
        }
        return new AgentCaller(node.get());
    }

    private void problem(HttpServletRequest request, HttpServletResponse response, GantryException e)
            throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", e.type().uri().toString());
        body.put("title", e.type().title());
        body.put("status", e.status().value());
        body.put("detail", e.getMessage());
        body.put("instance", request.getRequestURI());
        response.setStatus(e.status().value());
        if (e.type() == ProblemType.UNAUTHENTICATED) {
            response.setHeader("WWW-Authenticate", "Bearer");
        }
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setCharacterEncoding("UTF-8");
        json.writeValue(response.getOutputStream(), body);
    }
}
