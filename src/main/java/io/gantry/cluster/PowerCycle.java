package io.gantry.cluster;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Power saving's state machine, pure: given every agent-run node as the store has it and the time, what
 * happens to each. Powered on and idle (in service, no job, agent up, not excluded) for
 * {@code suspend-time}: SUSPEND (POWERING_DOWN). POWERING_DOWN whose agent went away, or after
 * {@code suspend-timeout}: POWERED (POWERED_DOWN). POWERED_DOWN and given a job: RESUME (POWERING_UP).
 * POWERING_UP whose agent registered since: BOOTED (powered on); not within {@code resume-timeout}:
 * RESUME_TIMEOUT (DOWN, its jobs back to the queue). It keeps when each node was first seen idle, so
 * one instance serves one leader's term.
 */
public final class PowerCycle {

    /** One node as power saving sees it. {@code power} null: powered on. */
    public record NodePower(String name, PowerState power, Instant powerSince, boolean agentUp,
            Instant lastHeartbeat, boolean allocated, boolean inService, boolean excluded) {
    }

    public enum Action {
        SUSPEND, POWERED, RESUME, BOOTED, RESUME_TIMEOUT
    }

    /** What to do to which nodes, each list in the order of the input. */
    public record Decisions(Map<Action, List<String>> byAction) {

        public List<String> nodes(Action action) {
            return byAction.getOrDefault(action, List.of());
        }

        public boolean isEmpty() {
            return byAction.values().stream().allMatch(List::isEmpty);
        }
    }

    private final Duration suspendTime;
    private final Duration suspendTimeout;
    private final Duration resumeTimeout;
    /** When each powered-on node was first seen idle, since it last was not. */
    private final Map<String, Instant> idleSince = new HashMap<>();

    public PowerCycle(Duration suspendTime, Duration suspendTimeout, Duration resumeTimeout) {
        this.suspendTime = suspendTime;
        this.suspendTimeout = suspendTimeout;
        this.resumeTimeout = resumeTimeout;
    }

    public Decisions decide(List<NodePower> nodes, Instant now) {
        Map<Action, List<String>> out = new java.util.EnumMap<>(Action.class);
        Set<String> seen = new java.util.HashSet<>();
        for (NodePower n : nodes) {
            seen.add(n.name());
            Action action = decide(n, now);
            if (action != null) {
                out.computeIfAbsent(action, a -> new ArrayList<>()).add(n.name());
            }
        }
        idleSince.keySet().retainAll(seen);
        return new Decisions(out);
    }

    private Action decide(NodePower n, Instant now) {
        if (n.power() == null) {
            boolean idle = n.agentUp() && !n.allocated() && n.inService() && !n.excluded();
            if (!idle) {
                idleSince.remove(n.name());
                return null;
            }
            Instant since = idleSince.computeIfAbsent(n.name(), k -> now);
            if (!now.isBefore(since.plus(suspendTime))) {
                idleSince.remove(n.name());
                return Action.SUSPEND;
            }
            return null;
        }
        idleSince.remove(n.name());
        return switch (n.power()) {
            case POWERING_DOWN -> !n.agentUp() || !now.isBefore(n.powerSince().plus(suspendTimeout))
                    ? Action.POWERED : null;
            case POWERED_DOWN -> n.allocated() ? Action.RESUME : null;
            case POWERING_UP -> {
                if (n.agentUp() && n.lastHeartbeat() != null && n.lastHeartbeat().isAfter(n.powerSince())) {
                    yield Action.BOOTED;
                }
                yield !now.isBefore(n.powerSince().plus(resumeTimeout)) ? Action.RESUME_TIMEOUT : null;
            }
        };
    }
}
