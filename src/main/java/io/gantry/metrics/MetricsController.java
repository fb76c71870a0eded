package io.gantry.metrics;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.swagger.v3.oas.annotations.Hidden;

/**
 * {@code GET /metrics}: the path Prometheus scrapes by default and Slurm 25.11's slurmctld serves its
 * metrics under. It answers the whole Micrometer Prometheus registry (the same as
 * {@code /actuator/prometheus}): the cluster's figures and every meter other features register. The
 * Prometheus text format by default; OpenMetrics when the scraper asks for it, as Prometheus does.
 * Not part of the REST API (no {@code /api/v1} prefix, no OpenAPI entry): its format is Prometheus's.
 * Whether it needs a token is the security configuration's (see {@code gantry.metrics.require-token}).
 */
@Hidden
@RestController
class MetricsController {

    static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final ObjectProvider<PrometheusMeterRegistry> registry;

    MetricsController(ObjectProvider<PrometheusMeterRegistry> registry) {
        this.registry = registry;
    }

    @GetMapping("/metrics")
    ResponseEntity<String> metrics(@RequestHeader(value = "Accept", required = false) String accept) {
        PrometheusMeterRegistry prometheus = registry.getIfAvailable();
        if (prometheus == null) {
            return ResponseEntity.status(HttpStatus.NOT_FOUND).contentType(MediaType.TEXT_PLAIN)
                    .body("Prometheus export is turned off (management.prometheus.metrics.export.enabled=false)\n");
        }
        String type = accept != null && accept.contains("application/openmetrics-text") ? OPENMETRICS : TEXT;
        return ResponseEntity.ok().contentType(MediaType.parseMediaType(type)).body(prometheus.scrape(type));
    }
}
