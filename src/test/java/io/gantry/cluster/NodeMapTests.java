package io.gantry.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * A layout's node map as agents join: after any sequence of joins (new names and names joining
 * again with another shape), it reads exactly as a plain map given the same puts would, and no
 * one can change it.
 */
class NodeMapTests {

    @Test
    void anySequenceOfJoinsReadsAsAPlainMapOfTheSameNodes() {
        for (long seed = 0; seed < 300; seed++) {
            Random random = new Random(seed);
            Map<String, ClusterLayout.NodeSpec> model = new HashMap<>();
            for (int i = random.nextInt(200); i > 0; i--) {
                ClusterLayout.NodeSpec node = node("cfg" + i, random.nextInt(64) + 1);
                model.put(node.name(), node);
            }
            NodeMap nodes = NodeMap.of(model);
            int joins = random.nextInt(600);
            for (int j = 0; j < joins; j++) {
                // Mostly new names, some joining again reshaped, some reshaping a configured node.
                String name = random.nextInt(4) == 0 && !model.isEmpty()
                        ? List.copyOf(model.keySet()).get(random.nextInt(model.size()))
                        : "load-" + String.format("%05d", random.nextInt(5000));
                ClusterLayout.NodeSpec node = node(name, random.nextInt(64) + 1);
                NodeMap before = nodes;
                int sizeBefore = before.size();
                nodes = nodes.with(node);
                model.put(name, node);
                assertThat(before.size()).as("seed %d: a join leaves the earlier layout as it was", seed)
                        .isEqualTo(sizeBefore);
                if (j % 37 == 0) {
                    assertThat(nodes).as("seed %d after %d joins", seed, j + 1).isEqualTo(model);
                }
            }
            assertThat(nodes).as("seed %d", seed).isEqualTo(model).hasSameHashCodeAs(model);
            assertThat(nodes.size()).isEqualTo(model.size());
            assertThat(nodes.keySet()).containsExactlyInAnyOrderElementsOf(model.keySet());
            assertThat(nodes.entrySet()).hasSize(model.size());
            for (String name : model.keySet()) {
                assertThat(nodes.get(name)).isSameAs(model.get(name));
                assertThat(nodes.containsKey(name)).isTrue();
            }
            assertThat(nodes.get("no-such-node")).isNull();
            assertThat(nodes.containsKey("no-such-node")).isFalse();
        }
    }

    @Test
    void noOneChangesALayoutsNodes() {
        NodeMap nodes = NodeMap.of(Map.of("a", node("a", 4))).with(node("b", 8));

        assertThatThrownBy(() -> nodes.put("c", node("c", 2))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> nodes.remove("a")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> nodes.entrySet().iterator().remove()).isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> nodes.entrySet().iterator().next().setValue(node("a", 1)))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(nodes).containsOnlyKeys("a", "b");
    }

    @Test
    void aJoinedNodeIsListedInItsPartitionsInHostOrder() {
        ClusterLayout layout = new ClusterLayout("c", Map.of("n1", node("n1", 4), "n10", node("n10", 4)),
                Map.of("cpu", new ClusterLayout.PartitionSpec("cpu", List.of("n1", "n10"), true, null, null, 0,
                        null, null, null, null, null, null, null)), List.of(), List.of());

        ClusterLayout joined = layout.withNode(node("n2", 8)).withNode(node("n1", 16));

        assertThat(joined.partitions().get("cpu").nodes()).containsExactly("n1", "n2", "n10");
        assertThat(joined.nodes()).hasSize(3);
        assertThat(joined.nodes().get("n1").cpus()).isEqualTo(16);
        assertThat(layout.nodes()).hasSize(2);
    }

    private static ClusterLayout.NodeSpec node(String name, int cpus) {
        return new ClusterLayout.NodeSpec(name, cpus, 1024, 0, null, List.of(), false, List.of("cpu"), null, null);
    }
}
