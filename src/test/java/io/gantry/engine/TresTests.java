package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TresTests {

    @Test
    void tres_is_read_and_written_as_slurm_writes_it() {
        Tres t = Tres.parse("cpu=64,mem=256G,gres/gpu=8,node=1", Tres.ZERO);
        assertThat(t).isEqualTo(new Tres(64, 256 * 1024, 8, 1));
        assertThat(t).hasToString("cpu=64,mem=256G,gres/gpu=8,node=1");
    }

    @Test
    void missing_fields_of_a_limit_are_unlimited() {
        Tres limit = Tres.parse("gres/gpu=4", Tres.UNLIMITED);
        assertThat(new Tres(1000, 1, 4, 9).fitsWithin(limit)).isTrue();
        assertThat(new Tres(0, 0, 5, 0).fitsWithin(limit)).isFalse();
    }

    @Test
    void arithmetic_that_would_go_negative_or_overflow_throws() {
        assertThatThrownBy(() -> new Tres(1, 0, 0, 0).minus(new Tres(2, 0, 0, 0)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Tres.UNLIMITED.plus(new Tres(1, 0, 0, 0))).isInstanceOf(ArithmeticException.class);
        assertThat(Tres.UNLIMITED.plusSaturating(new Tres(1, 1, 1, 1))).isEqualTo(Tres.UNLIMITED);
    }

    @Test
    void a_constraint_binds_and_tighter_than_or() {
        Constraint c = Constraint.parse("a&b|c");
        assertThat(c.matches(java.util.Set.of("a", "b"))).isTrue();
        assertThat(c.matches(java.util.Set.of("c"))).isTrue();
        assertThat(c.matches(java.util.Set.of("a"))).isFalse();
        assertThatThrownBy(() -> Constraint.parse("a&&b")).isInstanceOf(IllegalArgumentException.class);
    }
}
