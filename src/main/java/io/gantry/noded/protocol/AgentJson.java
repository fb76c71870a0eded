package io.gantry.noded.protocol;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one JSON mapper of the agent protocol, for the node daemon and for srun and salloc, which speak
 * it to the controller too: times as ISO-8601 strings (what the controller writes and
 * reads), and fields it does not know yet ignored, so a newer controller still talks to an older agent;
 * likewise a command type it does not know is read as none and skipped (the rest of the poll's
 * commands still apply).
 */
public final class AgentJson {

    public static final JsonMapper MAPPER = JsonMapper.builder()
            .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(tools.jackson.databind.cfg.EnumFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL)
            .build();

    private AgentJson() {
    }

    /** The {@code detail} (or {@code title}) of an RFC 9457 problem, else the start of the body. */
    public static String problemDetail(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        try {
            JsonNode problem = MAPPER.readTree(body);
            for (String field : new String[] {"detail", "title", "error", "message"}) {
                JsonNode value = problem.get(field);
                if (value != null && value.isString() && !value.asString().isBlank()) {
                    return value.asString();
                }
            }
        } catch (JacksonException e) {
            // not JSON
        }
        String text = body.strip();
        return text.length() > 200 ? text.substring(0, 200) + "…" : text;
    }
}

