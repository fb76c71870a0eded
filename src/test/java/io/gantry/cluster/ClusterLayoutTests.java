package io.gantry.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import io.gantry.engine.Partition;
import io.gantry.engine.Preemption;

import org.junit.jupiter.api.Test;

import io.gantry.cluster.ClusterProperties.BlockConfig;
import io.gantry.cluster.ClusterProperties.NodeSet;
import io.gantry.cluster.ClusterProperties.PartitionConfig;
import io.gantry.cluster.ClusterProperties.SwitchConfig;

class ClusterLayoutTests {

    @Test
    void aValidClusterGivesEachNodeItsPartitionsSwitchAndBlock() {
        ClusterLayout layout = ClusterLayout.from(config().build());

        assertThat(layout.nodes()).hasSize(6);
        ClusterLayout.NodeSpec gpu3 = layout.nodes().get("gpu03");
        assertThat(gpu3.partitions()).containsExactly("gpu", "all");
        assertThat(gpu3.switchName()).isEqualTo("leaf2");
        assertThat(gpu3.block()).isEqualTo("b1");
        assertThat(gpu3.gpuType()).isEqualTo("h100");
        assertThat(layout.partitions().get("gpu").maxTimeSeconds()).isEqualTo(2 * 86400L);
        assertThat(layout.partitions().get("gpu").defaultTimeSeconds()).isEqualTo(3600L);
        assertThat(layout.partitions().get("all").maxTimeSeconds()).as("UNLIMITED").isNull();
        assertThat(layout.defaultPartition().name()).isEqualTo("gpu");
        assertThat(layout.partitions().get("gpu").hostlist()).isEqualTo("gpu[01-04]");
    }

    @Test
    void blockSizesDefaultToTheSmallestBlockDoubledUpToAllBlocks() {
        ClusterLayout layout = ClusterLayout.from(config().build());

        assertThat(layout.blockSizes()).as("b1 has 4 nodes, b2 has 2").containsExactly(2, 4);
        assertThat(layout.baseBlockSize()).isEqualTo(2);
    }

    @Test
    void configuredBlockSizesAreKeptWithTheSmallestAsBaseSize() {
        Fixture fixture = config();
        fixture.blockSizes.addAll(List.of(1, 2));

        ClusterLayout layout = ClusterLayout.from(fixture.build());

        assertThat(layout.blockSizes()).containsExactly(1, 2);
        assertThat(layout.baseBlockSize()).isEqualTo(1);
    }

    @Test
    void aBaseBlockSizeAboveABlocksNodeCountStopsStartUpNamingTheBlock() {
        Fixture fixture = config();
        fixture.blockSizes.add(3);

        assertProblem(fixture, "gantry.cluster.block-sizes[0]: the base block size 3 is more than block 'b2' has "
                + "(2 nodes)");
    }

    @Test
    void blockSizesThatAreNotPowerOfTwoAggregatesStopStartUp() {
        Fixture fixture = config();
        fixture.blockSizes.addAll(List.of(1, 3));

        assertProblem(fixture, "gantry.cluster.block-sizes[1]: 3 must be a power of two (2, 4, 8, ...) times the "
                + "size before it, 1");
    }

    @Test
    void blockSizesWithoutBlocksOrBeyondAllBlocksStopStartUp() {
        Fixture beyond = config();
        beyond.blockSizes.addAll(List.of(2, 8));
        assertProblem(beyond, "gantry.cluster.block-sizes[1]: 8 is more than all 2 blocks give at the base size (4)");

        Fixture none = config();
        none.blocks.clear();
        none.blockSizes.add(2);
        assertProblem(none, "gantry.cluster.block-sizes: [2] given, but gantry.cluster.blocks names no block");

        Fixture zero = config();
        zero.blockSizes.add(0);
        assertProblem(zero, "gantry.cluster.block-sizes[0]: 0 is not a positive node count");
    }

    @Test
    void aNodeInNoPartitionStopsStartUpNamingTheNode() {
        Fixture fixture = config();
        fixture.nodes.add(new NodeSet("spare1", 8, 1000, 0, null, List.of(), true));

        assertProblem(fixture, "gantry.cluster.nodes: node 'spare1' is in no partition");
    }

