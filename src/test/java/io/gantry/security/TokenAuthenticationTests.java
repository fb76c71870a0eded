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

    private static final long EPOCH = 42;
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private final ActiveUsers activeUsers = mock(ActiveUsers.class);
    private final TokenAuthentication conversion = new TokenAuthentication(activeUsers, (job, run) -> false);

    @Test
    void aTokenGrantsTheRolesItNamesThatTheUserStillHolds() {
        when(activeUsers.standing("alice")).thenReturn(standing(Set.of(Role.USER)));

        var authentication = conversion.convert(token("alice", "OPERATOR", "USER"));

        assertThat(authentication.getName()).isEqualTo("alice");
        assertThat(authentication.getAuthorities()).extracting(GrantedAuthority::getAuthority)
                .containsExactly("ROLE_USER");
    }

    @Test
    void aPromotionNeedsANewToken() {
        when(activeUsers.standing("alice")).thenReturn(standing(Set.of(Role.USER, Role.ADMIN)));

        var authentication = conversion.convert(token("alice", "USER"));

        assertThat(authentication.getAuthorities()).extracting(GrantedAuthority::getAuthority)
                .containsExactly("ROLE_USER");
    }

    @Test
    void aDisabledOrDeletedUsersTokenIsRejected() {
        when(activeUsers.standing("gone")).thenReturn(Optional.empty());

        assertThatThrownBy(() -> conversion.convert(token("gone", "USER")))
                .isInstanceOf(InvalidBearerTokenException.class).hasMessageContaining("no longer exists or is disabled");
    }

    @Test
    void aTokenOfAnEarlierEpochIsRejected() {
        when(activeUsers.standing("alice")).thenReturn(Optional.of(new UserService.Standing(Set.of(Role.USER), 8)));

        assertThatThrownBy(() -> conversion.convert(token("alice", EPOCH, "USER")))
                .isInstanceOf(InvalidBearerTokenException.class).hasMessageContaining("revoked");
        assertThat(conversion.convert(token("alice", 8, "USER")).getName()).isEqualTo("alice");
    }

    @Test
    void aTokenWithoutAnEpochIsValidOnlyForAUserWhoseTokensNeverChanged() {
        Jwt legacy = Jwt.withTokenValue("t").header("alg", "HS256").subject("alice").issuer("gantry")
                .issuedAt(NOW).expiresAt(NOW.plusSeconds(60)).claim("roles", List.of("USER")).build();

        when(activeUsers.standing("alice")).thenReturn(Optional.of(new UserService.Standing(Set.of(Role.USER), 0)));
        assertThat(conversion.convert(legacy).getAuthorities()).isNotEmpty();
        when(activeUsers.standing("alice")).thenReturn(standing(Set.of(Role.USER)));
        assertThatThrownBy(() -> conversion.convert(legacy)).isInstanceOf(InvalidBearerTokenException.class);
    }

    @Test
    void anEpochThatIsNotANumberIsRejected() {
        Jwt odd = Jwt.withTokenValue("t").header("alg", "HS256").subject("alice").issuer("gantry")
                .issuedAt(NOW).expiresAt(NOW.plusSeconds(60)).claim("roles", List.of("USER"))
                .claim("epoch", String.valueOf(EPOCH)).build();
        when(activeUsers.standing("alice")).thenReturn(standing(Set.of(Role.USER)));

        assertThatThrownBy(() -> conversion.convert(odd)).isInstanceOf(InvalidBearerTokenException.class);
    }

    @Test
    void aJobCredentialOutlivesItsOwnersTokenEpochWhileItsJobRuns() {
        TokenAuthentication withJobs = new TokenAuthentication(activeUsers, (job, run) -> "42".equals(job));
        when(activeUsers.standing("alice")).thenReturn(standing(Set.of(Role.ADMIN)));
        Jwt credential = Jwt.withTokenValue("t").header("alg", "HS256").subject("alice").issuer("gantry")
                .issuedAt(NOW).expiresAt(NOW.plusSeconds(60)).claim("roles", List.of("USER"))
                .claim("job", "42").claim("run", 1L).build();

        assertThat(withJobs.convert(credential).getAuthorities()).extracting(GrantedAuthority::getAuthority)
                .containsExactly("ROLE_USER");
    }

    private static Optional<UserService.Standing> standing(Set<Role> roles) {
        return Optional.of(new UserService.Standing(roles, EPOCH));
    }

    private static Jwt token(String subject, String... roles) {
        return token(subject, EPOCH, roles);
    }

    private static Jwt token(String subject, long epoch, String... roles) {
        return Jwt.withTokenValue("t").header("alg", "HS256").subject(subject).issuer("gantry")
                .issuedAt(NOW).expiresAt(NOW.plusSeconds(60)).claim("roles", List.of(roles))
                .claim("epoch", epoch).build();
    }
}
