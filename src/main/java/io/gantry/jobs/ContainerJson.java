package io.gantry.jobs;

import io.gantry.noded.protocol.ContainerSpec;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link ContainerSpec} as the store keeps it: its JSON, the same as the API's, so a field the
 * node side adds later needs no new column.
 */
public final class ContainerJson {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ContainerJson() {
    }

    /** The spec's JSON, or null for none. */
    public static String write(ContainerSpec spec) {
        return spec == null ? null : JSON.writeValueAsString(spec);
    }

    /** The spec stored as {@code text}, or null for none. */
    public static ContainerSpec read(String text) {
        return text == null || text.isEmpty() ? null : JSON.readValue(text, ContainerSpec.class);
    }
}
