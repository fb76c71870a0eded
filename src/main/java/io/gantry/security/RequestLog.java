package io.gantry.security;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * One INFO line per request in logger {@code io.gantry.requests}: method, path, status, duration
 * and user, as key-value pairs (structured logging shows them as fields). Never headers, query
 * strings or bodies: those carry tokens and passwords. It sits inside the security filter chain,
 * just after the security context is set up, so it still sees who the caller was.
 */
class RequestLog extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger("io.gantry.requests");

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!log.isInfoEnabled()) {
            chain.doFilter(request, response);
            return;
        }
        // A monotonic timer, not the wall clock: only the difference matters.
        long start = System.nanoTime();
        int status = 500;
        try {
            chain.doFilter(request, response);
            status = response.getStatus();
        } finally {
            long millis = (System.nanoTime() - start) / 1_000_000;
            Authentication caller = SecurityContextHolder.getContext().getAuthentication();
            String user = caller == null || !caller.isAuthenticated() || "anonymousUser".equals(caller.getName())
                    ? "-" : caller.getName();
            String async = request.isAsyncStarted() ? " async=true" : "";
            // An agent's poll is its heartbeat: 1,250 a second from 12,500 nodes. Like slurmctld with
            // slurmd's pings, only a refused one is worth a line at INFO.
            boolean heartbeat = status < 400 && request.getRequestURI().endsWith("/poll")
                    && request.getRequestURI().startsWith("/api/v1/agents/");
            (heartbeat ? log.atDebug() : log.atInfo())
                    .addKeyValue("method", request.getMethod())
                    .addKeyValue("path", request.getRequestURI())
                    .addKeyValue("status", status)
                    .addKeyValue("durationMs", millis)
                    .addKeyValue("user", user)
                    .log("{} {} {} {}ms user={}{}", request.getMethod(), request.getRequestURI(), status, millis,
                            user, async);
        }
    }
}
