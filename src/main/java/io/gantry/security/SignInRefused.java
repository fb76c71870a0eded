package io.gantry.security;

import java.time.Duration;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;

/**
 * A sign-in refused before its password was checked: 429 while its username or address backs off,
 * 503 while too many password checks are under way. {@link #retryAfter()} becomes the
 * {@code Retry-After} header (see {@code AuthController}).
 */
class SignInRefused extends GantryException {

    private final Duration retryAfter;

    SignInRefused(ProblemType type, String detail, Duration retryAfter) {
        super(type, detail);
        this.retryAfter = retryAfter;
    }

    /** Whole seconds, at least 1, as {@code Retry-After} takes them. */
    long retryAfterSeconds() {
        return seconds(retryAfter);
    }

    /** {@code wait} rounded up to whole seconds, at least 1. */
    static long seconds(Duration wait) {
        long millis = wait.toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }
}
