package io.gantry.engine;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * When nodes that are not up yet can take a job: power saving's powered-down nodes count as usable, but
 * only once they have come up. A start on them is no sooner than the last of them is ready (epoch
 * seconds by node; nodes not named are ready now).
 */
public final class NodeReadiness {

    private NodeReadiness() {
    }

    /** {@code start}, or later when one of {@code nodes} is ready only after it; empty stays empty. */
    public static OptionalLong delayed(OptionalLong start, List<String> nodes, Map<String, Long> readyAt) {
        if (start.isEmpty() || readyAt.isEmpty() || nodes == null) {
            return start;
        }
        long at = start.getAsLong();
        for (String node : nodes) {
            Long ready = readyAt.get(node);
            if (ready != null && ready > at) {
                at = ready;
            }
        }
        return OptionalLong.of(at);
    }

    /** The estimate's start delayed by its nodes' readiness. */
    public static OptionalLong delayed(StartEstimate estimate, Map<String, Long> readyAt) {
        return delayed(estimate.start(), estimate.nodes(), readyAt);
    }
}
