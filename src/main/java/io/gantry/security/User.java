package io.gantry.security;

import java.time.Instant;
import java.util.Set;

/** A Gantry user as other packages see it; never carries the password hash. */
public record User(String username, Set<Role> roles, boolean enabled, String defaultAccount,
        Instant createdAt, Instant updatedAt) {

    public User {
        roles = Set.copyOf(roles);
    }
}
