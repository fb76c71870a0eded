package io.gantry.cluster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.audit.Actor;
import io.gantry.audit.Audit;
import io.gantry.audit.AuditAction;
import io.gantry.audit.AuditEntity;

/**
 * Nodes as their agents see them: registering (a configured node takes its place; an unknown one
 * joins the default partitions, possibly to await an ADMIN's approval, or is refused), heartbeats, and the "Not responding" state a node
 * is in after its agent went silent. An operator's DRAIN or DOWN is kept apart from that, so an
 * agent coming back returns its node to service unless an operator took it out.
 */
@Service
public class AgentNodes {

    /** Who the cluster names as the author of reasons it sets itself. */
    public static final String SYSTEM_USER = "gantry";
    private static final Logger log = LoggerFactory.getLogger(AgentNodes.class);

    private final ClusterService cluster;
    private final NodeRepository nodes;
    private final JdbcTemplate jdbc;
    private final ApplicationEventPublisher events;

    private final Audit audit;

    AgentNodes(ClusterService cluster, NodeRepository nodes, JdbcTemplate jdbc, ApplicationEventPublisher events,
            Audit audit) {
        this.audit = audit;
        this.cluster = cluster;
        this.nodes = nodes;
        this.jdbc = jdbc;
        this.events = events;
    }

    /** What an agent says its machine has; {@code mig} its MIG instances in nvidia-smi -L order. */
    public record Resources(int cpus, long memoryMb, int gpus, String gpuType, List<String> features,
            List<ClusterLayout.MigInstance> mig) {

        public Resources {
            mig = mig == null ? List.of() : List.copyOf(mig);
        }

        public Resources(int cpus, long memoryMb, int gpus, String gpuType, List<String> features) {
            this(cpus, memoryMb, gpus, gpuType, features, List.of());
        }
    }

    /** A node's state right after its agent registered. */
    public record Registered(String node, NodeState state, String reason) {
    }

    /**
     * A join with the join token alone under a name an agent has held, without an ADMIN's leave:
     * refused (409), and recorded in the audit trail, for it is what someone holding a stolen join
     * token does to receive another node's jobs.
     */
    public static final class JoinRefused extends GantryException {

        JoinRefused(String detail) {
            super(ProblemType.CONFLICT, detail);
        }
    }

    /** An ADMIN's leave for one join with the join token under {@code node}, until {@code until}. */
    public record RejoinLeave(String node, Instant until) {
    }

