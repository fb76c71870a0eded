package io.gantry.security;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoder;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.stereotype.Component;

/**
 * Job credentials: the token a job finds in {@code GANTRY_JOB_TOKEN}. It acts as the job's owner with
 * the USER role only, whatever roles the owner holds: anything that runs inside the job can read it,
 * and an operator's or admin's job should not hand their powers to every program it runs. Its
 * {@code job} and {@code run} claims tie it to one run of one job; {@link JobCredentialCheck} refuses
 * it once that run is no longer RUNNING or COMPLETING (so it dies with the job, also when the job is
 * requeued and runs again: the new run gets a new credential).
 */
@Component
public class JobCredentials {

    static final String JOB_CLAIM = "job";
    static final String RUN_CLAIM = "run";
    /** A job without a time limit still gets an expiry; the state check ends the credential first. */
    private static final Duration UNLIMITED = Duration.ofDays(366);
    /** Room for a job's end to be reported after its time limit. */
    private static final Duration GRACE = Duration.ofHours(1);

    private final JwtEncoder encoder;
    private final Clock clock;

    JobCredentials(JwtEncoder encoder, Clock clock) {
        this.encoder = encoder;
        this.clock = clock;
    }

    /** The credential of one run of job {@code jobId} (display id) started at {@code runStart}, owned by {@code user}. */
    public String issue(String user, String jobId, Instant runStart, long timeLimitSeconds) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        Duration lifetime = timeLimitSeconds > 0 ? Duration.ofSeconds(timeLimitSeconds).plus(GRACE) : UNLIMITED;
        Instant base = runStart != null && runStart.isBefore(now) ? runStart.truncatedTo(ChronoUnit.SECONDS) : now;
        JwtClaimsSet claims = JwtClaimsSet.builder()
                .issuer(TokenIssuer.ISSUER)
                .subject(user)
                .issuedAt(now)
                .expiresAt(base.plus(lifetime).isAfter(now) ? base.plus(lifetime) : now.plus(GRACE))
                .claim(TokenIssuer.ROLES_CLAIM, List.of(Role.USER.name()))
                .claim(JOB_CLAIM, jobId)
                .claim(RUN_CLAIM, runStart == null ? 0L : runStart.toEpochMilli())
                .build();
        JwsHeader header = JwsHeader.with(MacAlgorithm.HS256).type("JWT").build();
        return encoder.encode(JwtEncoderParameters.from(header, claims)).getTokenValue();
    }
}
