package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** /metrics is open as Slurm's are, until user data is private or a token is asked for. */
class MetricsAccessTests {

    @Test
    void openByDefault() {
        assertThat(MetricsAccess.tokenRequired(new MockEnvironment())).isFalse();
    }

    @Test
    void aTokenOnceAskedForOrOnceUserDataIsPrivate() {
        assertThat(MetricsAccess.tokenRequired(new MockEnvironment().withProperty("gantry.metrics.require-token",
                "true"))).isTrue();
        assertThat(MetricsAccess.tokenRequired(new MockEnvironment().withProperty("gantry.jobs.private-jobs",
                "true"))).isTrue();
        assertThat(MetricsAccess.tokenRequired(new MockEnvironment().withProperty("gantry.accounting.private-users",
                "true"))).isTrue();
        assertThat(MetricsAccess.tokenRequired(new MockEnvironment().withProperty("gantry.jobs.private-jobs",
                "false"))).isFalse();
    }
}
