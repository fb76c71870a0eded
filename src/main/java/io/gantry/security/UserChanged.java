package io.gantry.security;

/**
 * Published after a user was created, changed or deleted (handled after commit). Caches keyed by
 * username listen to it; {@code deleted} tells the last kind apart.
 */
public record UserChanged(String username, boolean deleted) {
}
