package io.gantry.events;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter.DataWithMediaType;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.security.UserChanged;

/**
 * The open event streams of this controller. Whoever delivers events (the relay's one thread)
 * only puts them in each stream's bounded queue; writing to the sockets is left to sender
 * threads, so a client that stops reading can hold up nothing but its own stream. A stream whose
 * queue fills is dropped: it ends, and the client resumes with {@code Last-Event-ID} from the
 * {@link EventRing} of recent events, or is told to reload.
 * <p>
 * Senders: a pool that grows on demand and lets idle threads go after a minute, with at most one
 * task per stream at a time (a stream's {@code scheduled} flag), which drains that stream's queue.
 * A write to a healthy client takes microseconds, so a handful of threads serves a thousand
 * dashboards; a write to a client that stopped reading blocks until Tomcat's write timeout (the
 * connection timeout, 60 s by default) and holds exactly one thread meanwhile, while the other
 * streams get threads of their own. A fixed pool would let a few stalled clients starve everyone;
 * a thread per stream would keep a thousand threads parked for idle dashboards. Virtual threads
 * would suit best but need Java 21, and the build targets 17. The pool's ceiling (twice the stream
 * cap) leaves room for dropped streams whose last write is still blocked.
 */
@Component
class EventStreams implements DisposableBean {

    /** How long after a change of a user on this controller that user's streams are checked again. */
    static final Duration RECHECK_AFTER = Duration.ofMillis(250);

    /** Recent events kept for resuming clients: at least this many, and at least one client queue's worth. */
    static final int KEPT = 1000;

    private static final Logger log = LoggerFactory.getLogger(EventStreams.class);

    private static final Set<DataWithMediaType> CONNECTED = SseEmitter.event().comment("connected").build();
    private static final Set<DataWithMediaType> HEARTBEAT = SseEmitter.event().comment("keep-alive").build();
    private static final Set<DataWithMediaType> RESET = SseEmitter.event().name("reset")
            .data("{\"reason\":\"events were missed; reload\"}").build();

    private final EventsProperties properties;
    private final ThreadPoolExecutor senders;
    private final AtomicInteger senderNumber = new AtomicInteger();

    // Guarded by this: the ring and the list of streams change together, so a client that connects
    // gets each event exactly once, either in its replay or live.
    private final EventRing ring;
    private final List<Stream> streams = new ArrayList<>();
    private boolean closed;

