package io.gantry.cluster;

/**
 * Where a node is in power saving's cycle; a node powered on has none. Kept in the store, so that a new
 * leader knows which nodes are down on purpose.
 */
public enum PowerState {
    POWERING_DOWN, POWERED_DOWN, POWERING_UP;

    /** The state users see for a node in service (neither drained nor down) in this power state. */
    NodeState shown() {
        return switch (this) {
            case POWERING_DOWN -> NodeState.POWERING_DOWN;
            case POWERED_DOWN -> NodeState.POWERED_DOWN;
            case POWERING_UP -> NodeState.POWERING_UP;
        };
    }
}
