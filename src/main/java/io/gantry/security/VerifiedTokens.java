package io.gantry.security;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtValidationException;

/**
 * A {@link JwtDecoder} that verifies each distinct token's signature once. A script submitting
 * thousands of jobs sends the same token each time; parsing it and checking its HMAC was a tenth of
 * a submission's CPU (profiled under 16 clients). A remembered token is still validated on every
 * use, so it expires on time; only the signature check and the parse are saved. Any token that
 * fails is never remembered. The map is bounded: when full it is emptied and refills with the
 * tokens in use.
 */
final class VerifiedTokens implements JwtDecoder {

    private final JwtDecoder delegate;
    private final OAuth2TokenValidator<Jwt> validator;
    private final int capacity;
    private final Map<String, Jwt> verified = new ConcurrentHashMap<>();

    VerifiedTokens(JwtDecoder delegate, OAuth2TokenValidator<Jwt> validator, int capacity) {
        this.delegate = delegate;
        this.validator = validator;
        this.capacity = capacity;
    }

    @Override
    public Jwt decode(String token) throws JwtException {
        Jwt known = verified.get(token);
        if (known == null) {
            Jwt jwt = delegate.decode(token);
            if (verified.size() >= capacity) {
                verified.clear();
            }
            verified.put(token, jwt);
            return jwt;
        }
        OAuth2TokenValidatorResult result = validator.validate(known);
        if (result.hasErrors()) {
            verified.remove(token);
            throw new JwtValidationException(result.getErrors().iterator().next().getDescription(),
                    result.getErrors());
        }
        return known;
    }

    int size() {
        return verified.size();
    }
}
