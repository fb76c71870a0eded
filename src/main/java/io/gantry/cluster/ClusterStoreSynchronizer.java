package io.gantry.cluster;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Brings the store's nodes and partitions in line with the configuration before the controller
 * serves requests: configuration wins for shape, the store keeps states and reasons.
 */
@Component
class ClusterStoreSynchronizer implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(ClusterStoreSynchronizer.class);

    private final ClusterLayout layout;
    private final NodeRepository nodes;
    private final PartitionRepository partitions;
    private final TransactionTemplate transaction;
    private final ClusterService cluster;
    private final KnownQos knownQos;

    ClusterStoreSynchronizer(ClusterLayout layout, NodeRepository nodes, PartitionRepository partitions,
            TransactionTemplate transaction, ClusterService cluster, KnownQos knownQos) {
        this.knownQos = knownQos;
        this.cluster = cluster;
        this.layout = layout;
        this.nodes = nodes;
        this.partitions = partitions;
        this.transaction = transaction;
    }

    @Override
    public void afterSingletonsInstantiated() {
        transaction.executeWithoutResult(status -> synchronize());
    }

    private void synchronize() {
        Map<String, NodeEntity> stored = nodes.findAll().stream()
                .collect(Collectors.toMap(NodeEntity::name, Function.identity()));
        Set<String> removed = new HashSet<>(stored.keySet());
        removed.removeAll(layout.nodes().keySet());
        int joined = 0;
        for (NodeEntity node : stored.values()) {
            // Nodes that joined through their agents stay, in the partitions that still exist.
            if (node.joined() && removed.remove(node.name())) {
                ClusterLayout.NodeSpec spec = ClusterService.joinedSpec(node, layout);
                node.applyJoinedShape(spec);
                cluster.adopt(spec);
                joined++;
            }
        }
        for (ClusterLayout.NodeSpec spec : layout.nodes().values()) {
            NodeEntity node = stored.getOrDefault(spec.name(), new NodeEntity(spec.name()));
            node.applyShape(spec);
            nodes.save(node);
        }
        nodes.deleteAllById(removed);

        Map<String, PartitionEntity> storedPartitions = partitions.findAll().stream()
                .collect(Collectors.toMap(PartitionEntity::name, Function.identity()));
        Set<String> removedPartitions = new HashSet<>(storedPartitions.keySet());
        removedPartitions.removeAll(layout.partitions().keySet());
        List<String> qosNames = knownQos.qosNames();
        List<String> unknown = new java.util.ArrayList<>();
        for (ClusterLayout.PartitionSpec spec : layout.partitions().values()) {
            if (spec.qos() != null && !qosNames.contains(spec.qos())) {
                unknown.add("gantry.cluster.partitions[*].qos: partition '" + spec.name() + "' names unknown QOS '"
                        + spec.qos()
                        + "'; known: " + String.join(", ", qosNames) + " (create it first, e.g. sacctmgr add qos "
                        + spec.qos() + ")");
            }
        }
        if (!unknown.isEmpty()) {
            throw new ClusterConfigException(unknown);
        }
        for (ClusterLayout.PartitionSpec spec : layout.partitions().values()) {
            PartitionEntity partition = storedPartitions.getOrDefault(spec.name(),
                    new PartitionEntity(spec.name(), spec.state()));
            partition.applyShape(spec);
            partition.applyConfiguredQos(spec.qos());
            partitions.save(partition);
        }
        partitions.deleteAllById(removedPartitions);
        log.info("Cluster '{}': {} nodes, {} joined through their agents, {} partitions ({} nodes and {} partitions "
                + "no longer configured removed)", layout.name(), layout.nodes().size(), joined,
                layout.partitions().size(), removed.size(), removedPartitions.size());
    }
}
