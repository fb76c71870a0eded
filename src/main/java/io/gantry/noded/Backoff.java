package io.gantry.noded;

import org.slf4j.Logger;

/**
 * How the agent waits between failed exchanges with the controller: 0.5 s doubling up to 10 s, so
 * a restarting controller is found again quickly without being hammered. Each distinct failure is
 * logged once, not every retry, and getting through again is logged as a reconnect.
 */
final class Backoff {

    static final long FIRST_MILLIS = 500;
    static final long MAX_MILLIS = 10_000;

    private final Logger log;
    private final String what;
    private long nextMillis = FIRST_MILLIS;
    private String lastProblem;

    Backoff(Logger log, String what) {
        this.log = log;
        this.what = what;
    }

    /** Logs {@code problem} unless it is the same as last time, then sleeps the current delay. */
    void failed(String problem) throws InterruptedException {
        if (!problem.equals(lastProblem)) {
            log.warn("{} failed, retrying: {}", what, problem);
            lastProblem = problem;
        }
        long delay = nextMillis;
        nextMillis = Math.min(MAX_MILLIS, nextMillis * 2);
        Thread.sleep(delay);
    }

    /** The exchange went through: the next failure starts over at 0.5 s. */
    void succeeded() {
        if (lastProblem != null) {
            log.info("{} works again (reconnected to the controller)", what);
        }
        lastProblem = null;
        nextMillis = FIRST_MILLIS;
    }

    boolean failing() {
        return lastProblem != null;
    }
}
