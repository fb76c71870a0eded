package io.gantry.security;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code gantry.security.*}. Everything here has a safe default except the two secrets, which are
 * generated into the data directory when left out (see {@link BootstrapAdmin} and {@link JwtSecret}).
 *
 * @param bootstrapAdminPassword the password of user {@code admin} created on the first start with
 *        an empty store; when unset a random one is written to {@code <data-dir>/initial-admin-password}
 * @param jwtSecret the HS256 key for bearer tokens, at least 32 bytes; when unset one is generated
 *        once into {@code <data-dir>/jwt-secret} so tokens survive a restart
 * @param defaultTokenLifetime how long a token lives when the request names no lifetime
 * @param maxTokenLifetime the longest lifetime a request may ask for
 * @param userCacheTtl how long the answer "this user exists, is enabled, holds these roles and this
 *        token epoch" is reused when a token is presented; a disabled, deleted or demoted user, a new
 *        password or revoked tokens lose access within this time on every controller (at once on
 *        the controller that made the change)
 */
@Validated
@ConfigurationProperties("gantry.security")
public record SecurityProperties(
        String bootstrapAdminPassword,
        String jwtSecret,
        @DefaultValue("12h") Duration defaultTokenLifetime,
        @DefaultValue("7d") Duration maxTokenLifetime,
        @DefaultValue("5s") Duration userCacheTtl) {

    static final int MIN_SECRET_BYTES = 32;
    static final int MIN_PASSWORD_LENGTH = 8;

    public SecurityProperties {
        bootstrapAdminPassword = blankToNull(bootstrapAdminPassword);
        jwtSecret = blankToNull(jwtSecret);
        if (jwtSecret != null && jwtSecret.getBytes(StandardCharsets.UTF_8).length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("gantry.security.jwt-secret must be at least " + MIN_SECRET_BYTES
                    + " bytes for HS256 (it has " + jwtSecret.getBytes(StandardCharsets.UTF_8).length
                    + "); leave it unset to have one generated into the data directory");
        }
        if (bootstrapAdminPassword != null && bootstrapAdminPassword.length() < MIN_PASSWORD_LENGTH) {
            throw new IllegalArgumentException("gantry.security.bootstrap-admin-password must have at least "
                    + MIN_PASSWORD_LENGTH + " characters");
        }
        requirePositive("default-token-lifetime", defaultTokenLifetime);
        requirePositive("max-token-lifetime", maxTokenLifetime);
        requirePositive("user-cache-ttl", userCacheTtl);
        if (defaultTokenLifetime.compareTo(maxTokenLifetime) > 0) {
            throw new IllegalArgumentException("gantry.security.default-token-lifetime (" + defaultTokenLifetime
                    + ") must not exceed gantry.security.max-token-lifetime (" + maxTokenLifetime + ")");
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("gantry.security." + name + " must be a positive duration, was " + value);
        }
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    /** Hides the secrets when the properties are printed (actuator, logs, test failures). */
    @Override
    public String toString() {
        return "SecurityProperties[bootstrapAdminPassword=" + (bootstrapAdminPassword == null ? "unset" : "***")
                + ", jwtSecret=" + (jwtSecret == null ? "unset" : "***")
                + ", defaultTokenLifetime=" + defaultTokenLifetime + ", maxTokenLifetime=" + maxTokenLifetime
                + ", userCacheTtl=" + userCacheTtl + "]";
    }
}
