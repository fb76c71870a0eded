package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;

/**
 * The loops that replace Spring Security's per-character regular expressions answer as those do: the
 * firewall's header check on every kind of character, and the bearer token's syntax on well-formed,
 * malformed and foreign {@code Authorization} headers.
 */
class RequestCharactersTests {

    /** Spring Security's StrictHttpFirewall's default header-name and header-value rule. */
    private static final Pattern FIREWALL = Pattern.compile("[\\p{IsAssigned}&&[^\\p{IsControl}]]*");

    @Test
    void theHeaderCheckAgreesWithTheFirewallsRegexOnEveryKindOfCharacter() {
        List<String> samples = List.of("", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig", "text/html; q=0.9", "tab\there",
                "new\nline", "nul\0", "del\u007f", "latin é ü", "c1 \u0085 control", "unassigned \u0378",
                "emoji \uD83D\uDE00", "lone surrogate \uD800", "private use \uE000", "zero width \u200B",
                "line separator \u2028");
        for (String s : samples) {
            assertThat(RequestCharacters.assignedNotControl(s)).as(s).isEqualTo(FIREWALL.matcher(s).matches());
        }
        Random random = new Random(42);
        for (int n = 0; n < 20_000; n++) {
            StringBuilder s = new StringBuilder();
            int length = random.nextInt(6);
            for (int i = 0; i < length; i++) {
                s.append((char) (random.nextBoolean() ? random.nextInt(0x300) : random.nextInt(0x10000)));
            }
            String text = s.toString();
            assertThat(RequestCharacters.assignedNotControl(text)).as("%s", text.codePoints().boxed().toList())
                    .isEqualTo(FIREWALL.matcher(text).matches());
        }
    }

    @Test
    void theBearerTokenIsReadAsSpringSecuritysResolverReadsIt() {
        DefaultBearerTokenResolver standard = new DefaultBearerTokenResolver();
        List<String> headers = List.of("Bearer abc.def-ghi_jkl~mno+p/q", "bearer abc==", "BEARER x", "Basic dXNlcjpwdw==",
                "Bearer  two-spaces", "Bearerglued", "Bearer", "Bearer ", "Bearer a b", "Bearer =", "Bearer abc=d",
                "Bearer é", "DPoP abc", "Token abc");
        for (String header : headers) {
            MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/v1/jobs");
            request.addHeader("Authorization", header);
            String expected;
            try {
                expected = standard.resolve(request);
            } catch (OAuth2AuthenticationException e) {
                assertThatThrownBy(() -> RequestCharacters.bearerToken(request)).as(header)
                        .isInstanceOf(OAuth2AuthenticationException.class).hasMessageContaining("malformed");
                continue;
            }
            assertThat(RequestCharacters.bearerToken(request)).as(header).isEqualTo(expected);
        }
        assertThat(RequestCharacters.bearerToken(new MockHttpServletRequest("GET", "/api/v1/jobs"))).isNull();
    }
}
