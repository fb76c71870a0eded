package io.gantry.steps;

import java.util.List;
import java.util.Map;

import io.gantry.noded.protocol.AgentProtocol.Command;

/**
 * Published when step commands (STEP_LAUNCH, STEP_SIGNAL) must reach nodes' agents: node to its commands.
 * {@code owner} is the Gantry user whose job the STEP_LAUNCHes are of (null for other commands): the tasks
 * run as the Unix user the agents' configuration maps that user to, whatever the caller's environment says.
 */
public record StepCommands(Map<String, List<Command>> byNode, String owner) {

    public StepCommands {
        byNode = Map.copyOf(byNode);
    }

    public StepCommands(Map<String, List<Command>> byNode) {
        this(byNode, null);
    }
}
