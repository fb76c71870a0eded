package io.gantry.engine;

import java.util.List;
import java.util.OptionalLong;

/**
 * A job the plan does not start, and why. Jobs the engine reserved resources for carry the
 * expected start and the nodes held for them ({@code partition} is then the one reserved in).
 */
public record Waiting(JobId job, PendingReason reason, OptionalLong expectedStart, String partition,
        List<String> reservedNodes, Priority priority) {

    public Waiting {
        reservedNodes = List.copyOf(reservedNodes);
    }

    public boolean reserved() {
        return expectedStart.isPresent();
    }
}
