package io.gantry.steps;

import java.util.List;
import java.util.Map;

import io.gantry.agent.protocol.AgentProtocol.Command;

/** Published when step commands (STEP_LAUNCH, STEP_SIGNAL) must reach nodes' agents: node to its commands. */
public record StepCommands(Map<String, List<Command>> byNode) {

    public StepCommands {
        byNode = Map.copyOf(byNode);
    }
}
