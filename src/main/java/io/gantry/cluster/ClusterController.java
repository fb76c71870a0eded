package io.gantry.cluster;

import java.util.List;

import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import io.gantry.audit.Actor;
import io.gantry.cluster.ClusterViews.NodeUpdate;
import io.gantry.cluster.ClusterViews.NodeView;
import io.gantry.cluster.ClusterViews.NodesUpdate;
import io.gantry.cluster.ClusterViews.NodesUpdated;
import io.gantry.cluster.ClusterViews.PartitionUpdate;
import io.gantry.cluster.ClusterViews.PartitionView;
import io.gantry.cluster.ClusterViews.TopologyView;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;

@RestController
@RequestMapping("/api/v1")
class ClusterController {

    private final ClusterService cluster;

    ClusterController(ClusterService cluster) {
        this.cluster = cluster;
    }

    @Tag(name = "nodes")
    @Operation(operationId = "listNodes", summary = "List nodes, like sinfo -N")
    @GetMapping("/nodes")
    PageResponse<NodeView> listNodes(
            @Parameter(description = "Comma list of node states, e.g. IDLE,MIXED") @RequestParam(required = false) String state,
            @Parameter(description = "Only nodes of this partition") @RequestParam(required = false) String partition,
            @RequestParam(required = false) Integer page, @RequestParam(required = false) Integer size) {
        return cluster.listNodes(state, partition, PageRequest.of(page, size));
    }

    @Tag(name = "nodes")
    @Operation(operationId = "getNode", summary = "One node, like scontrol show node")
    @GetMapping("/nodes/{name}")
    NodeView getNode(@PathVariable String name) {
        return cluster.node(name);
    }

    @Tag(name = "nodes")
    @Operation(operationId = "updateNode", summary = "Drain, resume or down a node (OPERATOR)")
    @PreAuthorize("hasRole('OPERATOR')")
    @PatchMapping("/nodes/{name}")
    NodeView updateNode(@PathVariable String name, @jakarta.validation.Valid @RequestBody NodeUpdate update, CurrentUser caller) {
        return cluster.updateNode(name, update, Actor.staff(caller.username(), caller.isAdmin()));
    }

    @Tag(name = "nodes")
    @Operation(operationId = "updateNodes", summary = "Drain, resume or down every node of a hostlist, all or nothing, "
            + "like scontrol update NodeName=node[01-04] State=DRAIN Reason=... (OPERATOR)",
            description = "Every name is checked first: an unknown one is a 404 naming it, and a node that cannot "
                    + "take the change (resuming one that is not drained) is a 409; in both cases no node is changed. "
                    + "Each node changed is audited as by PATCH /nodes/{name}.")
    @PreAuthorize("hasRole('OPERATOR')")
    @PostMapping("/nodes/update")
    NodesUpdated updateNodes(@jakarta.validation.Valid @RequestBody NodesUpdate update, CurrentUser caller) {
        return cluster.updateNodes(update, Actor.staff(caller.username(), caller.isAdmin()));
    }

    @Tag(name = "partitions")
    @Operation(operationId = "listPartitions", summary = "List partitions, like sinfo -s")
    @GetMapping("/partitions")
    PageResponse<PartitionView> listPartitions(@RequestParam(required = false) Integer page,
            @RequestParam(required = false) Integer size) {
        List<PartitionView> all = cluster.listPartitions();
        return PageResponse.of(all, PageRequest.of(page, size), p -> p);
    }

    @Tag(name = "partitions")
    @Operation(operationId = "getPartition", summary = "One partition, like scontrol show partition")
    @GetMapping("/partitions/{name}")
    PartitionView getPartition(@PathVariable String name) {
        return cluster.partition(name);
    }

    @Tag(name = "partitions")
    @Operation(operationId = "updatePartition", summary = "Set a partition UP, DOWN, DRAIN or INACTIVE, like scontrol "
            + "update PartitionName=... State= (ADMIN)")
    @PreAuthorize("hasRole('ADMIN')")
    @PatchMapping("/partitions/{name}")
    PartitionView updatePartition(@PathVariable String name,
            @jakarta.validation.Valid @RequestBody PartitionUpdate update, CurrentUser caller) {
        return cluster.updatePartition(name, update, Actor.staff(caller.username(), caller.isAdmin()));
    }

    @Tag(name = "topology")
    @Operation(operationId = "getTopology", summary = "The switch tree and blocks, like topology.conf")
    @GetMapping("/topology")
    TopologyView getTopology() {
        return cluster.topology();
    }
}
