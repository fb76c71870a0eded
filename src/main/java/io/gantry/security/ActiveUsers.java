package io.gantry.security;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * Answers "may this token's user still act, with which roles, and which token epoch is current"
 * without a database read per request. Entries live {@code gantry.security.user-cache-ttl}; a change
 * made on this controller (a new password, other roles, a revocation, a deletion) evicts its entry
 * at once after commit, other controllers catch up within the TTL.
 */
@Component
class ActiveUsers {

    private record Entry(Optional<UserService.Standing> standing, Instant loadedAt) {
    }

    private static final int MAX_ENTRIES = 100_000;

    private final UserService users;
    private final Clock clock;
    private final SecurityProperties properties;
    private final ConcurrentMap<String, Entry> entries = new ConcurrentHashMap<>();
    /** Counts evictions, so a load that raced with a change is not kept for a whole TTL. */
    private final AtomicLong evictions = new AtomicLong();

    ActiveUsers(UserService users, Clock clock, SecurityProperties properties) {
        this.users = users;
        this.clock = clock;
        this.properties = properties;
    }

    /** The roles and token epoch of {@code username} when the user exists and is enabled. */
    Optional<UserService.Standing> standing(String username) {
        Instant now = clock.instant();
        Entry entry = entries.get(username);
        if (entry == null || !entry.loadedAt().plus(properties.userCacheTtl()).isAfter(now)) {
            if (entries.size() >= MAX_ENTRIES) {
                entries.clear();
            }
            long seen = evictions.get();
            entry = new Entry(users.standing(username), now);
            entries.put(username, entry);
            if (evictions.get() != seen) {
                entries.remove(username, entry);
            }
        }
        return entry.standing();
    }

    @TransactionalEventListener
    void on(UserChanged event) {
        evictions.incrementAndGet();
        entries.remove(event.username());
    }
}
