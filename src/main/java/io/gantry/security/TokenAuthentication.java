package io.gantry.security;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.springframework.core.convert.converter.Converter;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;

/**
 * Turns a verified token into the caller's authorities. A user's token must carry their current
 * token epoch, which a new password, other roles, disabling or a revocation moves on, and which a
 * user created again under the same name starts afresh: those tokens are refused (401) on this
 * controller at once and on others within the user cache's TTL. The token's roles are also cut
 * down to those the user holds now. Job credentials are tied to their job's run instead of the epoch.
 */
class TokenAuthentication implements Converter<Jwt, AbstractAuthenticationToken> {

    private final ActiveUsers activeUsers;
    private final JobCredentialCheck jobs;

    TokenAuthentication(ActiveUsers activeUsers, JobCredentialCheck jobs) {
        this.activeUsers = activeUsers;
        this.jobs = jobs;
    }

    @Override
    public AbstractAuthenticationToken convert(Jwt jwt) {
        String username = jwt.getSubject();
        if (username == null || username.isBlank()) {
            throw new InvalidBearerTokenException("The bearer token names no user");
        }
        UserService.Standing standing = activeUsers.standing(username).orElseThrow(() ->
                new InvalidBearerTokenException("The bearer token's user no longer exists or is disabled"));
        Set<Role> current = standing.roles();
        String job = jwt.getClaimAsString(JobCredentials.JOB_CLAIM);
        if (job != null) {
            // A job credential: the owner as a USER, for as long as that run of the job is active.
            Object run = jwt.getClaims().get(JobCredentials.RUN_CLAIM);
            long runStart = run instanceof Number n ? n.longValue() : -1;
            if (!jobs.active(job, runStart)) {
                throw new InvalidBearerTokenException("The job credential's job " + job + " is no longer running");
            }
            return new JwtAuthenticationToken(jwt, List.of(new SimpleGrantedAuthority(Role.USER.authority())),
                    username);
        }
        if (!carriesEpoch(jwt, standing.tokenEpoch())) {
            throw new InvalidBearerTokenException("The bearer token was revoked (its user's password or roles "
                    + "changed, its tokens were revoked, or the user was deleted); sign in again");
        }
        List<String> claimed = jwt.getClaimAsStringList(TokenIssuer.ROLES_CLAIM);
        EnumSet<Role> granted = EnumSet.noneOf(Role.class);
        if (claimed != null) {
            claimed.forEach(name -> Role.parse(name).filter(current::contains).ifPresent(granted::add));
        }
        var authorities = granted.stream().map(r -> new SimpleGrantedAuthority(r.authority())).toList();
        return new JwtAuthenticationToken(jwt, authorities, username);
    }

    /** Whether the token carries {@code epoch}; tokens from before epochs existed count as {@link TokenEpochs#NONE}. */
    private static boolean carriesEpoch(Jwt jwt, long epoch) {
        Object claim = jwt.getClaims().get(TokenIssuer.EPOCH_CLAIM);
        if (claim == null) {
            return epoch == TokenEpochs.NONE;
        }
        return claim instanceof Number n && n.longValue() == epoch;
    }
}
