package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;

class TokenAuthenticationTests {

    private final ActiveUsers activeUsers = mock(ActiveUsers.class);
    private final TokenAuthentication conversion = new TokenAuthentication(activeUsers, () -> null);

    @Test
    void aTokenGrantsTheRolesItNamesThatTheUserStillHolds() {
        when(activeUsers.roles("alice")).thenReturn(Optional.of(Set.of(Role.USER)));

        var authentication = conversion.convert(token("alice", "OPERATOR", "USER"));

        assertThat(authentication.getName()).isEqualTo("alice");
        assertThat(authentication.getAuthorities()).extracting(GrantedAuthority::getAuthority)
                .containsExactly("ROLE_USER");
    }

    @Test
    void aPromotionNeedsANewToken() {
        when(activeUsers.roles("alice")).thenReturn(Optional.of(Set.of(Role.USER, Role.ADMIN)));

        var authentication = conversion.convert(token("alice", "USER"));

        assertThat(authentication.getAuthorities()).extracting(GrantedAuthority::getAuthority)
                .containsExactly("ROLE_USER");
    }

    @Test
    void aDisabledOrDeletedUsersTokenIsRejected() {
        when(activeUsers.roles("gone")).thenReturn(Optional.empty());

        assertThatThrownBy(() -> conversion.convert(token("gone", "USER")))
                .isInstanceOf(InvalidBearerTokenException.class).hasMessageContaining("no longer exists or is disabled");
    }

    private static Jwt token(String subject, String... roles) {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        return Jwt.withTokenValue("t").header("alg", "HS256").subject(subject).issuer("gantry")
                .issuedAt(now).expiresAt(now.plusSeconds(60)).claim("roles", List.of(roles)).build();
    }
}