    @Test
    void anUnknownNodeInASwitchStopsStartUpNamingTheKey() {
        Fixture fixture = config();
        fixture.switches.set(1, new SwitchConfig("leaf1", "spine", "gpu[01-02],gpu99"));

        assertProblem(fixture, "gantry.cluster.switches[1].nodes: unknown node 'gpu99'");
    }

    @Test
    void anUnknownNodeInAPartitionOrBlockStopsStartUp() {
        Fixture fixture = config();
        fixture.partitions.set(1, new PartitionConfig("cpu", "cpu[1-3]", false, null, null, 1, "UP", null, null));
        fixture.blocks.set(0, new BlockConfig("b1", "gpu[01-05]"));

        assertProblem(fixture, "gantry.cluster.partitions[1].nodes: unknown node 'cpu3'");
        assertProblem(fixture, "gantry.cluster.blocks[0].nodes: unknown node 'gpu05'");
    }

    @Test
    void duplicateNamesStopStartUp() {
        Fixture fixture = config();
        fixture.nodes.add(new NodeSet("gpu04", 8, 1000, 0, null, List.of(), true));
        fixture.partitions.add(new PartitionConfig("cpu", "cpu1", false, null, null, 1, "UP", null, null));
        fixture.switches.add(new SwitchConfig("leaf2", "spine", null));
        fixture.blocks.add(new BlockConfig("b1", "gpu01"));

        assertProblem(fixture, "gantry.cluster.nodes[2].names: duplicate node name 'gpu04'");
        assertProblem(fixture, "gantry.cluster.partitions[3].name: duplicate partition name 'cpu'");
        assertProblem(fixture, "gantry.cluster.switches[3].name: duplicate switch name 'leaf2'");
        assertProblem(fixture, "gantry.cluster.blocks[2].name: duplicate block name 'b1'");
    }

    @Test
    void aCycleInTheSwitchTreeStopsStartUp() {
        Fixture fixture = config();
        fixture.switches.set(0, new SwitchConfig("spine", "core", null));
        fixture.switches.add(new SwitchConfig("core", "spine", null));

        assertProblem(fixture, "the switch tree has a cycle");
    }

    @Test
    void anUnknownParentSwitchStopsStartUp() {
        Fixture fixture = config();
        fixture.switches.set(1, new SwitchConfig("leaf1", "nowhere", "gpu[01-02]"));

        assertProblem(fixture, "gantry.cluster.switches[1].parent: unknown switch 'nowhere'");
    }

    @Test
    void aNodeUnderTwoSwitchesOrInTwoBlocksStopsStartUp() {
        Fixture fixture = config();
        fixture.switches.set(2, new SwitchConfig("leaf2", "spine", "gpu[02-04]"));
        fixture.blocks.set(1, new BlockConfig("b2", "gpu[02-04]"));

        assertProblem(fixture, "gantry.cluster.switches[2].nodes: node 'gpu02' is already under switch 'leaf1'");
        assertProblem(fixture, "gantry.cluster.blocks[1].nodes: node 'gpu03' is already in block 'b1'");
    }

    @Test
    void aMalformedHostlistIsReportedWithItsKeyAndPosition() {
        Fixture fixture = config();
        fixture.nodes.set(1, new NodeSet("cpu[1-2", 8, 1000, 0, null, List.of(), true));

        assertProblem(fixture, "gantry.cluster.nodes[1].names:");
    }

    @Test
    void badTimesAndTwoDefaultPartitionsAreReported() {
        Fixture fixture = config();
        fixture.partitions.set(1, new PartitionConfig("cpu", "cpu[1-2]", true, "3-00:00:00", "1-00:00:00", 1, "UP", null, null));
        fixture.partitions.set(2, new PartitionConfig("all", "gpu[01-04],cpu[1-2]", false, null, "forever", 0, "SIDEWAYS", null, null));

        assertProblem(fixture, "gantry.cluster.partitions[1].default-time: 3-00:00:00 is longer than max-time");
        assertProblem(fixture, "gantry.cluster.partitions[2].max-time:");
        assertProblem(fixture, "gantry.cluster.partitions[2].state: 'SIDEWAYS' is not one of");
        assertProblem(fixture, "2 partitions are marked default");
    }

