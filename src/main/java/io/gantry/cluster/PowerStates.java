package io.gantry.cluster;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.engine.Hostlist;

/**
 * Nodes' power states in the store (power saving's side of the nodes table), and in memory the nodes
 * not powered on, for those who must not wait on the store for it: the launch of a job whose nodes are
 * still coming up waits, and expected starts count the time a node takes to come up.
 */
@Service
public class PowerStates {

    /** The reason a node that did not come back in time goes DOWN with, as in Slurm. */
    public static final String RESUME_TIMEOUT_REASON = "ResumeTimeout reached";

    private final JdbcTemplate jdbc;
    private final NodeRepository nodes;
    private final ApplicationEventPublisher events;
    private final PowerProperties properties;
    /** Nodes not powered on, with their power state and since when, as last read or written. */
    private volatile Map<String, Cycling> cycling = Map.of();

    private record Cycling(PowerState state, Instant since) {
    }

    PowerStates(JdbcTemplate jdbc, NodeRepository nodes, ApplicationEventPublisher events,
            PowerProperties properties) {
        this.jdbc = jdbc;
        this.nodes = nodes;
        this.events = events;
        this.properties = properties;
    }

    /** Every agent-run node as power saving sees it, in name order. */
    @Transactional(readOnly = true)
    public List<PowerCycle.NodePower> read() {
        Set<String> excluded = excluded();
        List<PowerCycle.NodePower> all = jdbc.query("""
                SELECT name, power_state, power_since, agent_state, last_heartbeat,
                       alloc_cpus > 0 OR alloc_gpus > 0 OR alloc_memory_mb > 0, admin_state, partitions
                  FROM nodes WHERE NOT simulated""", (rs, i) -> {
            String name = rs.getString(1);
            String power = rs.getString(2);
            String partitions = rs.getString(8);
            boolean inExcludedPartition = partitions != null && java.util.Arrays.stream(partitions.split(","))
                    .anyMatch(properties.excludedPartitions()::contains);
            return new PowerCycle.NodePower(name, power == null ? null : PowerState.valueOf(power),
                    instant(rs.getObject(3, OffsetDateTime.class)), "UP".equals(rs.getString(4)),
                    instant(rs.getObject(5, OffsetDateTime.class)), rs.getBoolean(6),
                    "NONE".equals(rs.getString(7)), excluded.contains(name) || inExcludedPartition);
        });
        all = all.stream().sorted(java.util.Comparator.comparing(PowerCycle.NodePower::name, Hostlist.HOST_ORDER))
                .toList();
        Map<String, Cycling> now = new HashMap<>();
        all.stream().filter(n -> n.power() != null).forEach(n -> now.put(n.name(), new Cycling(n.power(), n.powerSince())));
        cycling = Map.copyOf(now);
        return all;
    }

    /**
     * Moves the named nodes that are in power state {@code from} (null: powered on) to {@code to} (null:
     * powered on) as of {@code at}; the nodes that moved.
     */
    @Transactional
    public List<String> move(Collection<String> names, PowerState from, PowerState to, Instant at) {
        List<String> moved = new java.util.ArrayList<>();
        for (String name : names) {
            int changed = from == null
                    ? jdbc.update("UPDATE nodes SET power_state = ?, power_since = ?, version = version + 1 "
                            + "WHERE name = ? AND power_state IS NULL", text(to), utc(at), name)
                    : jdbc.update("UPDATE nodes SET power_state = ?, power_since = ?, version = version + 1 "
                            + "WHERE name = ? AND power_state = ?", text(to), to == null ? null : utc(at), name,
                            from.name());
            if (changed > 0) {
                moved.add(name);
                remember(name, to, at);
                publish(name);
            }
        }
        return moved;
    }

    /**
     * A node that did not come back within the resume timeout: DOWN with {@link #RESUME_TIMEOUT_REASON},
     * and powered down again (an operator's RESUME puts it back in service, powered down). False when it
     * came up meanwhile.
     */
    @Transactional
    public boolean resumeTimedOut(String name, Instant at) {
        int changed = jdbc.update("""
                UPDATE nodes SET power_state = 'POWERED_DOWN', power_since = ?, admin_state = 'DOWN', reason = ?,
                       reason_user = ?, reason_time = ?, version = version + 1
                 WHERE name = ? AND power_state = 'POWERING_UP'""",
                utc(at), RESUME_TIMEOUT_REASON, AgentNodes.SYSTEM_USER, utc(at), name);
        if (changed > 0) {
            remember(name, PowerState.POWERED_DOWN, at);
            publish(name);
        }
        return changed > 0;
    }

    /** Whether every one of {@code nodes} is powered on, as last known here. */
    public boolean allPoweredOn(Collection<String> names) {
        Map<String, Cycling> current = cycling;
        if (current.isEmpty()) {
            return true;
        }
        for (String name : names) {
            if (current.containsKey(name)) {
                return false;
            }
        }
        return true;
    }

    /**
     * When each node not powered on can take a job at the earliest (epoch seconds), counting the resume
     * timeout as the time a node takes to come up: a powered-down node from {@code now}, one coming up from
     * its resume, one powering down once it is down.
     */
    public Map<String, Long> readyAt(long now) {
        Map<String, Cycling> current = cycling;
        if (current.isEmpty()) {
            return Map.of();
        }
        long resume = properties.resumeTimeout().toSeconds();
        Map<String, Long> ready = new HashMap<>();
        current.forEach((name, c) -> {
            long since = c.since() == null ? now : c.since().getEpochSecond();
            long at = switch (c.state()) {
                case POWERED_DOWN -> now + resume;
                case POWERING_UP -> Math.max(now, since + resume);
                case POWERING_DOWN -> Math.max(now, since + properties.suspendTimeout().toSeconds()) + resume;
            };
            ready.put(name, at);
        });
        return ready;
    }

    private synchronized void remember(String name, PowerState state, Instant at) {
        Map<String, Cycling> next = new HashMap<>(cycling);
        if (state == null) {
            next.remove(name);
        } else {
            next.put(name, new Cycling(state, at));
        }
        cycling = Map.copyOf(next);
    }

    private void publish(String name) {
        nodes.findById(name).ifPresent(n -> events.publishEvent(new NodeStateChanged(n.name(), n.state(), n.reason())));
    }

    private Set<String> excluded() {
        Set<String> names = new HashSet<>();
        for (String hostlist : properties.excludedNodes()) {
            names.addAll(Hostlist.parse(hostlist).hosts());
        }
        return names;
    }

    private static String text(PowerState state) {
        return state == null ? null : state.name();
    }

    private static Instant instant(OffsetDateTime t) {
        return t == null ? null : t.toInstant();
    }

    private static OffsetDateTime utc(Instant at) {
        return OffsetDateTime.ofInstant(at, ZoneOffset.UTC);
    }
}