    /**
     * Registers an agent for {@code name}. {@code credentialHash} replaces the node's credential
     * (null keeps it). {@code joinPartitions} are where an unconfigured node joins; empty refuses it.
     * A configured node keeps its configured shape whatever its agent declares: more than configured
     * is capped (and logged), less drains it. With {@code approveNewNodes}, a node joining for the
     * first time stays DOWN "awaiting approval" until {@link #approve}.
     * <p>
     * A new credential (a join with the join token) for a name an agent has held before needs an
     * ADMIN's leave ({@link #allowRejoin}), which this join uses up; without one it is refused with
     * {@link JoinRefused}, and both are audited. Refusing commits (the audit row) and changes nothing else.
     * The in-memory layout learns of a joined node only once its row is committed, so a registration
     * that fails leaves no node behind in memory.
     */
    @Transactional(noRollbackFor = JoinRefused.class)
    public Registered register(String name, Resources has, String credentialHash, List<String> joinPartitions,
            boolean approveNewNodes, Instant at) {
        NodeEntity node = nodes.findById(name).orElse(null);
        boolean joinedBefore = node != null && node.joined();
        // The layout holds the nodes that joined as well; only a node whose row did not join is configured.
        ClusterLayout.NodeSpec configured = joinedBefore ? null : cluster.layout().nodes().get(name);
        if (configured != null && configured.simulated() || node != null && node.simulated()) {
            throw GantryException.conflict("Node '" + name + "' is simulated in the configuration; set "
                    + "simulated: false on its node set for an agent to run it");
        }
        if (credentialHash != null && node != null && node.heldByAnAgent()) {
            Map<String, Object> before = credentialView(node);
            if (!node.takeRejoinLeave(at)) {
                audit.record(Actor.joinToken(), AuditAction.JOIN_REFUSED, AuditEntity.NODE, name, before,
                        Map.of("name", name, "refused", "joined before; no ADMIN leave to join again"));
                log.warn("Refused a join with the join token under node '{}': an agent has held that name, and no "
                        + "ADMIN allowed it to be taken again", name);
                throw new JoinRefused("Node '" + name + "' has been joined by an agent before: only its node "
                        + "credential registers it again. If its agent lost its credential (or an ADMIN revoked it), "
                        + "an ADMIN must first allow one new join: POST /api/v1/agents/" + name + "/rejoin");
            }
            audit.record(Actor.joinToken(), AuditAction.JOIN, AuditEntity.NODE, name, before,
                    Map.of("name", name, "credential", "replaced", "rejoinApprovedUntil", "used"));
            log.warn("Node '{}' joined again with the join token, on an ADMIN's leave; its old credential no longer "
                    + "works", name);
        }
        if (configured != null) {
            if (node == null) {
                node = new NodeEntity(name);
                node.applyShape(configured);
            }
            String excess = excess(configured, has);
            if (excess != null) {
                log.warn("The agent of node '{}' declares more than configured ({}); the node keeps its configured "
                        + "shape", name, excess);
            }
            String shortfall = shortfall(configured, has);
            if (shortfall != null && node.adminState() == AdminState.NONE) {
                node.setAdminState(AdminState.DRAIN, shortfall, SYSTEM_USER, at);
            }
        } else {
            if (joinPartitions.isEmpty()) {
                throw new GantryException(ProblemType.FORBIDDEN, "Node '" + name + "' is not in the cluster's "
                        + "configuration and gantry.agents.default-partitions is empty: add it to gantry.cluster.nodes, "
                        + "or set gantry.agents.default-partitions to let unknown nodes join");
            }
            node = node == null ? new NodeEntity(name) : node;
            joinAs(node, name, has, joinPartitions);
            if (!joinedBefore && approveNewNodes) {
                node.awaitApproval(at);
                log.warn("Node '{}' joined unannounced; it stays DOWN until an ADMIN approves it "
                        + "(POST /api/v1/agents/{}/approve)", name, name);
            }
        }
        node.agentRegistered(credentialHash, at);
        NodeEntity saved = nodes.saveAndFlush(node);
        events.publishEvent(new NodeStateChanged(saved.name(), saved.state(), saved.reason()));
        return new Registered(saved.name(), saved.state(), saved.reason());
    }

    /**
     * An ADMIN lets a node that joined unannounced into service. 404 for a node that does not
     * exist, 409 for one that is not awaiting approval.
     */
    @Transactional
    public ClusterViews.NodeView approve(String name, String admin) {
        NodeEntity node = nodes.findById(name).orElseThrow(() -> GantryException.notFound("Node", name));
        ClusterViews.NodeView before = ClusterService.view(node);
        if (!node.awaitingApproval()) {
            throw GantryException.conflict("Node '" + name + "' is not awaiting approval");
        }
        node.approve();
        NodeEntity saved = nodes.saveAndFlush(node);
        log.info("Node '{}' approved by {}; it is now {}", name, admin, saved.state());
        ClusterViews.NodeView after = ClusterService.view(saved);
        audit.record(Actor.staff(admin, true), AuditAction.UPDATE, AuditEntity.NODE, name, before, after);
        events.publishEvent(new NodeStateChanged(saved.name(), saved.state(), saved.reason()));
        return after;
    }

