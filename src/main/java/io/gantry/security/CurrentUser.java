package io.gantry.security;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;

/**
 * Who is calling. Declare it as a controller method parameter ({@code CurrentUser caller}), or
 * call {@link #get()} anywhere on the request thread. {@code roles} are the roles the caller holds
 * directly; use {@link #has(Role)} or {@link #isOperator()} to honour the hierarchy.
 */
public record CurrentUser(String username, Set<Role> roles) {

    public CurrentUser {
        roles = roles.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(roles));
    }

    /** Holds {@code role} directly or through a higher one. */
    public boolean has(Role role) {
        return roles.stream().anyMatch(r -> r.includes(role));
    }

    /** May act on every user's jobs and on nodes. */
    public boolean isOperator() {
        return has(Role.OPERATOR);
    }

    public boolean isAdmin() {
        return has(Role.ADMIN);
    }

    /** Whether the caller may act on something owned by {@code owner}: their own, or as OPERATOR. */
    public boolean mayActFor(String owner) {
        return username.equals(owner) || isOperator();
    }

    /** The signed-in caller; 401 problem when the request carries no valid token. */
    public static CurrentUser get() {
        return find().orElseThrow(() -> new GantryException(ProblemType.UNAUTHENTICATED,
                "This operation needs a bearer token"));
    }

    public static Optional<CurrentUser> find() {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (!(authentication instanceof JwtAuthenticationToken token) || !token.isAuthenticated()) {
            return Optional.empty();
        }
        return Optional.of(from(token));
    }

    /**
     * The job whose credential ({@code GANTRY_JOB_TOKEN}) the caller presented, as users write its id;
     * empty for an ordinary token.
     */
    public static Optional<String> credentialJob() {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (!(authentication instanceof JwtAuthenticationToken token) || !token.isAuthenticated()) {
            return Optional.empty();
        }
        return Optional.ofNullable(token.getToken().getClaimAsString(JobCredentials.JOB_CLAIM));
    }

    static CurrentUser from(Authentication authentication) {
        EnumSet<Role> roles = EnumSet.noneOf(Role.class);
        for (GrantedAuthority authority : authentication.getAuthorities()) {
            String name = authority.getAuthority();
            if (name != null && name.startsWith("ROLE_")) {
                Role.parse(name.substring("ROLE_".length())).ifPresent(roles::add);
            }
        }
        return new CurrentUser(authentication.getName(), roles);
    }
}
