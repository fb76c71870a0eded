package io.gantry.cluster;

/** What an operator (or a failure) set on a node, kept in the store across restarts. */
enum AdminState {
    NONE, DRAIN, DOWN
}
