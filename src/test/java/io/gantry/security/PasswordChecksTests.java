package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.gantry.api.ProblemType;

class PasswordChecksTests {

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        threads.shutdownNow();
    }

    @Test
    void checksBeyondTheCapAreAnswered503AtOnceInsteadOfQueueing() throws Exception {
        PasswordChecks checks = new PasswordChecks(2, 0, Duration.ofSeconds(30));
        CountDownLatch started = new CountDownLatch(2);
        Future<?> first = threads.submit(() -> checks.run(() -> hold(started)));
        Future<?> second = threads.submit(() -> checks.run(() -> hold(started)));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        long start = System.nanoTime();
        Throwable refused = catchThrowable(() -> checks.run(() -> "never runs"));

        assertThat(refused).isInstanceOfSatisfying(SignInRefused.class, e -> {
            assertThat(e.type()).isEqualTo(ProblemType.UNAVAILABLE);
            assertThat(e.retryAfterSeconds()).isEqualTo(1);
        });
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not queued behind the running checks")
                .isLessThan(Duration.ofSeconds(5));
        release.countDown();
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
        assertThat(checks.run(() -> "runs again")).isEqualTo("runs again");
    }

    @Test
    void aFewMayWaitBrieflyForARunningCheck() throws Exception {
        PasswordChecks checks = new PasswordChecks(1, 1, Duration.ofSeconds(30));
        CountDownLatch started = new CountDownLatch(1);
        Future<?> running = threads.submit(() -> checks.run(() -> hold(started)));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        Future<String> waiting = threads.submit(() -> checks.run(() -> "after the first"));
        await().atMost(Duration.ofSeconds(10)).until(() -> checks.waiting() == 1);

        assertThat(waiting).as("waits while the first check runs").isNotDone();
        release.countDown();
        assertThat(waiting.get(10, TimeUnit.SECONDS)).isEqualTo("after the first");
        running.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aCheckThatWaitsTooLongIsAnswered503() {
        PasswordChecks checks = new PasswordChecks(1, 4, Duration.ofMillis(50));
        CountDownLatch started = new CountDownLatch(1);
        threads.submit(() -> checks.run(() -> hold(started)));

        assertThat(catchThrowable(() -> {
            started.await(10, TimeUnit.SECONDS);
            checks.run(() -> "too late");
        })).isInstanceOf(SignInRefused.class);
    }

    private String hold(CountDownLatch started) {
        started.countDown();
        try {
            release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return "done";
    }
}
