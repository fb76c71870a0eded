package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

import io.gantry.api.ProblemType;

class SignInThrottleTests {

    private static final String HOME = "10.0.0.1";

    private Instant now = Instant.parse("2026-01-01T00:00:00Z");
    private final Clock clock = new Clock() {
        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    };

    @Test
    void theFirstFailuresAreFreeThenEachOneDoublesTheWait() {
        SignInThrottle throttle = throttle(true, 100);
        for (int i = 0; i < 5; i++) {
            throttle.admit("alice", HOME);
            throttle.failed("alice", HOME);
        }
        throttle.admit("alice", HOME);
        throttle.failed("alice", HOME); // the 6th: wait 1 s

        // A try while waiting counts too: the 7th, wait 2 s.
        assertThat(refusal(throttle, "alice", HOME)).isEqualTo(2);
        now = now.plusSeconds(30);
        throttle.admit("alice", HOME);
        throttle.failed("alice", HOME); // the 8th: wait 4 s
        assertThat(refusal(throttle, "alice", HOME)).as("the 9th").isEqualTo(8);
    }

    @Test
    void theWaitStopsAtMaxBackoff() {
        SignInThrottle throttle = throttle(false, 100);
        for (int i = 0; i < 200; i++) {
            throttle.failed("alice", HOME);
        }

        assertThat(refusal(throttle, "alice", HOME)).isEqualTo(300);
    }

    @Test
    void aSuccessClearsTheUsernameButNotTheAddress() {
        SignInThrottle throttle = throttle(true, 100);
        for (int i = 0; i < 21; i++) {
            throttle.failed("user" + i, HOME);
        }
        for (int i = 0; i < 5; i++) {
            throttle.failed("alice", "10.0.0.2");
        }
        throttle.failed("alice", "10.0.0.3");
        throttle.succeeded("alice");

        assertThatCode(() -> throttle.admit("alice", "10.0.0.4")).doesNotThrowAnyException();
        assertThat(refusal(throttle, "bob", HOME)).as("the address guessed 21 times").isPositive();
    }

    @Test
    void addressThrottlingCanBeTurnedOff() {
        SignInThrottle throttle = throttle(false, 100);
        for (int i = 0; i < 100; i++) {
            throttle.failed("user" + i, HOME);
        }

        assertThatCode(() -> throttle.admit("bob", HOME)).doesNotThrowAnyException();
    }

    @Test
    void failuresAreForgottenAnHourAfterTheLast() {
        SignInThrottle throttle = throttle(true, 100);
        for (int i = 0; i < 10; i++) {
            throttle.failed("alice", HOME);
        }
        now = now.plus(Duration.ofMinutes(61));

        throttle.admit("alice", HOME);
        throttle.failed("alice", HOME);
        assertThatCode(() -> throttle.admit("alice", HOME)).as("one failure after forgetting is free")
                .doesNotThrowAnyException();
    }

    @Test
    void memoryIsBoundedByForgettingTheLeastRecentlySeen() {
        SignInThrottle throttle = throttle(false, 3);
        for (int i = 0; i < 10; i++) {
            throttle.failed("alice", HOME);
        }
        assertThat(refusal(throttle, "alice", HOME)).isPositive();
        for (int i = 0; i < 3; i++) {
            throttle.failed("random" + i, HOME);
        }

        assertThatCode(() -> throttle.admit("alice", HOME)).doesNotThrowAnyException();
    }

    @Test
    void namesNoUserCanHaveAreNotCountedButTheirAddressIs() {
        SignInThrottle throttle = throttle(true, 100);
        String junk = "X".repeat(10_000);
        for (int i = 0; i < 21; i++) {
            throttle.failed(junk, HOME);
        }

        assertThatCode(() -> throttle.admit(junk, "10.9.9.9")).doesNotThrowAnyException();
        assertThat(refusal(throttle, junk, HOME)).isPositive();
    }

    @Test
    void ipv6AddressesCountByTheirSlash64() {
        assertThat(SignInThrottle.addressKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd"))
                .isEqualTo(SignInThrottle.addressKey("2001:db8:1:2::1"));
        assertThat(SignInThrottle.addressKey("2001:db8:1:3::1")).isNotEqualTo(SignInThrottle.addressKey("2001:db8:1:2::1"));
        assertThat(SignInThrottle.addressKey("192.0.2.7")).isEqualTo("192.0.2.7");
    }

    private SignInThrottle throttle(boolean addresses, int maxTracked) {
        return new SignInThrottle(new SignInProperties(5, 20, addresses, Duration.ofSeconds(1), Duration.ofMinutes(5),
                Duration.ofHours(1), maxTracked, 0, 16, Duration.ofSeconds(2)), clock);
    }

    /** The Retry-After seconds of the refusal {@code admit} must answer. */
    private static long refusal(SignInThrottle throttle, String username, String address) {
        Throwable thrown = catchThrowable(() -> throttle.admit(username, address));
        assertThat(thrown).isInstanceOf(SignInRefused.class);
        SignInRefused refused = (SignInRefused) thrown;
        assertThat(refused.type()).isEqualTo(ProblemType.TOO_MANY_REQUESTS);
        return refused.retryAfterSeconds();
    }
}
