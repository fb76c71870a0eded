package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class SecurityPropertiesTests {

    private static final Duration H12 = Duration.ofHours(12);
    private static final Duration D7 = Duration.ofDays(7);
    private static final Duration TTL = Duration.ofSeconds(15);

    @Test
    void aJwtSecretShorterThan32BytesIsRejectedWithThePropertyName() {
        assertThatThrownBy(() -> new SecurityProperties(null, "too-short", H12, D7, TTL))
                .hasMessageContaining("gantry.security.jwt-secret").hasMessageContaining("at least 32 bytes");
    }

    @Test
    void aDefaultLifetimeAboveTheMaximumIsRejected() {
        assertThatThrownBy(() -> new SecurityProperties(null, null, D7.plusDays(1), D7, TTL))
                .hasMessageContaining("default-token-lifetime");
    }

    @Test
    void aShortBootstrapPasswordIsRejected() {
        assertThatThrownBy(() -> new SecurityProperties("short", null, H12, D7, TTL))
                .hasMessageContaining("bootstrap-admin-password");
    }

    @Test
    void blankSecretsMeanUnsetAndNeverShowInToString() {
        var unset = new SecurityProperties(" ", "", H12, D7, TTL);
        var set = new SecurityProperties("admin-password", "x".repeat(32), H12, D7, TTL);

        assertThat(unset.bootstrapAdminPassword()).isNull();
        assertThat(unset.jwtSecret()).isNull();
        assertThat(set.toString()).doesNotContain("admin-password").doesNotContain("x".repeat(32));
    }
}
