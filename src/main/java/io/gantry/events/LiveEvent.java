package io.gantry.events;

import java.time.Instant;

import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * One job or node change as clients see it: {@code id} orders events and is what a client sends
 * back as {@code Last-Event-ID}; {@code kind} is the SSE event name ({@code job} or {@code node}).
 */
record LiveEvent(long id, String kind, String subject, String change, Instant time) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

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
