package io.gantry.cluster;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryException;
import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import io.gantry.audit.Actor;
import io.gantry.audit.Audit;
import io.gantry.audit.AuditAction;
import io.gantry.audit.AuditEntity;
import io.gantry.engine.Hostlist;
import io.gantry.engine.HostlistException;
import io.gantry.cluster.ClusterViews.BlockView;
import io.gantry.cluster.ClusterViews.NodeUpdate;
import io.gantry.cluster.ClusterViews.NodeView;
import io.gantry.cluster.ClusterViews.NodesUpdate;
import io.gantry.cluster.ClusterViews.NodesUpdated;
import io.gantry.cluster.ClusterViews.PartitionUpdate;
import io.gantry.cluster.ClusterViews.PartitionView;
import io.gantry.cluster.ClusterViews.SwitchView;
import io.gantry.cluster.ClusterViews.TopologyView;

/** Nodes, partitions and topology: what the cluster is and what state each node is in. */
@Service
public class ClusterService {

    private static final int MAX_REASON = 1024;
    private static final String PARTITION_STATES = String.join(", ",
            Arrays.stream(PartitionState.values()).map(Enum::name).toList());

    /** The configuration's layout plus the nodes that joined through their agents; replaced whole on a join. */
    private volatile ClusterLayout layout;
    private final NodeRepository nodes;
    private final PartitionRepository partitions;
    private final ApplicationEventPublisher events;
    private final Clock clock;
    private final JdbcClient jdbc;
    private final org.springframework.jdbc.core.JdbcTemplate batch;
    private final Audit audit;

    /** Reservations and recent failures on the nodes, for their views. */
    private final NodeMarks nodeMarks;

    /** The QOS names, to check a partition QOS set by PATCH. */
    private final KnownQos knownQos;

    private NodeMarks.Marks marks() {
        return nodeMarks.read();
    }

    /** The GPU idle threshold of a partition's policy that names none (percent). */
    private final double gpuIdleThreshold;

    ClusterService(ClusterLayout layout, NodeRepository nodes, PartitionRepository partitions,
            ApplicationEventPublisher events, Clock clock, JdbcClient jdbc,
            org.springframework.jdbc.core.JdbcTemplate batch, Audit audit, NodeMarks nodeMarks, KnownQos knownQos,
            @org.springframework.beans.factory.annotation.Value("${gantry.reports.gpu-idle-threshold:5}")
            double gpuIdleThreshold) {
        this.gpuIdleThreshold = gpuIdleThreshold;
        this.nodeMarks = nodeMarks;
        this.knownQos = knownQos;
        this.audit = audit;
        this.jdbc = jdbc;
        this.batch = batch;
        this.layout = layout;
        this.nodes = nodes;
        this.partitions = partitions;
        this.events = events;
        this.clock = clock;
        this.partitionStates = new PartitionStates(() -> PartitionStates.select(jdbc), System::nanoTime);
    }

    /** Slurm's billing TRES of {@code held} in {@code partition}: its TRESBillingWeights. */
    public long billing(String partition, io.gantry.engine.Tres held) {
        ClusterLayout.PartitionSpec p = layout.partitions().get(partition);
        // A partition no longer configured: gantry.fairshare's default weights.
        return (p == null ? ClusterLayout.DEFAULT_BILLING : p.billingWeights()).units(held);
    }

    public ClusterLayout layout() {
        return layout;
    }

    /**
     * The blocks the nodes of {@code hostlist} are in, distinct and in name order; empty for null, for
     * nodes in no block and for names the cluster does not know (a node removed since).
     */
    public List<String> blocksOf(String hostlist) {
        if (hostlist == null || hostlist.isBlank()) {
            return List.of();
        }
        ClusterLayout current = layout;
        java.util.TreeSet<String> blocks = new java.util.TreeSet<>();
        for (String host : io.gantry.engine.Hostlist.parse(hostlist).hosts()) {
            ClusterLayout.NodeSpec node = current.nodes().get(host);
            if (node != null && node.block() != null) {
                blocks.add(node.block());
            }
        }
        return List.copyOf(blocks);
    }

