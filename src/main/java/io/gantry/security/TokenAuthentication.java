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
 * Turns a verified token into the caller's authorities. The token's roles are cut down to those
 * the user holds now, so a demotion, a disabled account or a deletion takes effect within the
 * user cache's TTL rather than when the token expires; a promotion needs a new token.
 */
class TokenAuthentication implements Converter<Jwt, AbstractAuthenticationToken> {

    private final ActiveUsers activeUsers;

    TokenAuthentication(ActiveUsers activeUsers) {
        this.activeUsers = activeUsers;
    }

    @Override
    public AbstractAuthenticationToken convert(Jwt jwt) {
        String username = jwt.getSubject();
        if (username == null || username.isBlank()) {
            throw new InvalidBearerTokenException("The bearer token names no user");
        }
        Set<Role> current = activeUsers.roles(username).orElseThrow(() -> new InvalidBearerTokenException(
                "The bearer token's user no longer exists or is disabled"));
        List<String> claimed = jwt.getClaimAsStringList(TokenIssuer.ROLES_CLAIM);
        EnumSet<Role> granted = EnumSet.noneOf(Role.class);
        if (claimed != null) {
            claimed.forEach(name -> Role.parse(name).filter(current::contains).ifPresent(granted::add));
        }
        var authorities = granted.stream().map(r -> new SimpleGrantedAuthority(r.authority())).toList();
        return new JwtAuthenticationToken(jwt, authorities, username);
    }
}
