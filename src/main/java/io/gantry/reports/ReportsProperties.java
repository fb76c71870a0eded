package io.gantry.reports;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.reports.*}: how often the leader samples the cluster's capacity (total, down,
 * reserved) and rolls finished jobs into the hourly usage table.
 */
@ConfigurationProperties("gantry.reports")
public record ReportsProperties(@DefaultValue("60s") Duration samplePeriod) {
}
