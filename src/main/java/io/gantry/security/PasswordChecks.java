package io.gantry.security;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

import io.gantry.api.ProblemType;

/**
 * Caps the password checks (bcrypt: tens of milliseconds of CPU each, by design) running at once on
 * this controller, so that a flood of sign-ins, known users or not, leaves cores for every other
 * call. A few sign-ins may wait briefly for a check to finish; the rest are answered 503 with
 * {@code Retry-After} at once rather than queued, since a queued request still holds a server thread.
 */
@Component
class PasswordChecks {

    private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private final Semaphore running;
    /** Running plus waiting: a bound on the threads this can hold. */
    private final Semaphore admitted;
    private final Duration maxWait;

    @Autowired
    PasswordChecks(SignInProperties properties) {
        this(properties.concurrentChecks(), properties.maxWaitingChecks(), properties.maxWait());
    }

    PasswordChecks(int maxRunning, int maxWaiting, Duration maxWait) {
        this.running = new Semaphore(maxRunning);
        this.admitted = new Semaphore(maxRunning + maxWaiting);
        this.maxWait = maxWait;
    }

    /** Runs {@code check} when a slot is free soon enough; else 503. */
    <T> T run(Supplier<T> check) {
        if (!admitted.tryAcquire()) {
            throw busy();
        }
        try {
            if (!running.tryAcquire(maxWait.toNanos(), TimeUnit.NANOSECONDS)) {
                throw busy();
            }
            try {
                return check.get();
            } finally {
                running.release();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw busy();
        } finally {
            admitted.release();
        }
    }

    /** How many checks are waiting for a slot right now (an estimate, as the semaphore gives it). */
    int waiting() {
        return running.getQueueLength();
    }

    private static SignInRefused busy() {
        return new SignInRefused(ProblemType.UNAVAILABLE, "Too many sign-ins are being checked right now; retry in "
                + SignInRefused.seconds(RETRY_AFTER) + " s (Retry-After)", RETRY_AFTER);
    }
}
