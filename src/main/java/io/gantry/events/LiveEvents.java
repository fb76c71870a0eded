package io.gantry.events;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

import io.gantry.cluster.NodeStateChanged;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobsChanged;
import io.gantry.scheduling.JobEnded;
import io.gantry.scheduling.JobStarted;

/**
 * Job and node changes for live views, as server-sent events. The last {@value #KEPT} events are
 * kept so a client that reconnects with {@code Last-Event-ID} misses nothing that recent; one
 * that was away longer is told to reload ({@code event: reset}). Emitters are asynchronous, so
 * a waiting client holds no servlet thread.
 */
@Component
class LiveEvents {

    static final int KEPT = 1000;

    record LiveEvent(long id, String kind, String subject, String change, Instant time) {
    }

    private final Deque<LiveEvent> recent = new ArrayDeque<>();
    private final List<SseEmitter> emitters = new CopyOnWriteArrayList<>();
    private final Clock clock;
    private long nextId = 1;

    LiveEvents(Clock clock) {
        this.clock = clock;
    }

    /**
     * Ends every open stream when the controller stops, so a graceful shutdown does not wait its
     * whole timeout for browsers that keep them open (they reconnect with Last-Event-ID).
     */
    @org.springframework.context.event.EventListener(org.springframework.context.event.ContextClosedEvent.class)
    void closeStreams() {
        for (SseEmitter emitter : emitters) {
            emitter.complete();
        }
        emitters.clear();
    }

    SseEmitter subscribe(Long lastEventId) {
        SseEmitter emitter = new SseEmitter(0L);
        emitter.onCompletion(() -> emitters.remove(emitter));
        emitter.onTimeout(() -> emitters.remove(emitter));
        emitter.onError(e -> emitters.remove(emitter));
        List<LiveEvent> missed;
        boolean reset;
        synchronized (this) {
            reset = lastEventId != null && !recent.isEmpty() && lastEventId < recent.peekFirst().id() - 1;
            missed = lastEventId == null ? List.of()
                    : recent.stream().filter(e -> e.id() > lastEventId).toList();
            emitters.add(emitter);
        }
        try {
            if (reset) {
                emitter.send(SseEmitter.event().name("reset").data("{\"reason\":\"events were missed; reload\"}"));
            }
            for (LiveEvent e : missed) {
                send(emitter, e);
            }
            emitter.send(SseEmitter.event().comment("connected"));
        } catch (IOException e) {
            emitters.remove(emitter);
        }
        return emitter;
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobsChanged event) {
        publish("job", Long.toString(event.jobId()), event.change());
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobStarted event) {
        for (ActiveJob job : event.jobs()) {
            publish("job", job.displayId(), "RUNNING");
        }
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobEnded event) {
        publish("job", event.jobId(), event.state().name());
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(NodeStateChanged event) {
        publish("node", event.node(), event.state().name());
    }

    private void publish(String kind, String subject, String change) {
        LiveEvent event;
        synchronized (this) {
            event = new LiveEvent(nextId++, kind, subject, change, clock.instant());
            recent.addLast(event);
            if (recent.size() > KEPT) {
                recent.removeFirst();
            }
        }
        for (SseEmitter emitter : emitters) {
            try {
                send(emitter, event);
            } catch (IOException | IllegalStateException e) {
                emitters.remove(emitter);
            }
        }
    }

    private static void send(SseEmitter emitter, LiveEvent e) throws IOException {
        String json = "{\"kind\":\"" + e.kind() + "\",\"id\":\"" + e.subject() + "\",\"change\":\"" + e.change()
                + "\",\"time\":\"" + e.time() + "\"}";
        emitter.send(SseEmitter.event().id(Long.toString(e.id())).name(e.kind()).data(json, MediaType.APPLICATION_JSON));
    }
}
