package io.gantry.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The partition QOS in the store: a PATCH survives restarts until the cluster file's qos for the partition
 * changes, and a file naming a QOS that does not exist stops the start naming it.
 */
class PartitionQosStoreTests {

    @Test
    void aPatchedQosStaysAcrossRestartsUntilTheFilesQosChanges() {
        PartitionEntity gpu = new PartitionEntity("gpu", PartitionState.UP);
        gpu.applyConfiguredQos("from-file");
        assertThat(gpu.qos()).isEqualTo("from-file");

        gpu.setQos("patched");
        gpu.applyConfiguredQos("from-file"); // a restart with the same file
        assertThat(gpu.qos()).isEqualTo("patched");

        gpu.applyConfiguredQos("edited"); // the file changed: it wins
        assertThat(gpu.qos()).isEqualTo("edited");
        gpu.applyConfiguredQos(null); // and its qos was removed
        assertThat(gpu.qos()).isNull();
    }

    @Test
    void aClusterFileNamingAnUnknownQosStopsTheStartNamingItAndWritesNothing() {
        ClusterLayout layout = new ClusterLayout("c", Map.of(), Map.of("gpu", new ClusterLayout.PartitionSpec("gpu",
                List.of(), false, null, null, 0, PartitionState.UP, null, null, null, null, "gpu-part")), List.of(),
                List.of());
        NodeRepository nodes = mock(NodeRepository.class);
        PartitionRepository partitions = mock(PartitionRepository.class);
        when(nodes.findAll()).thenReturn(List.of());
        when(partitions.findAll()).thenReturn(List.of());
        ClusterStoreSynchronizer sync = new ClusterStoreSynchronizer(layout, nodes, partitions,
                new TransactionTemplate(mock(PlatformTransactionManager.class)), mock(ClusterService.class),
                () -> List.of("normal", "scavenger"));

        assertThatThrownBy(sync::afterSingletonsInstantiated).isInstanceOf(ClusterConfigException.class)
                .hasMessageContaining("partitions[*].qos: partition 'gpu' names unknown QOS 'gpu-part'; known: "
                        + "normal, scavenger");
        verify(partitions, never()).save(org.mockito.ArgumentMatchers.any());
    }
}
