package io.gantry.events;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * The last events this controller delivered, in delivery order, for clients that resume with
 * {@code Last-Event-ID}. Every controller on one store receives events in the same order (the
 * store's commit order), so the position of a client's last event is a sound resume point on any
 * of them even when ids from concurrent controllers arrive slightly out of numeric order.
 * <p>
 * {@code horizon}: events with ids up to it may have passed this controller by (dropped from the
 * ring, sent before it started listening, or lost while its listener was down). A client whose last
 * event is older must reload. Not thread-safe: {@link EventStreams} guards it.
 */
final class EventRing {

    private final int capacity;
    private final ArrayDeque<LiveEvent> events;
    private long horizon;

    /** A ring that knows nothing yet: every resume is answered with a reset until {@link #restart}. */
    EventRing(int capacity) {
        this.capacity = capacity;
        this.events = new ArrayDeque<>(capacity);
        this.horizon = Long.MAX_VALUE;
    }

    void add(LiveEvent event) {
        events.addLast(event);
        if (events.size() > capacity) {
            horizon = Math.max(horizon, events.removeFirst().id());
        }
    }

    /** Forgets everything: events up to {@code newHorizon} may have been missed. */
    void restart(long newHorizon) {
        events.clear();
        horizon = newHorizon;
    }

    /**
     * What a client that last saw {@code lastId} missed, oldest first; empty when it missed more
     * than this ring holds and must reload.
     */
    Optional<List<LiveEvent>> since(long lastId) {
        List<LiveEvent> after = new ArrayList<>();
        Iterator<LiveEvent> newestFirst = events.descendingIterator();
        while (newestFirst.hasNext()) {
            LiveEvent e = newestFirst.next();
            if (e.id() == lastId) {
                Collections.reverse(after);
                return Optional.of(after);
            }
            after.add(e);
        }
        if (lastId < horizon) {
            return Optional.empty();
        }
        return Optional.of(events.stream().filter(e -> e.id() > lastId).toList());
    }

    List<LiveEvent> snapshot() {
        return List.copyOf(events);
    }
}
