package io.gantry.security;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.HttpHeaders;
import org.springframework.security.oauth2.server.resource.BearerTokenErrors;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.web.firewall.HttpFirewall;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * The character checks every request pays, written as loops. Spring Security's defaults are regular
 * expressions run per character: the firewall's "assigned and not a control character" on each
 * header name and value each time one is read (the {@code Authorization} header several times a
 * request), and the bearer token's syntax. Profiled under the submission benchmark they were the
 * largest part of a request's own CPU, ahead of parsing and storing the job. Same rules, same answers.
 */
final class RequestCharacters {

    private static final String BEARER = "bearer";

    private RequestCharacters() {
    }

    /** Spring Security's strict firewall, its header and parameter-name checks done by {@link #assignedNotControl}. */
    static HttpFirewall firewall() {
        StrictHttpFirewall firewall = new StrictHttpFirewall();
        firewall.setAllowedHeaderNames(RequestCharacters::assignedNotControl);
        firewall.setAllowedHeaderValues(RequestCharacters::assignedNotControl);
        firewall.setAllowedParameterNames(RequestCharacters::assignedNotControl);
        return firewall;
    }

    /** What {@code [\p{IsAssigned}&&[^\p{IsControl}]]*} matches, without the regex: printable ASCII at once. */
    static boolean assignedNotControl(String text) {
        if (text == null) {
            return true;
        }
        for (int i = 0; i < text.length(); ) {
            char c = text.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                i++;
                continue;
            }
            int point = text.codePointAt(i);
            int type = Character.getType(point);
            if (type == Character.UNASSIGNED || type == Character.CONTROL) {
                return false;
            }
            i += Character.charCount(point);
        }
        return true;
    }

    /**
     * The bearer token of the {@code Authorization} header as RFC 6750 writes it ({@code Bearer} in any
     * case, one space, then {@code [A-Za-z0-9-._~+/]+=*}), else null when the header is absent or another
     * scheme; a malformed bearer token is refused as Spring Security's resolver refuses it.
     */
    static String bearerToken(HttpServletRequest request) {
        String header = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        String token = header.length() > BEARER.length() && header.charAt(BEARER.length()) == ' '
                ? header.substring(BEARER.length() + 1) : "";
        if (!tokenSyntax(token)) {
            throw new OAuth2AuthenticationException(BearerTokenErrors.invalidToken("Bearer token is malformed"));
        }
        return token;
    }

    static boolean tokenSyntax(String token) {
        int end = token.length();
        while (end > 0 && token.charAt(end - 1) == '=') {
            end--;
        }
        if (end == 0) {
            return false;
        }
        for (int i = 0; i < end; i++) {
            char c = token.charAt(i);
            boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
