package io.gantry.api;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

import tools.jackson.databind.json.JsonMapper;

/**
 * Caps every request body at {@code gantry.api.max-request-bytes}: a declared Content-Length over the
 * cap is answered 413 at once, before the body is read or anyone is authenticated; a chunked body is
 * counted as it is read and the read that crosses the cap throws {@link RequestBodyTooLarge}, which
 * {@link ProblemHandler} answers 413. Nothing is buffered here, so a 10 MB body costs no 10 MB of heap.
 * Feature packages may put a stricter one in front of their own endpoints (the agents' is 1 MiB).
 */
public class RequestBodyLimit extends OncePerRequestFilter {

    private static final Logger log = LoggerFactory.getLogger(RequestBodyLimit.class);

    private final long maxBytes;
    private final JsonMapper json;

    public RequestBodyLimit(long maxBytes, JsonMapper json) {
        this.maxBytes = maxBytes;
        this.json = json;
    }

    @Configuration(proxyBeanMethods = false)
    static class Registration {

        /** First of all filters: a body too large is refused before security or logging look at it. */
        @Bean
        FilterRegistrationBean<RequestBodyLimit> requestBodyLimit(ApiProperties properties, JsonMapper json) {
            FilterRegistrationBean<RequestBodyLimit> registration = new FilterRegistrationBean<>(
                    new RequestBodyLimit(properties.maxRequestBytes().toBytes(), json));
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
            return registration;
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (request.getContentLengthLong() > maxBytes) {
            reject(request, response);
            return;
        }
        chain.doFilter(new Capped(request, maxBytes), response);
    }

    private void reject(HttpServletRequest request, HttpServletResponse response) throws IOException {
        // Answered ahead of the request log (which sits inside the security chain): say it here.
        log.info("{} {} refused 413: Content-Length {} over {} bytes", request.getMethod(), request.getRequestURI(),
                request.getContentLengthLong(), maxBytes);
        Problems.write(response, json, request.getRequestURI(), ProblemType.PAYLOAD_TOO_LARGE,
                new RequestBodyTooLarge(maxBytes).getMessage(), java.util.List.of());
    }

    /** The request with a body stream that counts what is read and stops past the cap. */
    private static final class Capped extends HttpServletRequestWrapper {

        private final long maxBytes;
        private ServletInputStream stream;

        Capped(HttpServletRequest request, long maxBytes) {
            super(request);
            this.maxBytes = maxBytes;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new CountingStream(super.getInputStream(), maxBytes);
            }
            return stream;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            String encoding = getCharacterEncoding();
            Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
            return new BufferedReader(new InputStreamReader(getInputStream(), charset));
        }
    }

    private static final class CountingStream extends ServletInputStream {

        private final ServletInputStream in;
        private final long maxBytes;
        private long count;

        CountingStream(ServletInputStream in, long maxBytes) {
            this.in = in;
            this.maxBytes = maxBytes;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                add(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                add(n);
            }
            return n;
        }

        private void add(int n) {
            count += n;
            if (count > maxBytes) {
                throw new RequestBodyTooLarge(maxBytes);
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
