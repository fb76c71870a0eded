package io.gantry.cluster;

/** Published after a node's state changed, so the scheduler and live views can react. */
public record NodeStateChanged(String node, NodeState state, String reason) {
}
