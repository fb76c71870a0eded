package io.gantry.fleet;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;
import org.springframework.web.context.request.async.DeferredResult;

import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.Commands;

/**
 * The agents connected to this controller: for each, the commands waiting for it and its held
 * poll, if any. A held poll is a {@link DeferredResult}, not a thread, so thousands of idle agents
 * cost memory only. Heartbeats are kept here and written to the store in batches.
 */
@Component
class AgentHub {

    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private Map<String, Instant> unflushed = new HashMap<>();

    AgentHub(io.micrometer.core.instrument.MeterRegistry registry) {
        io.micrometer.core.instrument.Gauge.builder("gantry.agents.polls.held", this, AgentHub::heldPolls)
                .description("Agents' long polls this controller holds now").register(registry);
        io.micrometer.core.instrument.Gauge.builder("gantry.agents.connected", sessions, Map::size)
                .description("Agents with a session on this controller").register(registry);
    }

    /** One connected agent. Guarded by its own monitor. */
    static final class Session {
        private final ArrayDeque<Command> outbox = new ArrayDeque<>();
        private DeferredResult<Commands> waiting;

        private synchronized void add(List<Command> commands) {
            outbox.addAll(commands);
            if (waiting != null && !outbox.isEmpty()) {
                DeferredResult<Commands> w = waiting;
                waiting = null;
                List<Command> sent = new ArrayList<>(outbox);
                if (!w.setResult(drain())) {
                    // That poll had just expired: the commands wait for the next one.
                    outbox.addAll(sent);
                }
            }
        }

        private synchronized void hold(DeferredResult<Commands> poll) {
            if (waiting != null) {
                // The agent gave up on its earlier poll (a reconnect): answer it empty.
                waiting.setResult(new Commands(List.of()));
            }
            if (!outbox.isEmpty()) {
                poll.setResult(drain());
                return;
            }
            waiting = poll;
            poll.onCompletion(() -> release(poll));
        }

        /** The poll's wait is over: answered empty, unless commands answered it first. */
        private synchronized void expire(DeferredResult<Commands> poll) {
            if (waiting == poll) {
                waiting = null;
            }
            poll.setResult(new Commands(List.of()));
        }

        private synchronized void release(DeferredResult<Commands> poll) {
            if (waiting == poll) {
                waiting = null;
            }
        }

        private synchronized boolean holding() {
            return waiting != null;
        }

        private synchronized void close() {
            if (waiting != null) {
                waiting.setResult(new Commands(List.of()));
                waiting = null;
            }
        }

        private Commands drain() {
            List<Command> all = new ArrayList<>(outbox);
            outbox.clear();
            return new Commands(all);
        }
    }

    /** How many agents' polls this controller holds now (exported as {@code gantry.agents.polls.held}). */
    int heldPolls() {
        return (int) sessions.values().stream().filter(Session::holding).count();
    }

    /** Whether {@code node}'s agent has a session here. */
    boolean connected(String node) {
        return sessions.containsKey(node);
    }

    /** Starts a fresh session (a registration, or a poll this controller did not expect). */
    void open(String node) {
        Session old = sessions.put(node, new Session());
        if (old != null) {
            old.close();
        }
    }

    /** Ends a session (its node was declared not responding): its next poll must reconcile first. */
    void close(String node) {
        Session old = sessions.remove(node);
        if (old != null) {
            old.close();
        }
    }

    /** Queues commands for a connected agent and wakes its held poll; dropped when it is not connected here. */
    void deliver(String node, List<Command> commands) {
        Session session = sessions.get(node);
        if (session != null && !commands.isEmpty()) {
            session.add(commands);
        }
    }

    /**
     * Answers a poll: at once with what is queued (plus {@code immediate}), else when something is
     * delivered, else empty after {@code waitMillis}.
     */
    DeferredResult<Commands> poll(String node, List<Command> immediate, long waitMillis) {
        // Answered empty at the wait by a timer of our own: the container checks async timeouts only
        // about once a second, which held polls a second past their wait. Its timeout stays as a backstop.
        DeferredResult<Commands> result = new DeferredResult<>(waitMillis + 5_000, () -> new Commands(List.of()));
        Session session = sessions.computeIfAbsent(node, n -> new Session());
        session.add(immediate);
        session.hold(result);
        if (!result.isSetOrExpired()) {
            java.util.concurrent.ScheduledFuture<?> timer = TIMERS.schedule(
                    () -> session.expire(result), waitMillis,
                    java.util.concurrent.TimeUnit.MILLISECONDS);
            result.onCompletion(() -> timer.cancel(false));
        }
        return result;
    }

    private static final java.util.concurrent.ScheduledThreadPoolExecutor TIMERS = timers();

    private static java.util.concurrent.ScheduledThreadPoolExecutor timers() {
        java.util.concurrent.ScheduledThreadPoolExecutor timers = new java.util.concurrent.ScheduledThreadPoolExecutor(1,
                r -> {
                    Thread t = new Thread(r, "gantry-poll-timer");
                    t.setDaemon(true);
                    return t;
                });
        timers.setRemoveOnCancelPolicy(true);
        return timers;
    }

    synchronized void heard(String node, Instant at) {
        unflushed.put(node, at);
    }

    /** The heartbeats heard since the last call. */
    synchronized Map<String, Instant> takeHeartbeats() {
        Map<String, Instant> taken = unflushed;
        unflushed = new HashMap<>();
        return taken;
    }
}
