package io.gantry.security;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.security.sign-in.*}: how {@code POST /api/v1/auth/tokens} slows down password guessing
 * and keeps a flood of sign-ins from taking every core (see {@link SignInThrottle} and {@link PasswordChecks}).
 *
 * @param userFreeFailures failed sign-ins a username may have before it must wait between tries
 * @param addressFreeFailures failed sign-ins one client address (IPv6: its /64) may have before it must wait
 * @param addressThrottling whether client addresses are throttled at all; turn off behind a proxy that
 *        hides clients' addresses (unless {@code server.forward-headers-strategy} restores them)
 * @param backoff the first wait; each further failure doubles it
 * @param maxBackoff the longest wait
 * @param forgetAfter failures are forgotten this long after the last one
 * @param maxTracked usernames and addresses remembered (each); beyond, the least recently seen are forgotten
 * @param maxConcurrentChecks password checks (bcrypt, CPU-bound) running at once on this controller;
 *        0 means half the processors, at least 1
 * @param maxWaitingChecks sign-ins that may wait for a check to finish; beyond, they are answered 503 at once
 * @param maxWait how long a sign-in waits for a check to finish before it is answered 503
 */
@ConfigurationProperties("gantry.security.sign-in")
public record SignInProperties(
        @DefaultValue("5") int userFreeFailures,
        @DefaultValue("20") int addressFreeFailures,
        @DefaultValue("true") boolean addressThrottling,
        @DefaultValue("1s") Duration backoff,
        @DefaultValue("5m") Duration maxBackoff,
        @DefaultValue("1h") Duration forgetAfter,
        @DefaultValue("100000") int maxTracked,
        @DefaultValue("0") int maxConcurrentChecks,
        @DefaultValue("16") int maxWaitingChecks,
        @DefaultValue("2s") Duration maxWait) {

    public SignInProperties {
        requireAtLeast("user-free-failures", userFreeFailures, 0);
        requireAtLeast("address-free-failures", addressFreeFailures, 0);
        requireAtLeast("max-tracked", maxTracked, 1);
        requireAtLeast("max-concurrent-checks", maxConcurrentChecks, 0);
        requireAtLeast("max-waiting-checks", maxWaitingChecks, 0);
        requirePositive("backoff", backoff);
        requirePositive("max-backoff", maxBackoff);
        requirePositive("forget-after", forgetAfter);
        if (maxWait == null || maxWait.isNegative()) {
            throw new IllegalArgumentException("gantry.security.sign-in.max-wait must not be negative, was " + maxWait);
        }
        if (backoff.compareTo(maxBackoff) > 0) {
            throw new IllegalArgumentException("gantry.security.sign-in.backoff (" + backoff
                    + ") must not exceed gantry.security.sign-in.max-backoff (" + maxBackoff + ")");
        }
    }

    /** {@link #maxConcurrentChecks}, with 0 resolved against this machine's processors. */
    int concurrentChecks() {
        return maxConcurrentChecks > 0 ? maxConcurrentChecks
                : Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    private static void requireAtLeast(String name, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException("gantry.security.sign-in." + name + " must be at least " + min
                    + ", was " + value);
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("gantry.security.sign-in." + name + " must be a positive duration, was "
                    + value);
        }
    }
}