    EventStreams(EventsProperties properties) {
        this.properties = properties;
        this.ring = new EventRing(Math.max(KEPT, properties.clientQueue()));
        this.senders = new ThreadPoolExecutor(0, 2 * properties.maxStreams(), 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "events-sender-" + senderNumber.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /**
     * Opens a stream for {@code user}, first replaying what it missed since {@code lastEventId}; one
     * that does not see all carries only the events that {@link LiveEvent#concerns concern} the user.
     * Beyond either cap the answer is 429 and the streams already open are left alone: closing the
     * oldest instead would let two auto-reconnecting tabs too many knock each other out forever.
     */
    SseEmitter open(String user, boolean seesAll, Long lastEventId) {
        return open(user, seesAll, lastEventId, () -> true);
    }

    /**
     * As {@link #open(String, boolean, Long)}, for a caller whose token {@code stillValid} checks:
     * at each heartbeat a stream whose token was revoked or expired meanwhile is ended.
     */
    SseEmitter open(String user, boolean seesAll, Long lastEventId, java.util.function.BooleanSupplier stillValid) {
        SseEmitter emitter = new SseEmitter(0L);
        Stream stream;
        synchronized (this) {
            if (closed) {
                emitter.complete();
                return emitter;
            }
            if (streams.size() >= properties.maxStreams()) {
                throw new GantryException(ProblemType.TOO_MANY_REQUESTS, "This controller already serves "
                        + properties.maxStreams() + " event streams (gantry.events.max-streams); try again later");
            }
            long mine = streams.stream().filter(s -> s.user.equals(user)).count();
            if (mine >= properties.maxStreamsPerUser()) {
                throw new GantryException(ProblemType.TOO_MANY_REQUESTS, "You already have " + mine
                        + " event streams open, the most one user may hold (gantry.events.max-streams-per-user); "
                        + "close one (a dashboard tab, say) and try again");
            }
            Chunk replay = new Chunk(RESET, 1);
            if (lastEventId != null) {
                Optional<List<LiveEvent>> missed = ring.since(lastEventId);
                if (missed.isPresent()) {
                    replay = chunk(seesAll ? missed.get() : concerning(missed.get(), user));
                }
            } else {
                replay = new Chunk(Set.of(), 0);
            }
            stream = new Stream(user, seesAll, emitter, properties.clientQueue() + replay.events(), stillValid);
            stream.offer(replay);
            stream.offer(new Chunk(CONNECTED, 1));
            streams.add(stream);
        }
        emitter.onCompletion(() -> forget(stream));
        emitter.onTimeout(() -> forget(stream));
        emitter.onError(e -> {
            log.debug("Event stream of {} ended: {}", user, e.toString());
            forget(stream);
        });
        return emitter;
    }

    /** Hands events, in delivery order, to every open stream; never blocks on a client. */
    void deliver(List<LiveEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        // One chunk for the whole batch, shared by every stream that sees all (and one per user whose
        // streams see only their own jobs): a burst (a cycle that starts a thousand jobs) costs each
        // client one queue entry and one write.
        Chunk chunk = chunk(events);
        Map<String, Chunk> ownOnly = new HashMap<>();
        List<Stream> behind = new ArrayList<>();
        synchronized (this) {
            events.forEach(ring::add);
            for (Stream stream : streams) {
                Chunk theirs = stream.seesAll ? chunk
                        : ownOnly.computeIfAbsent(stream.user, user -> chunk(concerning(events, user)));
                if (!stream.offer(theirs)) {
                    behind.add(stream);
                }
            }
            streams.removeAll(behind);
        }
        for (Stream stream : behind) {
            log.info("Dropped the event stream of {}: it fell {} events behind (it may resume with Last-Event-ID)",
                    stream.user, properties.clientQueue());
            stream.end();
        }
    }

    /**
     * Events up to {@code horizon} may have been missed here (this controller just started
     * listening, or its relay lost some): forget the ring and, when {@code tellClients}, tell every
     * open stream to reload.
     */
    void restart(long horizon, boolean tellClients) {
        synchronized (this) {
            ring.restart(horizon);
            if (tellClients) {
                streams.forEach(s -> s.offer(new Chunk(RESET, 1)));
            }
        }
    }

    /**
     * A comment line on every stream: keeps proxies from closing it, and finds clients gone silently.
     * A stream whose token no longer holds (revoked, expired, its user disabled) is ended instead.
     */
    void heartbeat() {
        Chunk heartbeat = new Chunk(HEARTBEAT, 1);
        endRevoked(null, stream -> stream.offer(heartbeat));
    }

    /**
     * A user changed on this controller (new password or roles, tokens revoked, disabled, deleted):
     * their streams whose token no longer holds end now rather than at the next heartbeat, which may
     * be {@code gantry.events.heartbeat} away. Checked a moment after the change, once every listener
     * of it (the user cache's eviction among them) has run; other controllers learn of the change
     * through the user cache and end such streams at their next heartbeat.
     */
    @TransactionalEventListener(fallbackExecution = true)
    void on(UserChanged change) {
        CompletableFuture.runAsync(() -> endRevoked(change.username(), stream -> { }),
                CompletableFuture.delayedExecutor(RECHECK_AFTER.toMillis(), TimeUnit.MILLISECONDS));
    }

    /**
     * Ends the streams (of {@code user}, or all when null) whose token no longer holds (revoked,
     * expired, its user disabled); {@code kept} is applied to the others.
     */
    private void endRevoked(String user, java.util.function.Consumer<Stream> kept) {
        List<Stream> revoked = new ArrayList<>();
        synchronized (this) {
            for (Stream stream : streams) {
                if (user != null && !user.equals(stream.user)) {
                    continue;
                }
                boolean valid;
                try {
                    valid = stream.stillValid.getAsBoolean();
                } catch (RuntimeException e) {
                    valid = true; // the user's standing cannot be told now (the database is away): asked again later
                }
                if (valid) {
                    kept.accept(stream);
                } else {
                    revoked.add(stream);
                }
            }
            streams.removeAll(revoked);
        }
        for (Stream stream : revoked) {
            log.info("Ended an event stream of {}: its token was revoked or expired, or its user disabled", stream.user);
            stream.end();
        }
    }

    synchronized int openStreams() {
        return streams.size();
    }

    synchronized long openStreams(String user) {
        return streams.stream().filter(s -> s.user.equals(user)).count();
    }

    synchronized List<LiveEvent> recent() {
        return ring.snapshot();
    }

    /**
     * Ends every open stream when the controller stops, so a graceful shutdown does not wait its
     * whole timeout for browsers that keep them open (they reconnect with Last-Event-ID).
     */
    @EventListener(ContextClosedEvent.class)
    void closeStreams() {
        List<Stream> open;
        synchronized (this) {
            closed = true;
            open = List.copyOf(streams);
            streams.clear();
        }
        open.forEach(Stream::end);
    }

    @Override
    public void destroy() {
        // Interrupts writes still blocked on clients that stopped reading.
        senders.shutdownNow();
    }

    private synchronized void forget(Stream stream) {
        stream.gone = true;
        streams.remove(stream);
    }

    private static List<LiveEvent> concerning(List<LiveEvent> events, String user) {
        return events.stream().filter(e -> e.concerns(user)).toList();
    }

    /** Events as one piece of SSE text, written and flushed at once. */
    private static Chunk chunk(List<LiveEvent> events) {
        // DataWithMediaType has identity equality: the parts of every event stay, in order.
        Set<DataWithMediaType> parts = new LinkedHashSet<>();
        for (LiveEvent e : events) {
            parts.addAll(SseEmitter.event().id(Long.toString(e.id())).name(e.kind())
                    .data(e.data(), MediaType.APPLICATION_JSON).build());
        }
        return new Chunk(parts, events.size());
    }

    /** Text for a stream, and how many events (or other messages) it counts for against the queue bound. */
    private record Chunk(Set<DataWithMediaType> parts, int events) {
    }

    /** One client's stream: its queue, and at most one sender task draining it at a time. */
    private final class Stream {

        final String user;
        /** Carries every event; else only those that concern its user (private jobs). */
        final boolean seesAll;
        final SseEmitter emitter;
        /** Whether the token the stream was opened with would still be accepted. */
        final java.util.function.BooleanSupplier stillValid;
        private final Queue<Chunk> queue = new ConcurrentLinkedQueue<>();
        private final AtomicInteger pending = new AtomicInteger();
        private final int capacity;
        private final AtomicBoolean scheduled = new AtomicBoolean();
        /** We end it (dropped, or the controller stops): its sender completes it when free. */
        private volatile boolean ending;
        /** Over: completed, failed or timed out; nothing more is written. */
        volatile boolean gone;

        Stream(String user, boolean seesAll, SseEmitter emitter, int capacity,
                java.util.function.BooleanSupplier stillValid) {
            this.stillValid = stillValid;
            this.user = user;
            this.seesAll = seesAll;
            this.emitter = emitter;
            this.capacity = capacity;
        }

        /** False when the queue is full (the client fell behind); never blocks. */
        boolean offer(Chunk chunk) {
            if (ending || gone || chunk.parts().isEmpty()) {
                return true;
            }
            if (pending.addAndGet(chunk.events()) > capacity) {
                pending.addAndGet(-chunk.events());
                return false;
            }
            queue.add(chunk);
            schedule();
            return true;
        }

        /**
         * Completes the stream from a sender, never from the caller: completing takes the emitter's
         * write lock, which a write blocked on this client holds.
         */
        void end() {
            ending = true;
            queue.clear();
            schedule();
        }

        private void schedule() {
            if (scheduled.compareAndSet(false, true)) {
                try {
                    senders.execute(this::drain);
                } catch (RejectedExecutionException e) {
                    // Shutting down, or the ceiling reached: the stream ends; the client reconnects.
                    gone = true;
                    queue.clear();
                    forget(this);
                }
            }
        }

        private void drain() {
            while (!gone) {
                if (ending) {
                    gone = true;
                    try {
                        emitter.complete();
                    } catch (RuntimeException e) {
                        log.debug("Event stream of {} could not be completed: {}", user, e.toString());
                    }
                    return;
                }
                Chunk chunk = queue.poll();
                if (chunk == null) {
                    scheduled.set(false);
                    if ((queue.isEmpty() && !ending) || !scheduled.compareAndSet(false, true)) {
                        return;
                    }
                    continue;
                }
                try {
                    emitter.send(chunk.parts());
                    pending.addAndGet(-chunk.events());
                } catch (IOException | IllegalStateException e) {
                    // The client went away; the container ends the request on its own.
                    log.debug("Event stream of {} closed by the client: {}", user, e.toString());
                    forget(this);
                    queue.clear();
                    return;
                }
            }
        }
    }
}
