package io.gantry.noded;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one JSON mapper of the agent: times as ISO-8601 strings (what the controller writes and
 * reads), and fields it does not know yet ignored, so a newer controller still talks to an older agent;
 * likewise a command type it does not know is read as none and skipped (the rest of the poll's
 * commands still apply).
 */
final class AgentJson {

    static final JsonMapper MAPPER = JsonMapper.builder()
            .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(tools.jackson.databind.cfg.EnumFeature.READ_UNKNOWN_ENUM_VALUES_AS_NULL)
            .build();

    private AgentJson() {
    }
}
