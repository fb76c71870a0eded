package io.gantry.security;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * What a user may do, highest last. Each role includes the ones before it (ADMIN > OPERATOR >
 * USER), both in {@code @PreAuthorize("hasRole('OPERATOR')")} checks and in {@link #includes}.
 */
public enum Role {
    /** Submits and manages their own jobs. */
    USER,
    /** Also acts on every job and on nodes (drain, resume). */
    OPERATOR,
    /** Also manages accounts, users, QOS and configuration. */
    ADMIN;

    /** The Spring Security authority, e.g. {@code ROLE_ADMIN}. */
    public String authority() {
        return "ROLE_" + name();
    }

    /** Whether holding this role grants {@code other} too. */
    public boolean includes(Role other) {
        return compareTo(other) >= 0;
    }

    public static Optional<Role> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String name = text.trim().toUpperCase(Locale.ROOT);
        return Arrays.stream(values()).filter(r -> r.name().equals(name)).findFirst();
    }
}
