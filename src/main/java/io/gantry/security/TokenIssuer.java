package io.gantry.security;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoder;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.stereotype.Component;

/**
 * Signs bearer tokens: HS256, claims {@code sub, roles, epoch, iat, exp, iss}. {@code epoch} is the
 * user's token epoch at issue; {@link TokenAuthentication} refuses the token once it moved on.
 */
@Component
class TokenIssuer {

    static final String ISSUER = "gantry";
    static final String ROLES_CLAIM = "roles";
    static final String EPOCH_CLAIM = "epoch";

    record IssuedToken(String token, Instant expiresAt) {
    }

    private final JwtEncoder encoder;
    private final Clock clock;

    TokenIssuer(JwtEncoder encoder, Clock clock) {
        this.encoder = encoder;
        this.clock = clock;
    }

    IssuedToken issue(User user, long tokenEpoch, Duration lifetime) {
        // JWT times have whole seconds; cutting here makes expiresAt match the token's exp exactly.
        Instant now = clock.instant().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        Instant expiresAt = now.plus(lifetime);
        JwtClaimsSet claims = JwtClaimsSet.builder()
                .issuer(ISSUER)
                .subject(user.username())
                .issuedAt(now)
                .expiresAt(expiresAt)
                .claim(ROLES_CLAIM, user.roles().stream().sorted().map(Role::name).toList())
                .claim(EPOCH_CLAIM, tokenEpoch)
                .build();
        JwsHeader header = JwsHeader.with(MacAlgorithm.HS256).type("JWT").build();
        String token = encoder.encode(JwtEncoderParameters.from(header, claims)).getTokenValue();
        return new IssuedToken(token, expiresAt);
    }
}