    /** Adds (or reshapes) a node that joined through its agent. */
    synchronized void adopt(ClusterLayout.NodeSpec node) {
        layout = layout.withNode(node);
        nodeGeneration.incrementAndGet();
        engineView = null;
    }

    /**
     * Takes into the layout every node the store says joined through its agent, as the store has it:
     * a controller that followed while agents joined the leader has them only in the store, and a new
     * leader must check submissions and plan with the nodes the cluster has (not only those its own
     * start read). The number of nodes it took or reshaped.
     */
    @Transactional(readOnly = true)
    public int adoptJoinedNodes() {
        int changed = 0;
        for (NodeEntity node : nodes.findAll()) {
            if (!node.joined()) {
                continue;
            }
            ClusterLayout current = layout;
            ClusterLayout.NodeSpec spec = joinedSpec(node, current);
            if (!spec.equals(current.nodes().get(node.name()))) {
                adopt(spec);
                changed++;
            }
        }
        return changed;
    }

    /** A joined node's shape as its row keeps it, in the partitions of {@code layout} it is still in. */
    static ClusterLayout.NodeSpec joinedSpec(NodeEntity node, ClusterLayout layout) {
        List<String> partitionsLeft = node.partitions().stream().filter(layout.partitions()::containsKey).toList();
        return new ClusterLayout.NodeSpec(node.name(), node.cpus(), node.memoryMb(), node.gpus(), node.gpuType(),
                node.features(), false, partitionsLeft, null, null, node.mig(), node.shardsPerGpu());
    }

    /** CPUs, memory and GPUs a job holds on one node. */
    public record NodeUse(String node, int cpus, long memoryMb, int gpus) {
    }

    /**
     * What each schedulable node has free, read from the rows (not cached entities) in the
     * caller's transaction. Only the scheduler adds to allocations, so this can only be an
     * under-estimate while ended jobs give back concurrently: safe to plan starts against.
     */
    @Transactional(propagation = org.springframework.transaction.annotation.Propagation.MANDATORY)
    public Map<String, NodeUse> free() {
        Map<String, NodeUse> free = new HashMap<>();
        jdbc.sql("""
                SELECT name, cpus - alloc_cpus, memory_mb - alloc_memory_mb, gpus - alloc_gpus FROM nodes
                 WHERE admin_state = 'NONE'
                   AND (simulated OR agent_state = 'UP' OR power_state IN ('POWERED_DOWN', 'POWERING_UP'))""")
                .query((rs, i) -> new NodeUse(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getInt(4)))
                .list().forEach(u -> free.put(u.node(), u));
        return free;
    }

    /** Adds to nodes' allocations what the caller has already checked against {@link #free()}, in one batch. */
    @Transactional(propagation = org.springframework.transaction.annotation.Propagation.MANDATORY)
    public void takeChecked(List<NodeUse> uses) {
        Map<String, long[]> totals = totalsByNode(uses);
        List<Object[]> rows = totals.entrySet().stream()
                .map(e -> new Object[] {e.getValue()[0], e.getValue()[1], e.getValue()[2], e.getKey()}).toList();
        batch.batchUpdate("""
                UPDATE nodes SET alloc_cpus = alloc_cpus + ?, alloc_memory_mb = alloc_memory_mb + ?,
                       alloc_gpus = alloc_gpus + ? WHERE name = ?""", rows);
    }

    /**
     * Gives back what an ended job held. Only the scheduler calls this. An atomic update, so that
     * jobs ending while others start on the same node never lose each other's changes.
     */
    @Transactional(propagation = org.springframework.transaction.annotation.Propagation.MANDATORY)
    public void give(List<NodeUse> uses) {
        Map<String, long[]> totals = totalsByNode(uses);
        List<Object[]> rows = totals.entrySet().stream().map(e -> new Object[] {e.getValue()[0], e.getValue()[0],
                e.getValue()[1], e.getValue()[1], e.getValue()[2], e.getValue()[2], e.getKey()}).toList();
        batch.batchUpdate("""
                UPDATE nodes SET
                       alloc_cpus = CASE WHEN alloc_cpus > ? THEN alloc_cpus - ? ELSE 0 END,
                       alloc_memory_mb = CASE WHEN alloc_memory_mb > ? THEN alloc_memory_mb - ? ELSE 0 END,
                       alloc_gpus = CASE WHEN alloc_gpus > ? THEN alloc_gpus - ? ELSE 0 END
                 WHERE name = ?""", rows);
    }

