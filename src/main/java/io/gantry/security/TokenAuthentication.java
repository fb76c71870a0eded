package io.gantry.security;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import org.springframework.core.convert.converter.Converter;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

/**
 * Turns a verified token into the caller's authorities. The token's roles are cut down to those
 * the user holds now, so a demotion, a disabled account or a deletion takes effect within the
 * user cache's TTL rather than when the token expires; a promotion needs a new token.
 */
class TokenAuthentication implements Converter<Jwt, AbstractAuthenticationToken> {

    private final ActiveUsers activeUsers;
    private final Supplier<JobCredentialCheck> jobs;

    TokenAuthentication(ActiveUsers activeUsers, Supplier<JobCredentialCheck> jobs) {
        this.activeUsers = activeUsers;
        this.jobs = jobs;
    }

    @Override
    public AbstractAuthenticationToken convert(Jwt jwt) {
        String username = jwt.getSubject();
        if (username == null || username.isBlank()) {
            throw new InvalidBearerTokenException("The bearer token names no user");
        }
        Set<Role> current = activeUsers.roles(username).orElseThrow(() -> new InvalidBearerTokenException(
                "The bearer token's user no longer exists or is disabled"));
        String job = jwt.getClaimAsString(JobCredentials.JOB_CLAIM);
        if (job != null) {
            // A job credential: the owner as a USER, for as long as that run of the job is active.
            JobCredentialCheck check = jobs.get();
            Object run = jwt.getClaims().get(JobCredentials.RUN_CLAIM);
            long runStart = run instanceof Number n ? n.longValue() : -1;
            if (check == null || !check.active(job, runStart)) {
                throw new InvalidBearerTokenException("The job credential's job " + job + " is no longer running");
            }
            return new JwtAuthenticationToken(jwt, List.of(new SimpleGrantedAuthority(Role.USER.authority())),
                    username);
        }
        List<String> claimed = jwt.getClaimAsStringList(TokenIssuer.ROLES_CLAIM);
        EnumSet<Role> granted = EnumSet.noneOf(Role.class);
        if (claimed != null) {
            claimed.forEach(name -> Role.parse(name).filter(current::contains).ifPresent(granted::add));
        }
        var authorities = granted.stream().map(r -> new SimpleGrantedAuthority(r.authority())).toList();
        return new JwtAuthenticationToken(jwt, authorities, username);
    }
}
