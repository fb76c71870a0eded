package io.gantry.engine;

import java.util.Objects;

/** A switch in the topology tree; {@code parent} is null at the top. Nodes name their leaf switch. */
public record Switch(String name, String parent) {
    public Switch {
        Objects.requireNonNull(name, "name");
    }
}
