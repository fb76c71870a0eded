package io.gantry.api;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

import tools.jackson.databind.json.JsonMapper;

/**
 * Answers 400 problem+json to a query string that is not percent-encoded UTF-8 ({@code %zz}, a lone
 * {@code %}, {@code %e9} alone, raw bytes that are no UTF-8) or that holds a NUL, which no store column
 * takes. Left to Tomcat, such a query throws while a controller reads its parameters: a 500.
 */
public class QueryStringCheck extends OncePerRequestFilter {

    private final JsonMapper json;

    public QueryStringCheck(JsonMapper json) {
        this.json = json;
    }

    @Configuration(proxyBeanMethods = false)
    static class Registration {

        /** Right after the body limit, before security and logging read any parameter. */
        @Bean
        FilterRegistrationBean<QueryStringCheck> queryStringCheck(JsonMapper json) {
            FilterRegistrationBean<QueryStringCheck> registration = new FilterRegistrationBean<>(new QueryStringCheck(json));
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 2);
            return registration;
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String query = request.getQueryString();
        String wrong = query == null ? null : problem(query);
        if (wrong != null) {
            Problems.write(response, json, request.getRequestURI(), ProblemType.MALFORMED,
                    "The query string is malformed: " + wrong, List.of(new GantryException.FieldError("query", wrong)));
            return;
        }
        chain.doFilter(request, response);
    }

    /** What is wrong with this query string, or null when each name and value decodes to UTF-8 text without NUL. */
    static String problem(String query) {
        byte[] bytes = new byte[query.length()];
        int n = 0;
        for (int i = 0; i < query.length(); i++) {
            char c = query.charAt(i);
            if (c == '%') {
                if (i + 2 >= query.length() || Character.digit(query.charAt(i + 1), 16) < 0
                        || Character.digit(query.charAt(i + 2), 16) < 0) {
                    return "'%' at position " + i + " is not followed by two hex digits (write a % as %25)";
                }
                bytes[n++] = (byte) Integer.parseInt(query.substring(i + 1, i + 3), 16);
                i += 2;
            } else if (c == '\uFFFD' || c < 0x20 || c == 0x7f) {
                return "position " + i + " holds a byte that is not percent-encoded UTF-8";
            } else if (c > 0x7f) {
                // Already decoded by the server as UTF-8: valid text, kept as it is.
                int codePoint = query.codePointAt(i);
                byte[] encoded = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8);
                i += Character.charCount(codePoint) - 1;
                if (n + encoded.length > bytes.length) {
                    bytes = java.util.Arrays.copyOf(bytes, n + encoded.length + query.length());
                }
                System.arraycopy(encoded, 0, bytes, n, encoded.length);
                n += encoded.length;
            } else {
                bytes[n++] = (byte) c;
            }
        }
        String decoded;
        try {
            decoded = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, n)).toString();
        } catch (CharacterCodingException e) {
            return "its percent escapes do not encode UTF-8 text";
        }
        if (decoded.indexOf('\0') >= 0) {
            return "it holds a NUL character (%00)";
        }
        return null;
    }
}
