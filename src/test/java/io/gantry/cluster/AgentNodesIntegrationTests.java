package io.gantry.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.gantry.support.OwnDatabase;

/**
 * A registration is all or nothing: a node an agent joins reaches the layout in memory only once its
 * row is committed, so one the store refuses, or whose transaction rolls back, leaves no node in
 * memory that the store does not have (before, such a "ghost" made every later registration of its
 * name fail, and its partition showed it). On a database of its own: the node it joins stays, and would
 * change the demo cluster the other classes share (ClusterIntegrationTests counts its nodes).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("postgres")
@DirtiesContext
class AgentNodesIntegrationTests {

    private static final String DATABASE = "gantry_agent_nodes_it_" + ProcessHandle.current().pid();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        OwnDatabase.register(registry, DATABASE);
    }

    @Autowired
    AgentNodes nodes;
    @Autowired
    ClusterService cluster;
    @Autowired
    NodeRepository rows;
    @Autowired
    PlatformTransactionManager transactions;

    @Test
    void aJoinTheStoreRefusesLeavesNoNodeInMemoryAndTheNameJoinsAfterwards() {
        String name = "ghost-" + UUID.randomUUID().toString().substring(0, 8);
        String partition = cluster.layout().partitions().keySet().iterator().next();
        // Past the store's 64 characters: the write fails after the node's shape was worked out.
        AgentNodes.Resources tooLong = new AgentNodes.Resources(2, 2000, 1, "g".repeat(200), List.of());
        assertThatThrownBy(() -> nodes.register(name, tooLong, "hash-" + name, List.of(partition), false,
                Instant.now())).isNotNull();
        assertThat(cluster.layout().nodes()).doesNotContainKey(name);
        assertThat(cluster.layout().partitions().get(partition).nodes()).doesNotContain(name);
        assertThat(rows.findById(name)).isEmpty();

        AgentNodes.Resources sane = new AgentNodes.Resources(2, 2000, 1, "test", List.of());
        AgentNodes.Registered joined = nodes.register(name, sane, "hash-" + name, List.of(partition), false,
                Instant.now());
        assertThat(joined.node()).isEqualTo(name);
        assertThat(cluster.layout().nodes()).containsKey(name);
        assertThat(cluster.layout().partitions().get(partition).nodes()).contains(name);
    }

    @Test
    void aJoinWhoseTransactionRollsBackLeavesNoNodeInMemory() {
        String name = "rolled-" + UUID.randomUUID().toString().substring(0, 8);
        String partition = cluster.layout().partitions().keySet().iterator().next();
        new TransactionTemplate(transactions).executeWithoutResult(status -> {
            nodes.register(name, new AgentNodes.Resources(2, 2000, 0, null, List.of()), "hash-" + name,
                    List.of(partition), false, Instant.now());
            status.setRollbackOnly();
        });
        assertThat(cluster.layout().nodes()).doesNotContainKey(name);
        assertThat(rows.findById(name)).isEmpty();
    }
}
