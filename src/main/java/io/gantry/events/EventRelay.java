package io.gantry.events;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import io.gantry.jobs.JobIds;

/**
 * Carries events from where they happen to the streams of every controller. The publisher (an
 * after-commit listener on the scheduler's or a request's thread) only puts a draft in the
 * outbox; the relay's own thread gives drafts their ids and ships them. How they are shipped is
 * the subclass's: straight to this controller's streams on the embedded store, through
 * PostgreSQL's NOTIFY to every controller otherwise.
 * <p>
 * Should the outbox overflow or a batch fail to ship, those events are gone: the next batch
 * carries a reset, which tells every client to reload.
 */
abstract class EventRelay implements SmartLifecycle {

    /** An event before it has an id; {@code owner} is its job's user, once {@link Owners} found it. */
    record Draft(String kind, String subject, String change, Instant time, String owner) {

        Draft(String kind, String subject, String change, Instant time) {
            this(kind, subject, change, time, null);
        }
    }

    /**
     * Finds the owners of job ids, for streams that carry only their user's jobs (private jobs). Asked
     * once per batch on the relay's thread, so the publishers never wait on the store for it.
     */
    @FunctionalInterface
    interface Owners {

        /** Nobody's events are private: no look-up at all. */
        Owners NONE = jobIds -> Map.of();

        Map<Long, String> of(Collection<Long> jobIds);
    }

    /** Drafts waiting for the relay thread: far more than a burst of cycles produces. */
    static final int OUTBOX = 100_000;
    private static final int BATCH = 1000;

    private static final Logger log = LoggerFactory.getLogger(EventRelay.class);

    protected final EventStreams streams;
    protected final EventsProperties properties;
    private final Owners owners;
    private final BlockingQueue<Draft> outbox = new LinkedBlockingQueue<>(OUTBOX);
    private final AtomicBoolean lost = new AtomicBoolean();
    private volatile boolean running;
    private Thread dispatcher;

    EventRelay(EventStreams streams, EventsProperties properties, Owners owners) {
        this.streams = streams;
        this.properties = properties;
        this.owners = owners;
    }

    /** Takes an event to ship; constant time, never blocks, whatever the clients or the store do. */
    void offer(Draft draft) {
        if (!outbox.offer(draft) && !lost.getAndSet(true)) {
            log.warn("Live events arrive faster than they can be relayed; dropping some (clients are told to reload)");
        }
    }

    /** Ships one batch, in order; a reset, when asked, goes first. */
    protected abstract void ship(List<Draft> drafts, boolean reset) throws Exception;

    /** Called once on the relay thread before the first batch. */
    protected abstract void prepare() throws Exception;

    @Override
    public void start() {
        running = true;
        dispatcher = new Thread(this::dispatch, "events-relay");
        dispatcher.setDaemon(true);
        dispatcher.start();
    }

    @Override
    public void stop() {
        running = false;
        if (dispatcher != null) {
            dispatcher.interrupt();
            try {
                dispatcher.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    protected boolean running() {
        return running;
    }

    /** Fills in the owner of every job event of the batch, in one look-up. */
    private void withOwners(List<Draft> batch) {
        if (owners == Owners.NONE) {
            return;
        }
        Map<Draft, Long> jobIds = new IdentityHashMap<>();
        for (Draft d : batch) {
            if ("job".equals(d.kind()) && d.owner() == null) {
                jobId(d.subject()).ifPresent(id -> jobIds.put(d, id));
            }
        }
        if (jobIds.isEmpty()) {
            return;
        }
        Map<Long, String> found = owners.of(new HashSet<>(jobIds.values()));
        batch.replaceAll(d -> jobIds.containsKey(d)
                ? new Draft(d.kind(), d.subject(), d.change(), d.time(), found.get(jobIds.get(d))) : d);
    }

    /** The job id of a job event's subject ({@code 42}, {@code 42_7}); empty for anything else. */
    private static Optional<Long> jobId(String subject) {
        try {
            return Optional.of(JobIds.parse(subject).jobId());
        } catch (RuntimeException notAJob) {
            return Optional.empty();
        }
    }

    private void dispatch() {
        long heartbeat = properties.heartbeat().toNanos();
        long nextHeartbeat = System.nanoTime() + heartbeat;
        boolean prepared = false;
        long backoff = 0;
        List<Draft> batch = new ArrayList<>(BATCH);
        while (running) {
            try {
                if (backoff > 0) {
                    Thread.sleep(backoff);
                }
                if (!prepared) {
                    prepare();
                    prepared = true;
                }
                if (batch.isEmpty()) {
                    Draft first = outbox.poll(Math.max(1, nextHeartbeat - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (first != null) {
                        batch.add(first);
                        outbox.drainTo(batch, BATCH - 1);
                    }
                }
                boolean reset = lost.getAndSet(false);
                if (!batch.isEmpty() || reset) {
                    try {
                        withOwners(batch);
                        ship(batch, reset);
                    } catch (Exception e) {
                        lost.set(true);
                        throw e;
                    } finally {
                        batch.clear();
                    }
                }
                backoff = 0;
                if (System.nanoTime() - nextHeartbeat >= 0) {
                    streams.heartbeat();
                    nextHeartbeat = System.nanoTime() + heartbeat;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                if (!running) {
                    return;
                }
                backoff = backoff == 0 ? 500 : Math.min(backoff * 2, 10_000);
                log.warn("Could not relay live events ({}); retrying in {} ms", e.toString(), backoff);
            }
        }
    }
}