    /** CPUs, memory and GPUs summed per node, in name order (a stable lock order for the updates). */
    private static Map<String, long[]> totalsByNode(List<NodeUse> uses) {
        Map<String, long[]> totals = new java.util.TreeMap<>();
        for (NodeUse use : uses) {
            long[] t = totals.computeIfAbsent(use.node(), n -> new long[3]);
            t[0] += use.cpus();
            t[1] += use.memoryMb();
            t[2] += use.gpus();
        }
        return totals;
    }

    /** Sets every node's allocation counters to what the running jobs hold (at start, from the store's truth). */
    @Transactional(propagation = org.springframework.transaction.annotation.Propagation.MANDATORY)
    public void resetAllocations(List<NodeUse> held) {
        List<NodeEntity> all = nodes.findAll();
        Map<String, NodeEntity> byName = new HashMap<>();
        all.forEach(n -> {
            n.clearAllocations();
            byName.put(n.name(), n);
        });
        for (NodeUse use : held) {
            NodeEntity node = byName.get(use.node());
            if (node != null) {
                node.take(use.cpus(), use.memoryMb(), use.gpus());
            }
        }
    }

    /** Every configured node as the engine sees it, all UP: what "could this ever fit" is asked of. */
    public List<io.gantry.engine.Node> engineShapes() {
        return engineShapes(layout).nodes();
    }

    /**
     * Every configured or joined node as if up, with the partitions of the same layout (naming only
     * those nodes), and the layout they come from: what a submission's feasibility is checked against.
     */
    public EngineLayout engineShapes(ClusterLayout current) {
        List<io.gantry.engine.Node> all = current.nodes().values().stream()
                .sorted(Comparator.comparing(ClusterLayout.NodeSpec::name, Hostlist.HOST_ORDER))
                .map(n -> engineNode(n, io.gantry.engine.NodeState.UP))
                .toList();
        return new EngineLayout(all, enginePartitions(current, current.nodes().keySet(), partitionStates.current()),
                current.preemptType());
    }

    /**
     * Nodes and partitions taken from one layout together: every node a partition names is in the list;
     * with the cluster's PreemptType.
     */
    public record EngineLayout(List<io.gantry.engine.Node> nodes, List<io.gantry.engine.Partition> partitions,
            io.gantry.engine.Preemption.Type preemptType) {

        /** A layout under QOS preemption (preempt/qos). */
        public EngineLayout(List<io.gantry.engine.Node> nodes, List<io.gantry.engine.Partition> partitions) {
            this(nodes, partitions, io.gantry.engine.Preemption.Type.QOS);
        }
    }

    /**
     * The engine's view of the nodes and partitions, kept until a node's state changes (every change
     * publishes a {@link NodeStateChanged}) or one joins: reading 12,500 node rows each cycle cost more
     * than the plan. Both lists are built together from one layout, so a node joining meanwhile never
     * leaves a partition naming a node the list lacks; the same lists each cycle also let the engine
     * reuse its index of them.
     */
    private volatile EngineLayout engineView;
    private final java.util.concurrent.atomic.AtomicLong nodeGeneration = new java.util.concurrent.atomic.AtomicLong();


