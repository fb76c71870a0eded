package io.gantry.security;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.springframework.stereotype.Component;

import io.gantry.api.ProblemType;

/**
 * Slows down password guessing, per username and per client address: the first failures are free,
 * then each one doubles the wait before the next try ({@code gantry.security.sign-in.*}). A try
 * while waiting is answered 429 with {@code Retry-After} without its password being checked, and
 * counts as a failure, so a client that ignores the header only waits longer. A successful sign-in
 * clears its username's failures, not its address's (one account of one's own must not clear the
 * way for guessing others'). Memory is bounded: at most {@code max-tracked} usernames and as many
 * addresses, the least recently seen forgotten first; failures are forgotten {@code forget-after}
 * the last one. Kept per controller, in memory: controllers sharing a store each throttle on their own.
 */
@Component
class SignInThrottle {

    private final SignInProperties properties;
    private final Clock clock;
    private final Failures users;
    private final Failures addresses;

    SignInThrottle(SignInProperties properties, Clock clock) {
        this.properties = properties;
        this.clock = clock;
        this.users = new Failures(properties.userFreeFailures(), properties);
        this.addresses = new Failures(properties.addressFreeFailures(), properties);
    }

    /**
     * Lets a sign-in through to its password check, or refuses it (429) while its username or
     * address must wait.
     */
    void admit(String username, String address) {
        Instant now = clock.instant();
        Duration wait = Duration.ZERO;
        String who = null;
        Optional<String> user = userKey(username);
        if (user.isPresent()) {
            Duration userWait = users.waitAndCount(user.get(), now);
            if (userWait.compareTo(wait) > 0) {
                wait = userWait;
                who = "user '" + username + "'";
            }
        }
        if (properties.addressThrottling()) {
            Duration addressWait = addresses.waitAndCount(addressKey(address), now);
            if (addressWait.compareTo(wait) > 0) {
                wait = addressWait;
                who = "your address";
            }
        }
        if (who != null) {
            throw new SignInRefused(ProblemType.TOO_MANY_REQUESTS, "Too many failed sign-ins for " + who
                    + "; retry in " + SignInRefused.seconds(wait) + " s (Retry-After)", wait);
        }
    }

    void failed(String username, String address) {
        Instant now = clock.instant();
        userKey(username).ifPresent(user -> users.fail(user, now));
        if (properties.addressThrottling()) {
            addresses.fail(addressKey(address), now);
        }
    }

    void succeeded(String username) {
        userKey(username).ifPresent(users::clear);
    }

    /** Only names a user can have are counted: anything else cannot sign in, and must not fill memory. */
    private static Optional<String> userKey(String username) {
        return username != null && UserService.USERNAME.matcher(username).matches() ? Optional.of(username)
                : Optional.empty();
    }

    /**
     * The address as counted: an IPv4 address as it is, an IPv6 address by its /64, the smallest
     * network a single client is commonly given (counting single IPv6 addresses would not slow anyone).
     */
    static String addressKey(String address) {
        if (address == null || address.indexOf(':') < 0) {
            return String.valueOf(address);
        }
        try {
            // A literal: parsed, never looked up.
            byte[] bytes = InetAddress.getByName(address).getAddress();
            if (bytes.length == 16) {
                Arrays.fill(bytes, 8, 16, (byte) 0);
                return InetAddress.getByAddress(bytes).getHostAddress() + "/64";
            }
            return InetAddress.getByAddress(bytes).getHostAddress();
        } catch (UnknownHostException e) {
            return address;
        }
    }

    /** Failures per key, in a bounded map that forgets the least recently seen key first. */
    private static final class Failures {

        private static final class Count {
            int failures;
            Instant last;
            Instant waitUntil;
        }

        private final int free;
        private final SignInProperties properties;
        private final Map<String, Count> counts;

        Failures(int free, SignInProperties properties) {
            this.free = free;
            this.properties = properties;
            int max = properties.maxTracked();
            this.counts = new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Count> eldest) {
                    return size() > max;
                }
            };
        }

        /** How long {@code key} must still wait; when it must, this try counts as one more failure. */
        synchronized Duration waitAndCount(String key, Instant now) {
            Count count = current(key, now);
            if (count == null || count.waitUntil == null || !count.waitUntil.isAfter(now)) {
                return Duration.ZERO;
            }
            record(count, now);
            return Duration.between(now, count.waitUntil);
        }

        synchronized void fail(String key, Instant now) {
            Count count = current(key, now);
            if (count == null) {
                count = new Count();
                counts.put(key, count);
            }
            record(count, now);
        }

        synchronized void clear(String key) {
            counts.remove(key);
        }

        /** The key's count, unless its failures are old enough to be forgotten. */
        private Count current(String key, Instant now) {
            Count count = counts.get(key);
            if (count != null && !count.last.plus(properties.forgetAfter()).isAfter(now)) {
                counts.remove(key);
                return null;
            }
            return count;
        }

        private void record(Count count, Instant now) {
            count.failures = Math.max(count.failures, count.failures + 1);
            count.last = now;
            Duration wait = backoff(count.failures - free);
            count.waitUntil = wait.isZero() ? null : now.plus(wait);
        }

        /** Nothing for the free failures, then backoff, twice that, four times... up to max-backoff. */
        private Duration backoff(int beyondFree) {
            if (beyondFree <= 0) {
                return Duration.ZERO;
            }
            long base = properties.backoff().toMillis();
            long max = properties.maxBackoff().toMillis();
            int doublings = beyondFree - 1;
            if (doublings >= Long.SIZE - 2 || base > (max >> doublings)) {
                return properties.maxBackoff();
            }
            return Duration.ofMillis(base << doublings);
        }
    }
}
