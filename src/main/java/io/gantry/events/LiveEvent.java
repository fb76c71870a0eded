package io.gantry.events;

import java.time.Instant;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * One job or node change as clients see it: {@code id} orders events and is what a client sends
 * back as {@code Last-Event-ID}; {@code kind} is the SSE event name ({@code job} or {@code node}).
 * {@code owner}, the job's user when private jobs need it (else null), decides who is sent it and
 * is never sent itself.
 */
record LiveEvent(long id, String kind, String subject, String change, Instant time, String owner) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    LiveEvent(long id, String kind, String subject, String change, Instant time) {
        this(id, kind, subject, change, time, null);
    }

    /** Whether {@code user} is sent this event on a stream that sees only its own jobs: node events, own jobs' events. */
    boolean concerns(String user) {
        return !"job".equals(kind) || user.equals(owner);
    }

    /** The SSE {@code data:} of this event; the dashboard reads these four fields. */
    String data() {
        ObjectNode data = JSON.createObjectNode();
        data.put("kind", kind);
        data.put("id", subject);
        data.put("change", change);
        data.put("time", time.toString());
        return JSON.writeValueAsString(data);
    }
}
