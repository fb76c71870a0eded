package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The queue's order by packed keys against a stable sort by the comparator, over random entries: narrow
 * fields that all fit in a key, and fields as wide as a long, where the key keeps only the highest bits.
 */
class QueueOrderTests {

    @Test
    void packed_keys_order_the_queue_as_the_stable_comparator_sort_does() {
        for (long seed = 0; seed < 300; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            boolean wide = random.nextBoolean();
            int n = random.nextInt(0, 400);
            List<QueueOrder.Entry> entries = new ArrayList<>(n);
            for (int k = 0; k < n; k++) {
                // Few distinct values, so that ties at every field, and whole ties, are common.
                entries.add(new QueueOrder.Entry(null, null, random.nextInt(3), random.nextInt(4) == 0, false, null,
                        null, value(random, wide), value(random, wide), value(random, wide), value(random, wide),
                        random.nextInt(-1, 2)));
            }
            List<QueueOrder.Entry> expected = new ArrayList<>(entries);
            expected.sort(QueueOrder::byPriority);
            List<QueueOrder.Entry> sorted = QueueOrder.sorted(new ArrayList<>(entries));
            assertThat(sorted).as("seed %d", seed).hasSize(n);
            for (int k = 0; k < n; k++) {
                // The same entries in the same places: whole ties too keep their listed order.
                assertThat(sorted.get(k)).as("seed %d position %d", seed, k).isSameAs(expected.get(k));
            }
        }
    }

    private static long value(SplittableRandom random, boolean wide) {
        long[] edges = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE};
        if (wide && random.nextInt(4) == 0) {
            return edges[random.nextInt(edges.length)];
        }
        return wide ? random.nextLong() >> random.nextInt(64) : random.nextLong(0, 5);
    }
}
