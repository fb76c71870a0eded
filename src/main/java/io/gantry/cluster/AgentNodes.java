package io.gantry.cluster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;

/**
 * Nodes as their agents see them: registering (a configured node takes its place; an unknown one
 * joins the default partitions or is refused), heartbeats, and the "Not responding" state a node
 * is in after its agent went silent. An operator's DRAIN or DOWN is kept apart from that, so an
 * agent coming back returns its node to service unless an operator took it out.
 */
@Service
public class AgentNodes {

    /** Who the cluster names as the author of reasons it sets itself. */
    public static final String SYSTEM_USER = "gantry";

    private final ClusterService cluster;
    private final NodeRepository nodes;
    private final JdbcTemplate jdbc;
    private final ApplicationEventPublisher events;

    AgentNodes(ClusterService cluster, NodeRepository nodes, JdbcTemplate jdbc, ApplicationEventPublisher events) {
        this.cluster = cluster;
        this.nodes = nodes;
        this.jdbc = jdbc;
        this.events = events;
    }

    /** What an agent says its machine has. */
    public record Resources(int cpus, long memoryMb, int gpus, String gpuType, List<String> features) {
    }

    /** A node's state right after its agent registered. */
    public record Registered(String node, NodeState state, String reason) {
    }

    /**
     * Registers an agent for {@code name}. {@code credentialHash} replaces the node's credential
     * (null keeps it). {@code joinPartitions} are where an unconfigured node joins; empty refuses it.
     */
    @Transactional
    public Registered register(String name, Resources has, String credentialHash, List<String> joinPartitions,
            Instant at) {
        NodeEntity node = nodes.findById(name).orElse(null);
        ClusterLayout.NodeSpec configured = cluster.layout().nodes().get(name);
        if (node == null || (node.joined() && configured != null)) {
            if (joinPartitions.isEmpty()) {
                throw new GantryException(ProblemType.FORBIDDEN, "Node '" + name + "' is not in the cluster's "
                        + "configuration and gantry.agents.default-partitions is empty: add it to gantry.cluster.nodes, "
                        + "or set gantry.agents.default-partitions to let unknown nodes join");
            }
            node = node == null ? new NodeEntity(name) : node;
            joinAs(node, name, has, joinPartitions);
        } else if (node.simulated()) {
            throw GantryException.conflict("Node '" + name + "' is simulated in the configuration; set "
                    + "simulated: false on its node set for an agent to run it");
        } else if (node.joined()) {
            joinAs(node, name, has, node.partitions());
        } else {
            String shortfall = shortfall(configured, has);
            if (shortfall != null && node.adminState() == AdminState.NONE) {
                node.setAdminState(AdminState.DRAIN, shortfall, SYSTEM_USER, at);
            }
        }
        node.agentRegistered(credentialHash, at);
        NodeEntity saved = nodes.saveAndFlush(node);
        events.publishEvent(new NodeStateChanged(saved.name(), saved.state(), saved.reason()));
        return new Registered(saved.name(), saved.state(), saved.reason());
    }

    private void joinAs(NodeEntity node, String name, Resources has, List<String> partitions) {
        ClusterLayout.NodeSpec spec = new ClusterLayout.NodeSpec(name, has.cpus(), has.memoryMb(), has.gpus(),
                has.gpus() > 0 ? has.gpuType() : null, List.copyOf(has.features()), false, List.copyOf(partitions),
                null, null);
        node.applyJoinedShape(spec);
        cluster.adopt(spec);
    }

    /** Slurm drains a node that registers with less than configured ("Low RealMemory" and the like). */
    private static String shortfall(ClusterLayout.NodeSpec configured, Resources has) {
        List<String> low = new ArrayList<>();
        if (has.cpus() < configured.cpus()) {
            low.add("Low CPUs (" + has.cpus() + " < " + configured.cpus() + " configured)");
        }
        if (has.memoryMb() < configured.memoryMb()) {
            low.add("Low RealMemory (" + has.memoryMb() + " MB < " + configured.memoryMb() + " MB configured)");
        }
        if (has.gpus() < configured.gpus()) {
            low.add("Low GPUs (" + has.gpus() + " < " + configured.gpus() + " configured)");
        }
        return low.isEmpty() ? null : String.join("; ", low);
    }

    /** The node whose credential has this SHA-256, if any. */
    @Transactional(readOnly = true)
    public Optional<String> nodeOfCredential(String credentialHash) {
        return jdbc.query("SELECT name FROM nodes WHERE agent_credential = ?",
                (rs, i) -> rs.getString(1), credentialHash).stream().findFirst();
    }