    /**
     * An ADMIN lets one agent take {@code name} again with the join token alone, within {@code window}:
     * for a machine that lost its credential (or whose credential was revoked). 404 for no such node,
     * 409 for a simulated one or one no agent has held (its first agent needs no leave).
     */
    @Transactional
    public RejoinLeave allowRejoin(String name, String admin, Instant at, java.time.Duration window) {
        NodeEntity node = nodes.findById(name).orElseThrow(() -> GantryException.notFound("Node", name));
        if (node.simulated()) {
            throw GantryException.conflict("Node '" + name + "' is simulated: no agent joins it");
        }
        if (!node.heldByAnAgent()) {
            throw GantryException.conflict("No agent has joined node '" + name + "' yet: its first agent joins with "
                    + "the join token alone");
        }
        Instant before = node.rejoinApprovedUntil();
        Instant until = at.plus(window);
        node.allowRejoin(until);
        nodes.saveAndFlush(node);
        Map<String, Object> was = new java.util.LinkedHashMap<>();
        was.put("name", name);
        was.put("rejoinApprovedUntil", before);
        audit.record(Actor.staff(admin, true), AuditAction.UPDATE, AuditEntity.NODE, name, was,
                Map.of("name", name, "rejoinApprovedUntil", until));
        log.warn("{} allowed one agent to join node '{}' again with the join token until {}", admin, name, until);
        return new RejoinLeave(name, until);
    }

    /** What the audit trail shows of a node's credential: whether it has one, never the hash. */
    private static Map<String, Object> credentialView(NodeEntity node) {
        Map<String, Object> view = new java.util.LinkedHashMap<>();
        view.put("name", node.name());
        view.put("credential", node.hasCredential());
        view.put("rejoinApprovedUntil", node.rejoinApprovedUntil());
        return view;
    }

    /**
     * Forgets a node's credential (404 when there is no such node): its agent is refused until an ADMIN
     * allows a new join ({@link #allowRejoin}) and it joins with the join token.
     */
    @Transactional
    public void revokeCredential(String name, String admin) {
        NodeEntity node = nodes.findById(name).orElseThrow(() -> GantryException.notFound("Node", name));
        boolean had = node.hasCredential();
        node.revokeCredential();
        nodes.saveAndFlush(node);
        audit.record(Actor.staff(admin, true), AuditAction.UPDATE, AuditEntity.NODE, name,
                Map.of("name", name, "credential", had), Map.of("name", name, "credential", false));
    }

    private void joinAs(NodeEntity node, String name, Resources has, List<String> partitions) {
        ClusterLayout.NodeSpec spec = new ClusterLayout.NodeSpec(name, has.cpus(), has.memoryMb(), has.gpus(),
                has.gpus() > 0 ? has.gpuType() : null, List.copyOf(has.features()), false, List.copyOf(partitions),
                null, null, has.mig(), 0);
        node.applyJoinedShape(spec);
        adoptOnCommit(spec);
    }

    /**
     * The layout in memory takes a joined node once its row is committed, and not if it is not: a
     * registration the store refuses must leave no node in memory that the store does not have. Ordered
     * first, so that the NodeStateChanged listeners (after commit too) already see the node.
     */
    private void adoptOnCommit(ClusterLayout.NodeSpec spec) {
        if (!org.springframework.transaction.support.TransactionSynchronizationManager.isSynchronizationActive()) {
            cluster.adopt(spec);
            return;
        }
        org.springframework.transaction.support.TransactionSynchronizationManager.registerSynchronization(
                new org.springframework.transaction.support.TransactionSynchronization() {
                    @Override
                    public void afterCommit() {
                        cluster.adopt(spec);
                    }

                    @Override
                    public int getOrder() {
                        return org.springframework.core.Ordered.HIGHEST_PRECEDENCE;
                    }
                });
    }

    /** What an agent declares beyond its configured shape; it is not given to jobs. */
    private static String excess(ClusterLayout.NodeSpec configured, Resources has) {
        List<String> over = new ArrayList<>();
        if (has.cpus() > configured.cpus()) {
            over.add(has.cpus() + " CPUs > " + configured.cpus());
        }
        if (has.memoryMb() > configured.memoryMb()) {
            over.add(has.memoryMb() + " MB > " + configured.memoryMb() + " MB");
        }
        if (has.gpus() > configured.gpus()) {
            over.add(has.gpus() + " GPUs > " + configured.gpus());
        }
        return over.isEmpty() ? null : String.join(", ", over);
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
        // DOWN "Not responding", or still powered down when power saving stopped its agent
        publishIfChanged(name, changed);
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
