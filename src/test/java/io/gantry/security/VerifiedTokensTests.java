package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;

import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;

class VerifiedTokensTests {

    private final SecretKeySpec key = new SecretKeySpec(new byte[32], "HmacSHA256");
    private final NimbusJwtDecoder nimbus = NimbusJwtDecoder.withSecretKey(key).macAlgorithm(MacAlgorithm.HS256).build();
    private final AtomicInteger signatureChecks = new AtomicInteger();
    private final JwtDecoder counting = token -> {
        signatureChecks.incrementAndGet();
        return nimbus.decode(token);
    };

    @Test
    void aTokenUsedAgainIsVerifiedOnce() {
        VerifiedTokens tokens = new VerifiedTokens(counting, validAt(Instant.now()), 10);
        String token = token("alice", Instant.now().plusSeconds(600));

        assertThat(tokens.decode(token).getSubject()).isEqualTo("alice");
        assertThat(tokens.decode(token).getSubject()).isEqualTo("alice");

        assertThat(signatureChecks).hasValue(1);
    }

    @Test
    void aRememberedTokenStillExpiresOnTime() {
        Instant now = Instant.now();
        Instant expiry = now.plusSeconds(60);
        String token = token("alice", expiry);
        JwtTimestampValidator validator = new JwtTimestampValidator(Duration.ZERO);
        validator.setClock(Clock.fixed(now, ZoneOffset.UTC));
        VerifiedTokens tokens = new VerifiedTokens(counting, validator, 10);
        tokens.decode(token);

        validator.setClock(Clock.fixed(expiry.plusSeconds(1), ZoneOffset.UTC));

        assertThatThrownBy(() -> tokens.decode(token)).isInstanceOf(JwtException.class).hasMessageContaining("expired");
        assertThat(tokens.size()).isZero();
    }

    @Test
    void aTokenWithABadSignatureIsNeverRemembered() {
        VerifiedTokens tokens = new VerifiedTokens(counting, validAt(Instant.now()), 10);
        String token = token("alice", Instant.now().plusSeconds(600));
        String forged = token.substring(0, token.lastIndexOf('.') + 1) + "AAAA" + token.substring(token.lastIndexOf('.') + 5);

        assertThatThrownBy(() -> tokens.decode(forged)).isInstanceOf(JwtException.class);
        assertThatThrownBy(() -> tokens.decode(forged)).isInstanceOf(JwtException.class);

        assertThat(signatureChecks).hasValue(2);
        assertThat(tokens.size()).isZero();
    }

    @Test
    void theMemoryIsBounded() {
        VerifiedTokens tokens = new VerifiedTokens(counting, validAt(Instant.now()), 3);
        for (int i = 0; i < 10; i++) {
            tokens.decode(token("user" + i, Instant.now().plusSeconds(600)));
        }
        assertThat(tokens.size()).isLessThanOrEqualTo(3);
    }

    private static OAuth2TokenValidator<Jwt> validAt(Instant now) {
        JwtTimestampValidator validator = new JwtTimestampValidator(Duration.ZERO);
        validator.setClock(Clock.fixed(now, ZoneOffset.UTC));
        return validator;
    }

    private String token(String subject, Instant expiry) {
        NimbusJwtEncoder encoder = NimbusJwtEncoder.withSecretKey(key).algorithm(MacAlgorithm.HS256).build();
        JwtClaimsSet claims = JwtClaimsSet.builder().subject(subject).issuedAt(expiry.minusSeconds(3600))
                .expiresAt(expiry).build();
        return encoder.encode(JwtEncoderParameters.from(JwsHeader.with(MacAlgorithm.HS256).build(), claims))
                .getTokenValue();
    }
}
