package io.gantry.metrics;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * Puts the cluster's figures into the Prometheus registry Micrometer exports, so that one scrape
 * shows them with every meter. Without a Prometheus registry (export turned off) the figures are
 * still kept, and {@code /metrics} says it has nothing to serve.
 */
@Configuration(proxyBeanMethods = false)
class MetricsConfiguration {

    @Bean
    ClusterCollector clusterCollector(MetricsProperties properties, ObjectProvider<PrometheusMeterRegistry> registry) {
        long stale = Math.max(2_000_000_000L, 2 * properties.refreshInterval().toNanos());
        ClusterCollector collector = new ClusterCollector(properties.maxLabelValues(), stale);
        registry.ifAvailable(r -> r.getPrometheusRegistry().register(collector));
        return collector;
    }
}
