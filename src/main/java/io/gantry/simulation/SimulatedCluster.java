package io.gantry.simulation;

import io.gantry.engine.Node;
import io.gantry.engine.NodeState;
import io.gantry.engine.Partition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** A homogeneous cluster for replays: {@code nodes} nodes named n001..., one partition "batch". */
record SimulatedCluster(List<Node> nodes, List<Partition> partitions, int cpusPerNode, int gpusPerNode) {

    static SimulatedCluster of(int nodeCount, int cpusPerNode, int gpusPerNode) {
        if (nodeCount <= 0 || cpusPerNode <= 0 || gpusPerNode < 0) {
            throw new IllegalArgumentException("nodes and CPUs per node must be positive");
        }
        int width = Math.max(3, String.valueOf(nodeCount).length());
        List<Node> nodes = new ArrayList<>(nodeCount);
        for (int i = 1; i <= nodeCount; i++) {
            nodes.add(new Node(String.format("n%0" + width + "d", i), cpusPerNode, 0, gpusPerNode,
                    gpusPerNode > 0 ? "gpu" : null, Set.of(), NodeState.UP, null, null));
        }
        List<Node> frozen = List.copyOf(nodes);
        List<Partition> parts = List.of(new Partition("batch", frozen.stream().map(Node::name).toList(), 0, 0, true));
        return new SimulatedCluster(frozen, parts, cpusPerNode, gpusPerNode);
    }

    /** What the simulator counts as processors: GPUs when nodes have them, else CPUs. */
    long totalProcs() {
        return (long) nodes.size() * (gpusPerNode > 0 ? gpusPerNode : cpusPerNode);
    }
}