    @Test
    void aPartitionGivesItsDefaultMemoryPerCpuOrPerNodeNotBothAndAtLeastOneMegabyte() {
        Fixture fixture = config();
        fixture.partitions.set(1, new PartitionConfig("cpu", "cpu[1-2]", false, null, null, 1, "UP", 1000L, 8000L));
        fixture.partitions.set(2, new PartitionConfig("all", "gpu[01-04],cpu[1-2]", false, null, null, 0, "UP", 0L, null));

        assertProblem(fixture, "gantry.cluster.partitions[1].default-mem-per-cpu: give default-mem-per-cpu or "
                + "default-mem-per-node, not both");
        assertProblem(fixture, "gantry.cluster.partitions[2].default-mem-per-cpu: must be at least 1 (MB), was 0");
    }

    @Test
    void aPartitionWithoutAMemoryDefaultGivesTheWholeNode() {
        Fixture fixture = config();
        fixture.partitions.set(1, new PartitionConfig("cpu", "cpu[1-2]", false, null, null, 1, "UP", 1000L, null));

        ClusterLayout layout = ClusterLayout.from(fixture.build());
        assertThat(layout.partitions().get("cpu").memoryDefault()).isEqualTo(io.gantry.engine.MemoryDefault.perCpu(1000));
        assertThat(layout.partitions().get("gpu").memoryDefault()).isEqualTo(io.gantry.engine.MemoryDefault.WHOLE_NODE);
    }

    @Test
    void nonsensicalNodeResourcesAreReported() {
        Fixture fixture = config();
        fixture.nodes.set(1, new NodeSet("cpu[1-2]", 0, -1, -2, null, List.of(), true));

        assertProblem(fixture, "gantry.cluster.nodes[1].cpus: must be at least 1");
        assertProblem(fixture, "gantry.cluster.nodes[1].memory-mb: must be at least 1");
        assertProblem(fixture, "gantry.cluster.nodes[1].gpus: must be 0 or more");
    }

    @Test
    void allProblemsAreReportedAtOnce() {
        Fixture fixture = config();
        fixture.nodes.add(new NodeSet("spare1", 8, 1000, 0, null, List.of(), true));
        fixture.switches.set(1, new SwitchConfig("leaf1", "spine", "gpu99"));

        assertThatThrownBy(() -> ClusterLayout.from(fixture.build()))
                .isInstanceOfSatisfying(ClusterConfigException.class, e -> assertThat(e.problems()).hasSize(2));
    }

    private static void assertProblem(Fixture fixture, String expected) {
        assertThatThrownBy(() -> ClusterLayout.from(fixture.build()))
                .isInstanceOfSatisfying(ClusterConfigException.class,
                        e -> assertThat(e.problems()).anySatisfy(p -> assertThat(p).contains(expected)));
    }

    @Test
    void migInstancesAndShardsAreReadFromTheNodeSetAndWorthTheirPartOfAGpu() {
        Fixture fixture = config();
        fixture.nodes.set(1, new NodeSet("cpu[1-2]", 32, 128000, 2, "a100", List.of(), true,
                "gpu:1g.10gb:2,3g.40gb:1", 8));
        ClusterLayout.NodeSpec cpu1 = ClusterLayout.from(fixture.build()).nodes().get("cpu1");
        assertThat(cpu1.mig()).extracting(ClusterLayout.MigInstance::profile)
                .containsExactly("1g.10gb", "1g.10gb", "3g.40gb");
        assertThat(cpu1.shardsPerGpu()).isEqualTo(8);
        assertThat(cpu1.gpuMillis(List.of(2), 0)).isEqualTo(429);
        assertThat(cpu1.gpuMillis(List.of(0), 0)).isEqualTo(143);
        assertThat(cpu1.gpuMillis(List.of(), 2)).isEqualTo(250);
    }

