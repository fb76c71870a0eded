package io.gantry.metrics;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.metrics.*}. {@code maxLabelValues}: the most values one label (partition, account,
 * username, reason) shows by name in {@code /metrics}; the rest are summed under the value
 * {@code other}, so that a site with a hundred thousand users cannot make every scrape, and
 * Prometheus's index, grow with them. {@code refreshInterval}: the scheduler works the figures out
 * from what it holds in memory at the end of a cycle, at most this often, so that a burst of
 * cycles (one per submission) does not pay for them each time. Whether {@code /metrics} needs a
 * token is {@code gantry.metrics.require-token}, read by the security configuration.
 */
@ConfigurationProperties("gantry.metrics")
public record MetricsProperties(
        @DefaultValue("1000") int maxLabelValues,
        @DefaultValue("1s") Duration refreshInterval,
        @DefaultValue("false") boolean requireToken) {

    public MetricsProperties {
        if (maxLabelValues < 1) {
            throw new IllegalArgumentException("gantry.metrics.max-label-values must be at least 1, was "
                    + maxLabelValues);
        }
        if (refreshInterval.isNegative()) {
            throw new IllegalArgumentException("gantry.metrics.refresh-interval must not be negative, was "
                    + refreshInterval);
        }
    }
}
