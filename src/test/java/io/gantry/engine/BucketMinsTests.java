package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The bucket tree against a plain array, over random adds and searches. */
class BucketMinsTests {

    @Test
    void adds_and_searches_agree_with_a_plain_array() {
        for (long seed = 0; seed < 200; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            int size = 1 << random.nextInt(0, 8);
            long[] plain = new long[size];
            for (int k = 0; k < size; k++) {
                plain[k] = random.nextLong(-5, 20);
            }
            BucketMins tree = new BucketMins(plain.clone());
            for (int op = 0; op < 200; op++) {
                int l = random.nextInt(size);
                int r = random.nextInt(l, size);
                long d = random.nextLong(-5, 25);
                String what = "seed " + seed + " op " + op + " [" + l + ", " + r + "] d=" + d;
                switch (random.nextInt(3)) {
                    case 0 -> {
                        long v = random.nextLong(-6, 7);
                        tree.add(l, r, v);
                        for (int k = l; k <= r; k++) {
                            plain[k] += v;
                        }
                    }
                    case 1 -> {
                        int first = -1;
                        for (int k = l; k < size && first < 0; k++) {
                            if (plain[k] >= d) {
                                first = k;
                            }
                        }
                        assertThat(tree.firstAtLeast(l, d)).as(what).isEqualTo(first);
                    }
                    default -> {
                        int last = -1;
                        for (int k = r; k >= l && last < 0; k--) {
                            if (plain[k] < d) {
                                last = k;
                            }
                        }
                        assertThat(tree.lastBelow(l, r, d)).as(what).isEqualTo(last);
                    }
                }
            }
            assertThat(tree.leaves()).as("seed " + seed).containsExactly(plain);
        }
    }

    @Test
    void searches_past_either_end_find_nothing() {
        BucketMins tree = new BucketMins(new long[] {1, 2, 3, 4});
        assertThat(tree.firstAtLeast(4, 0)).isEqualTo(-1);
        assertThat(tree.firstAtLeast(0, 5)).isEqualTo(-1);
        assertThat(tree.lastBelow(2, 1, 10)).isEqualTo(-1);
        assertThat(tree.lastBelow(0, 3, 1)).isEqualTo(-1);
        assertThatThrownBy(() -> new BucketMins(new long[3])).isInstanceOf(IllegalArgumentException.class);
    }
}