    @Test
    void aMigListThatIsNotProfilesWithCountsOrShardsWithoutGpusStopStartUp() {
        Fixture fixture = config();
        fixture.nodes.set(1, new NodeSet("cpu[1-2]", 32, 128000, 0, null, List.of(), true, "a100:7", 4));
        assertProblem(fixture, "gantry.cluster.nodes[1].mig: 'a100:7' is not a MIG profile with a count, such as "
                + "1g.10gb:7");
        assertProblem(fixture, "gantry.cluster.nodes[1].shards-per-gpu: must be 0 to 1024, and needs whole GPUs "
                + "(gpus) to split; was 4");
    }

    @Test
    void preemptTypeAndPartitionPreemptModesAreSlurmsAndAnUnsetModeFollowsTheType() {
        Fixture fixture = config();
        assertThat(ClusterLayout.from(fixture.build()).preemptType()).isEqualTo(Preemption.Type.QOS);
        assertThat(ClusterLayout.from(fixture.build()).partitions().get("cpu").preemptMode())
                .as("unset, under preempt/qos").isEqualTo(Partition.PreemptMode.OFF);

        fixture.preemptType = "preempt/partition_prio";
        fixture.partitions.set(2, new PartitionConfig("all", "gpu[01-04],cpu[1-2]", false, null, "UNLIMITED", 0, "UP",
                null, null, null, null, null, null, "suspend"));
        ClusterLayout layout = ClusterLayout.from(fixture.build());
        assertThat(layout.preemptType()).isEqualTo(Preemption.Type.PARTITION_PRIO);
        assertThat(layout.partitions().get("all").preemptMode()).isEqualTo(Partition.PreemptMode.SUSPEND);
        assertThat(layout.partitions().get("cpu").preemptMode()).as("unset, under partition_prio")
                .isEqualTo(Partition.PreemptMode.REQUEUE);
    }

    @Test
    void anUnknownPreemptTypeOrPartitionPreemptModeStopsStartUpNamingTheKey() {
        Fixture fixture = config();
        fixture.preemptType = "preempt/tiers";
        fixture.partitions.set(1, new PartitionConfig("cpu", "cpu[1-2]", false, "60", "1-00:00:00", 1, "UP", null, null,
                null, null, null, null, "GANG"));
        assertProblem(fixture, "gantry.cluster.preempt-type: must be preempt/qos, preempt/partition_prio or "
                + "preempt/none, was 'preempt/tiers'");
        assertProblem(fixture, "gantry.cluster.partitions[1].preempt-mode: must be OFF, CANCEL, REQUEUE or SUSPEND, "
                + "was 'GANG'");
    }

    private static Fixture config() {
        return new Fixture();
    }

    /** A small valid cluster to break one way at a time. */
    private static final class Fixture {
        final List<NodeSet> nodes = new ArrayList<>(List.of(
                new NodeSet("gpu[01-04]", 64, 512000, 8, "h100", List.of("h100"), true),
                new NodeSet("cpu[1-2]", 32, 128000, 0, null, List.of(), true)));
        final List<PartitionConfig> partitions = new ArrayList<>(List.of(
                new PartitionConfig("gpu", "gpu[01-04]", true, "1:00:00", "2-00:00:00", 1, "UP", null, null),
                new PartitionConfig("cpu", "cpu[1-2]", false, "60", "1-00:00:00", 1, "UP", null, null),
                new PartitionConfig("all", "gpu[01-04],cpu[1-2]", false, null, "UNLIMITED", 0, "UP", null, null)));
        final List<SwitchConfig> switches = new ArrayList<>(List.of(
                new SwitchConfig("spine", null, null),
                new SwitchConfig("leaf1", "spine", "gpu[01-02]"),
                new SwitchConfig("leaf2", "spine", "gpu[03-04]")));
        final List<BlockConfig> blocks = new ArrayList<>(List.of(
                new BlockConfig("b1", "gpu[01-04]"),
                new BlockConfig("b2", "cpu[1-2]")));

        final List<Integer> blockSizes = new ArrayList<>();
        String preemptType;

        ClusterProperties build() {
            return new ClusterProperties("test", nodes, partitions, switches, blocks, blockSizes, preemptType);
        }
    }
}