    @org.springframework.transaction.event.TransactionalEventListener(
            phase = org.springframework.transaction.event.TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    @org.springframework.core.annotation.Order(org.springframework.core.Ordered.HIGHEST_PRECEDENCE)
    void on(NodeStateChanged event) {
        nodeGeneration.incrementAndGet();
        engineView = null;
    }

    /** A partition set UP or not: the engine's partitions are read again. */
    @org.springframework.transaction.event.TransactionalEventListener(
            phase = org.springframework.transaction.event.TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    @org.springframework.core.annotation.Order(org.springframework.core.Ordered.HIGHEST_PRECEDENCE)
    void on(PartitionStateChanged event) {
        partitionStates.changed();
        nodeGeneration.incrementAndGet();
        engineView = null;
    }

    /**
     * Every node as the engine sees it now (DRAIN and DOWN from the store, unheard agents DOWN) and
     * the partitions (one not UP starts nothing), from one layout: a cycle takes both from one call, or
     * a node joining between two calls leaves a partition naming a node the cycle's list lacks.
     */
    @Transactional(readOnly = true)
    public EngineLayout engineLayout() {
        return engineView();
    }

    /** Every node as the engine sees it now; with the partitions, use {@link #engineLayout()}. */
    @Transactional(readOnly = true)
    public List<io.gantry.engine.Node> engineNodes() {
        return engineView().nodes();
    }

    /** Partitions as the engine sees them; with the nodes, use {@link #engineLayout()}. */
    @Transactional(readOnly = true)
    public List<io.gantry.engine.Partition> enginePartitions() {
        return engineView().partitions();
    }

    private EngineLayout engineView() {
        EngineLayout cached = engineView;
        if (cached != null) {
            return cached;
        }
        long generation = nodeGeneration.get();
        ClusterLayout current = layout;
        List<io.gantry.engine.Node> nodes = readEngineNodes(current);
        Set<String> names = new java.util.HashSet<>();
        nodes.forEach(n -> names.add(n.name()));
        EngineLayout view = new EngineLayout(nodes, enginePartitions(current, names, partitionStates.fresh()),
                current.preemptType());
        if (nodeGeneration.get() == generation) {
            engineView = view;
        }
        return view;
    }

    /** Partition states and QOS, one read for submissions and the engine's view alike. */
    private final PartitionStates partitionStates;

    /**
     * Whether a partition refuses new jobs: as in Slurm, one that is DRAIN or INACTIVE does (a DRAIN
     * partition still runs those already queued; DOWN queues them and runs none). The state is at most a
     * second old.
     */
    public boolean refusesJobs(String partition) {
        PartitionState state = stateOf(partition, layout.partitions().get(partition), partitionStates.current());
        return state == PartitionState.DRAIN || state == PartitionState.INACTIVE;
    }

    /** The partition QOS of {@code partition} (null for none), at most a second old. */
    public String partitionQos(String partition) {
        return qosOf(partition, layout.partitions().get(partition), partitionStates.current());
    }

    /** A partition's stored state; the cluster file's for one not stored (yet); null for one neither knows. */
    private static PartitionState stateOf(String name, ClusterLayout.PartitionSpec spec,
            Map<String, PartitionStates.Row> rows) {
        PartitionStates.Row row = rows.get(name);
        return row != null ? row.state() : spec == null ? null : spec.state();
    }

    /** A partition's stored QOS (null: none), as {@link #stateOf} its state. */
    private static String qosOf(String name, ClusterLayout.PartitionSpec spec, Map<String, PartitionStates.Row> rows) {
        PartitionStates.Row row = rows.get(name);
        return row != null ? row.qos() : spec == null ? null : spec.qos();
    }

    /** The layout's partitions naming only nodes in {@code names}, in name order; a DRAIN one still runs its queue. */
    private static List<io.gantry.engine.Partition> enginePartitions(ClusterLayout current, Set<String> names,
            Map<String, PartitionStates.Row> rows) {
        return current.partitions().values().stream()
                .sorted(Comparator.comparing(ClusterLayout.PartitionSpec::name))
                .map(p -> new io.gantry.engine.Partition(p.name(), p.nodes().stream().filter(names::contains).toList(),
                        p.maxTimeSeconds() == null ? 0 : p.maxTimeSeconds(), p.priorityTier(),
                        runs(stateOf(p.name(), p, rows)), p.memoryDefault(), p.preemptMode(), qosOf(p.name(), p, rows),
                        p.billingWeights()))
                .toList();
    }

    private static boolean runs(PartitionState state) {
        return state == PartitionState.UP || state == PartitionState.DRAIN;
    }

    private List<io.gantry.engine.Node> readEngineNodes(ClusterLayout current) {
        return nodes.findAll().stream()
                .filter(n -> current.nodes().containsKey(n.name())) // a node joining this very moment
                .sorted(Comparator.comparing(NodeEntity::name, Hostlist.HOST_ORDER))
                .map(n -> engineNode(current.nodes().get(n.name()), switch (n.state()) {
                    // A powered-down node is usable: its resume program brings it up for the job it is given.
                    case DOWN, UNKNOWN, POWERING_DOWN -> io.gantry.engine.NodeState.DOWN;
                    case DRAINING, DRAINED -> io.gantry.engine.NodeState.DRAIN;
                    default -> io.gantry.engine.NodeState.UP;
                }))
                .toList();
    }

    public List<io.gantry.engine.Switch> engineSwitches() {
        return layout.switches().stream().map(s -> new io.gantry.engine.Switch(s.name(), s.parent())).toList();
    }

    private static io.gantry.engine.Node engineNode(ClusterLayout.NodeSpec n, io.gantry.engine.NodeState state) {
        return new io.gantry.engine.Node(n.name(), n.cpus(), n.memoryMb(), n.gpus(), n.gpuType(),
                Set.copyOf(n.features()), state, n.switchName(), n.block(),
                n.mig().stream().map(ClusterLayout.MigInstance::profile).toList(), n.shardsPerGpu());
    }

    @Transactional(readOnly = true)
    public PageResponse<NodeView> listNodes(String stateFilter, String partitionFilter, PageRequest page) {
        Set<NodeState> states = parseStates(stateFilter);
        if (partitionFilter != null && !partitionFilter.isBlank() && !layout.partitions().containsKey(partitionFilter)) {
            throw GantryException.badRequest("partition", "unknown partition '" + partitionFilter + "'; known: "
                    + String.join(", ", layout.partitions().keySet().stream().sorted().toList()));
        }
        NodeMarks.Marks marks = marks();
        List<NodeView> matching = nodes.findAll().stream()
                .filter(n -> states.contains(n.state()))
                .filter(n -> partitionFilter == null || partitionFilter.isBlank() || n.partitions().contains(partitionFilter))
                .sorted(Comparator.comparing(NodeEntity::name, Hostlist.HOST_ORDER))
                .map(n -> view(n, marks))
                .toList();
        return PageResponse.of(matching, page, v -> v);
    }

    @Transactional(readOnly = true)
    public NodeView node(String name) {
        return view(find(name), marks());
    }

    @Transactional
    public NodeView updateNode(String name, NodeUpdate update, Actor actor) {
        NodeEntity node = find(name);
        return apply(node, NodeChange.of(update), actor, marks());
    }

    /** A node update's state and reason, checked before any node is looked at. */
    private record NodeChange(String state, String reason) {

        static NodeChange of(NodeUpdate update) {
            if (update == null || update.state() == null || update.state().isBlank()) {
                throw GantryException.badRequest("state", "is required: one of DRAIN, RESUME, DOWN");
            }
            String reason = update.reason() == null ? null : update.reason().strip();
            if (reason != null && reason.length() > MAX_REASON) {
                throw GantryException.badRequest("reason", "must be at most " + MAX_REASON + " characters");
            }
            String state = update.state().toUpperCase(Locale.ROOT);
            switch (state) {
                case "DRAIN", "DOWN" -> requireReason(reason, state);
                case "RESUME" -> { }
                default -> throw GantryException.badRequest("state",
                        "'" + update.state() + "' is not one of DRAIN, RESUME, DOWN");
            }
            return new NodeChange(state, reason);
        }
    }

    private NodeView apply(NodeEntity node, NodeChange change, Actor actor, NodeMarks.Marks marks) {
        String name = node.name();
        NodeView before = view(node, marks);
        switch (change.state()) {
            case "DRAIN" -> node.setAdminState(AdminState.DRAIN, change.reason(), actor.username(), clock.instant());
            case "DOWN" -> node.setAdminState(AdminState.DOWN, change.reason(), actor.username(), clock.instant());
            default -> {
                if (node.awaitingApproval()) {
                    throw GantryException.conflict("Node '" + name + "' joined unannounced and is awaiting approval; "
                            + "an ADMIN lets it in with POST /api/v1/agents/" + name + "/approve");
                }
                if (node.adminState() == AdminState.NONE) {
                    throw GantryException.conflict("Node '" + name + "' is " + node.state()
                            + "; only a drained, draining or down node can be resumed");
                }
                node.setAdminState(AdminState.NONE, null, null, null);
            }
        }
        NodeView view = view(nodes.saveAndFlush(node), marks);
        audit.record(actor, AuditAction.UPDATE, AuditEntity.NODE, name, before, view);
        events.publishEvent(new NodeStateChanged(view.name(), view.state(), view.reason()));
        return view;
    }

    /** The most nodes one {@link #updateNodes} names. */
    static final int MAX_BULK_NODES = 100_000;

    /**
     * Drains, resumes or downs every node of a hostlist, all or nothing: the names are all checked
     * first (every unknown one is named), and a node that cannot take the change (resuming one that is
     * not drained) rolls the others back with it. Each node is audited as by {@link #updateNode}.
     */
    @Transactional
    public NodesUpdated updateNodes(NodesUpdate update, Actor actor) {
        if (update == null || update.nodes() == null || update.nodes().isBlank()) {
            throw GantryException.badRequest("nodes", "is required: a hostlist such as node[01-04]");
        }
        Hostlist hosts;
        try {
            hosts = Hostlist.parse(update.nodes().strip(), MAX_BULK_NODES);
        } catch (HostlistException e) {
            throw GantryException.badRequest("nodes", e.getMessage());
        }
        NodeChange change = NodeChange.of(new NodeUpdate(update.state(), update.reason()));
        List<String> names = hosts.hosts().stream().distinct().toList();
        // Names first, from one scan of the node names: a hostlist may name up to 100,000 hosts, and looking
        // them up by key would bind that many parameters (PostgreSQL takes at most 32,767 in a statement).
        Set<String> existing = new java.util.HashSet<>(jdbc.sql("SELECT name FROM nodes").query(String.class).list());
        List<String> unknown = names.stream().filter(n -> !existing.contains(n)).toList();
        if (!unknown.isEmpty()) {
            throw new GantryException(io.gantry.api.ProblemType.NOT_FOUND, (unknown.size() == 1 ? "Node '" : "Nodes '")
                    + Hostlist.of(unknown).compressed() + (unknown.size() == 1 ? "' does" : "' do") + " not exist; "
                    + "no node was changed", List.of(new GantryException.FieldError("nodes",
                            "unknown: " + Hostlist.of(unknown).compressed())));
        }
        Map<String, NodeEntity> known = new HashMap<>();
        for (int from = 0; from < names.size(); from += 1000) {
            nodes.findAllById(names.subList(from, Math.min(names.size(), from + 1000)))
                    .forEach(n -> known.put(n.name(), n));
        }
        NodeMarks.Marks marks = marks();
        List<NodeView> changed = new ArrayList<>(names.size());
        for (String name : names) {
            changed.add(apply(known.get(name), change, actor, marks));
        }
        return new NodesUpdated(Hostlist.of(names).compressed(), changed.size(), changed);
    }

    @Transactional(readOnly = true)
    public List<PartitionView> listPartitions() {
        return partitions.findAll().stream()
                .sorted(Comparator.comparing(PartitionEntity::name))
                .map(p -> partitionView(p))
                .toList();
    }

    @Transactional(readOnly = true)
    public PartitionView partition(String name) {
        return partitions.findById(name).map(this::partitionView)
                .orElseThrow(() -> GantryException.notFound("Partition", name));
    }

    /**
     * Sets a partition's state and/or QOS (scontrol update PartitionName=... State= QOS=), kept in the store. As in Slurm, the
     * engine runs jobs in an UP or DRAIN partition, and submissions to a DRAIN or INACTIVE one are refused.
     */
    @Transactional
    public PartitionView updatePartition(String name, PartitionUpdate update, Actor actor) {
        PartitionEntity partition = partitions.findById(name)
                .orElseThrow(() -> GantryException.notFound("Partition", name));
        if (update == null || (update.qos() == null && (update.state() == null || update.state().isBlank()))) {
            throw GantryException.badRequest("state", "is required unless qos is given: one of " + PARTITION_STATES);
        }
        PartitionState state = partition.state();
        if (update.state() != null) {
            try {
                state = PartitionState.valueOf(update.state().strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw GantryException.badRequest("state", "'" + update.state() + "' is not one of " + PARTITION_STATES);
            }
        }
        String qos = update.qos() == null ? partition.qos() : update.qos().strip();
        if (update.qos() != null && !qos.isEmpty() && !knownQos.qosNames().contains(qos)) {
            throw GantryException.badRequest("qos", "unknown QOS '" + qos + "'; known: "
                    + String.join(", ", knownQos.qosNames()) + " (\"\" clears the partition QOS)");
        }
        PartitionView before = partitionView(partition);
        partition.setState(state);
        partition.setQos(qos == null || qos.isEmpty() ? null : qos);
        PartitionView after = partitionView(partitions.saveAndFlush(partition));
        audit.record(actor, AuditAction.UPDATE, AuditEntity.PARTITION, name, before, after);
        events.publishEvent(new PartitionStateChanged(name, state));
        return after;
    }

    public TopologyView topology() {
        List<SwitchView> switches = layout.switches().stream()
                .map(s -> new SwitchView(s.name(), s.parent(), s.hostlist(), !s.nodes().isEmpty()))
                .toList();
        List<BlockView> blocks = layout.blocks().stream().map(b -> new BlockView(b.name(), b.hostlist())).toList();
        return new TopologyView(switches, blocks, layout.blockSizes(), layout.baseBlockSize());
    }

    private PartitionView partitionView(PartitionEntity entity) {
        ClusterLayout.PartitionSpec spec = layout.partitions().get(entity.name());
        long cpus = 0;
        long gpus = 0;
        for (String node : spec.nodes()) {
            ClusterLayout.NodeSpec n = layout.nodes().get(node);
            cpus += n.cpus();
            gpus += n.gpus();
        }
        return new PartitionView(spec.name(), spec.hostlist(), spec.nodes().size(), cpus, gpus, entity.state(),
                spec.isDefault(), spec.defaultTimeSeconds(), spec.maxTimeSeconds(), spec.priorityTier(),
                spec.defaultMemPerCpuMb(), spec.defaultMemPerNodeMb(), spec.gpuIdle() == null ? null
                        : spec.gpuIdle().withThreshold(spec.gpuIdle().threshold(gpuIdleThreshold)),
                spec.preemptMode().name(), entity.qos(), spec.billingWeights().toString());
    }

    private NodeEntity find(String name) {
        return nodes.findById(name).orElseThrow(() -> GantryException.notFound("Node", name));
    }

    private static String requireReason(String reason, String state) {
        if (reason == null || reason.isEmpty()) {
            throw GantryException.badRequest("reason", "is required to set a node " + state
                    + " (say why, e.g. \"bad DIMM, ticket 123\")");
        }
        return reason;
    }

    private static Set<NodeState> parseStates(String filter) {
        if (filter == null || filter.isBlank()) {
            return EnumSet.allOf(NodeState.class);
        }
        List<NodeState> states = new ArrayList<>();
        for (String part : filter.split(",")) {
            try {
                states.add(NodeState.valueOf(part.strip().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw GantryException.badRequest("state", "'" + part.strip() + "' is not a node state; use "
                        + Arrays.toString(NodeState.values()));
            }
        }
        return EnumSet.copyOf(states);
    }

    static NodeView view(NodeEntity n) {
        return view(n, NodeMarks.Marks.NONE);
    }

    static NodeView view(NodeEntity n, NodeMarks.Marks marks) {
        NodeMarks.Upcoming maintenance = marks.maintenance().get(n.name());
        return new NodeView(n.name(), n.state(), n.reason(), n.reasonUser(), n.reasonTime(), n.cpus(), n.memoryMb(),
                n.gpus(), n.gpuType(), n.features(), n.allocCpus(), n.allocMemoryMb(), n.allocGpus(), n.partitions(),
                n.switchName(), n.blockName(), n.simulated(), n.lastHeartbeat(), n.mig(), n.shardsPerGpu(),
                marks.reservation().get(n.name()), maintenance == null ? null : maintenance.name(),
                maintenance == null ? null : maintenance.start(), marks.failures().get(n.name()));
    }
}
