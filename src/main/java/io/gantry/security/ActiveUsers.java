package io.gantry.security;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * Answers "may this token's user still act, and with which roles" without a database read per
 * request. Entries live {@code gantry.security.user-cache-ttl}; a change made on this controller
 * evicts its entry at once after commit, other controllers catch up within the TTL.
 */
@Component
class ActiveUsers {

    private record Entry(Optional<Set<Role>> roles, Instant loadedAt) {
    }

    private static final int MAX_ENTRIES = 100_000;

    private final UserService users;
    private final Clock clock;
    private final SecurityProperties properties;
    private final ConcurrentMap<String, Entry> entries = new ConcurrentHashMap<>();

    ActiveUsers(UserService users, Clock clock, SecurityProperties properties) {
        this.users = users;
        this.clock = clock;
        this.properties = properties;
    }

    /** The roles of {@code username} when the user exists and is enabled. */
    Optional<Set<Role>> roles(String username) {
        Instant now = clock.instant();
        Entry entry = entries.get(username);
        if (entry == null || !entry.loadedAt().plus(properties.userCacheTtl()).isAfter(now)) {
            if (entries.size() >= MAX_ENTRIES) {
                entries.clear();
            }
            entry = new Entry(users.activeRoles(username), now);
            entries.put(username, entry);
        }
        return entry.roles();
    }

    @TransactionalEventListener
    void on(UserChanged event) {
        entries.remove(event.username());
    }
}