    /** Records heartbeats of responding nodes, in one batch. */
    @Transactional
    public void heartbeats(Map<String, Instant> lastSeen) {
        List<Object[]> rows = lastSeen.entrySet().stream()
                .map(e -> new Object[] {utc(e.getValue()), e.getKey()}).toList();
        jdbc.batchUpdate("UPDATE nodes SET last_heartbeat = ? WHERE name = ? AND agent_state = 'UP'", rows);
    }

    /** A silent node's agent is heard again: back in service (unless an operator took it out). */
    @Transactional
    public boolean responding(String name, Instant at) {
        int changed = jdbc.update("""
                UPDATE nodes SET agent_state = 'UP', last_heartbeat = ?
                 WHERE name = ? AND agent_state = 'NOT_RESPONDING'""", utc(at), name);
        if (changed > 0) {
            nodes.findById(name).ifPresent(n -> events.publishEvent(new NodeStateChanged(n.name(), n.state(), n.reason())));
        }
        return changed > 0;
    }

    /** Agent-run nodes last heard before {@code cutoff} that are still taken as responding. */
    @Transactional(readOnly = true)
    public List<String> silentSince(Instant cutoff) {
        return jdbc.query("""
                SELECT name FROM nodes WHERE NOT simulated AND agent_state = 'UP' AND last_heartbeat < ?
                 ORDER BY name""", (rs, i) -> rs.getString(1), utc(cutoff));
    }

    /** Marks a node not responding if it is still silent since {@code cutoff}; false when it spoke meanwhile. */
    @Transactional
    public boolean notResponding(String name, Instant cutoff) {
        int changed = jdbc.update("""
                UPDATE nodes SET agent_state = 'NOT_RESPONDING'
                 WHERE name = ? AND agent_state = 'UP' AND last_heartbeat < ?""", name, utc(cutoff));
        if (changed > 0) {
            events.publishEvent(new NodeStateChanged(name, NodeState.DOWN, NodeEntity.NOT_RESPONDING_REASON));
        }
        return changed > 0;
    }

    /**
     * How every reason a health check sets begins. With {@link #SYSTEM_USER} as its author it marks
     * the drains a passing check may take back; an operator's drain, whatever its words, stays.
     */
    public static final String HEALTH_CHECK_REASON = "health check: ";

    /**
     * A node's own health check failed: it drains (jobs running there finish, none start) with
     * {@code message} in its reason. A node already out of service for another reason (an operator's
     * DRAIN or DOWN, a registration short of its configuration) keeps that reason; one the check
     * drained takes the new message. True when the node changed.
     */
    @Transactional
    public boolean healthCheckFailed(String name, String message, Instant at) {
        String reason = HEALTH_CHECK_REASON + message;
        int changed = jdbc.update("""
                UPDATE nodes SET admin_state = 'DRAIN', reason = ?, reason_user = ?, reason_time = ?,
                       version = version + 1
                 WHERE name = ? AND NOT simulated
                   AND (admin_state = 'NONE'
                        OR (admin_state = 'DRAIN' AND reason_user = ? AND reason LIKE ? AND reason <> ?))""",
                reason, SYSTEM_USER, utc(at), name, SYSTEM_USER, HEALTH_CHECK_REASON + "%", reason);
        publishIfChanged(name, changed);
        return changed > 0;
    }

    /** A node's health check passes: back in service if, and only if, that check drained it. */
    @Transactional
    public boolean healthCheckPassed(String name) {
        int changed = jdbc.update("""
                UPDATE nodes SET admin_state = 'NONE', reason = NULL, reason_user = NULL, reason_time = NULL,
                       version = version + 1
                 WHERE name = ? AND admin_state = 'DRAIN' AND reason_user = ? AND reason LIKE ?""",
                name, SYSTEM_USER, HEALTH_CHECK_REASON + "%");
        publishIfChanged(name, changed);
        return changed > 0;
    }

    private void publishIfChanged(String name, int changed) {
        if (changed > 0) {
            nodes.findById(name).ifPresent(n -> events.publishEvent(new NodeStateChanged(n.name(), n.state(), n.reason())));
        }
    }

    private static java.time.OffsetDateTime utc(Instant at) {
        return java.time.OffsetDateTime.ofInstant(at, java.time.ZoneOffset.UTC);
    }
}
