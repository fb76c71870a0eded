package io.gantry.security;

import java.time.Clock;
import java.time.Instant;
import java.util.function.BooleanSupplier;

import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.stereotype.Component;

/**
 * Whether the token a long-lived answer (an event stream) was opened with would still be accepted:
 * not expired, its user still enabled with the same token epoch (no new password, roles or
 * revocation since), a job credential's job still running. A request is checked once, when it
 * arrives; a stream that stays open for days must be checked again, or revoking a stolen token
 * would leave the thief's stream running.
 */
@Component
public class CallerStanding {

    private final TokenAuthentication tokens;
    private final Clock clock;

    CallerStanding(ActiveUsers activeUsers, JobCredentialCheck jobCredentials, Clock clock) {
        this.tokens = new TokenAuthentication(activeUsers, jobCredentials);
        this.clock = clock;
    }

    /** A check of the current request's token, to ask again later from any thread. */
    public BooleanSupplier ofCurrentCaller() {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (!(authentication instanceof JwtAuthenticationToken token)) {
            return () -> true;
        }
        var jwt = token.getToken();
        return () -> {
            Instant expires = jwt.getExpiresAt();
            if (expires != null && !clock.instant().isBefore(expires)) {
                return false;
            }
            try {
                tokens.convert(jwt);
                return true;
            } catch (AuthenticationException refused) {
                return false;
            }
        };
    }
}
