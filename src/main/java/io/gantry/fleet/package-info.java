/**
 * The controller's side of the node daemons ({@link io.gantry.noded}): the {@code /api/v1/agents}
 * endpoints they call, join tokens and credentials, the hub that hands them work, job output relayed
 * from them, node health and power saving, and the simulated nodes that stand in for them.
 */
package io.gantry.fleet;
