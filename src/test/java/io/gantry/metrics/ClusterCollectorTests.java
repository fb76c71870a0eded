package io.gantry.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.http.ResponseEntity;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The text {@code /metrics} answers: the cluster's figures under Slurm's names beside Micrometer's
 * meters of the same registry, each label capped.
 */
class ClusterCollectorTests {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    private static ClusterFigures figures() {
        return new ClusterFigures(true, new ClusterFigures.Scheduler(12, 1500, 9000, 2250, 4, 6, 3),
                new ClusterFigures.Jobs(3, 5, 0, 1, 2, 10),
                Map.of("idle", 1, "mixed", 2, "drained", 1, "down", 1),
                Map.of("gpu", new ClusterFigures.Partition(Map.of("idle", 1, "mixed", 2, "down", 1), 4, 32, 10, 14, 8,
                        3, 5, 10)),
                Map.of("physics", new ClusterFigures.Holder(2, 1, 8), "chem", new ClusterFigures.Holder(1, 4, 2)),
                Map.of("alice", new ClusterFigures.Holder(2, 0, 8), "bob", new ClusterFigures.Holder(1, 1, 2),
                        "carol", new ClusterFigures.Holder(0, 4, 0)),
                Map.of("Resources", 3, "Priority", 2));
    }

    private String scrape(int maxLabelValues, ClusterFigures figures) {
        ClusterCollector collector = new ClusterCollector(maxLabelValues);
        registry.getPrometheusRegistry().register(collector);
        collector.publish(figures);
        StaticListableBeanFactory beans = new StaticListableBeanFactory(Map.of("prometheus", registry));
        ResponseEntity<String> answer = new MetricsController(beans.getBeanProvider(PrometheusMeterRegistry.class))
                .metrics("text/plain");
        assertThat(answer.getHeaders().getContentType().toString()).startsWith("text/plain;version=0.0.4");
        return answer.getBody();
    }

    @Test
    void theClusterIsShownUnderSlurmsNamesWithTheirLabels() {
        String text = scrape(1000, figures());
        assertThat(text).contains("# TYPE slurm_partition_jobs_gpus_alloc gauge")
                .contains("slurm_partition_jobs_gpus_alloc{partition=\"gpu\"} 10")
                .contains("slurm_partition_gpus{partition=\"gpu\"} 32")
                .contains("gantry_partition_gpus_idle{partition=\"gpu\"} 14")
                .contains("gantry_partition_gpus_down{partition=\"gpu\"} 8")
                .contains("slurm_partition_nodes_mixed{partition=\"gpu\"} 2")
                .contains("slurm_account_jobs_running{account=\"physics\"} 2")
                .contains("slurm_account_jobs_pending{account=\"chem\"} 4")
                .contains("slurm_user_jobs_gpus_alloc{username=\"alice\"} 8")
                .contains("gantry_jobs_pending_reason{reason=\"Resources\"} 3")
                .contains("slurm_nodes 5")
                .contains("slurm_nodes_drain 1")
                .contains("slurm_nodes_alloc 0")
                .contains("slurm_jobs_running 3")
                .contains("slurm_jobs_hold 2")
                .contains("slurm_schedule_cycle_last 1500")
                .contains("slurm_bf_last_depth 6")
                .contains("gantry_scheduler_leader 1")
                .contains("gantry_metrics_label_values_folded{label=\"username\"} 0");
    }

    @Test
    void metersOfOtherFeaturesInTheSameRegistryAreServedToo() {
        // As GPU sampling registers its per-GPU gauges.
        Gauge.builder("gantry.gpu.utilization.ratio", () -> 0.75).tags("node", "n1", "gpu", "0").register(registry);
        String text = scrape(1000, figures());
        assertThat(text).contains("gantry_gpu_utilization_ratio{gpu=\"0\",node=\"n1\"} 0.75")
                .contains("slurm_jobs_pending 5");
    }

    @Test
    void usersBeyondTheCapAreSummedAsOther() {
        String text = scrape(2, figures());
        // alice (weight 10) is the busiest; bob and carol tie at 4 and bob comes first by name.
        assertThat(text).contains("slurm_user_jobs_gpus_alloc{username=\"alice\"} 8")
                .contains("slurm_user_jobs_pending{username=\"bob\"} 1")
                .contains("slurm_user_jobs_pending{username=\"other\"} 4")
                .doesNotContain("username=\"carol\"")
                .contains("gantry_metrics_label_values_folded{label=\"username\"} 1")
                .contains("gantry_metrics_label_values_folded{label=\"account\"} 0");
    }

    @Test
    void aFollowerSaysOnlyThatItIsNotTheLeader() {
        String text = scrape(1000, ClusterFigures.notLeader());
        assertThat(text).contains("gantry_scheduler_leader 0").doesNotContain("slurm_jobs_running")
                .doesNotContain("slurm_partition_gpus");
    }

    @Test
    void openMetricsWhenTheScraperAsksForIt() {
        ClusterCollector collector = new ClusterCollector(10);
        registry.getPrometheusRegistry().register(collector);
        collector.publish(figures());
        StaticListableBeanFactory beans = new StaticListableBeanFactory(Map.of("prometheus", registry));
        ResponseEntity<String> answer = new MetricsController(beans.getBeanProvider(PrometheusMeterRegistry.class))
                .metrics("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5");
        assertThat(answer.getHeaders().getContentType().toString()).startsWith("application/openmetrics-text");
        assertThat(answer.getBody()).contains("slurm_jobs_running 3").endsWith("# EOF\n");
    }

    @Test
    void aScrapeThatFindsStaleFiguresAsksForNewOnesAndWaitsForThem() throws Exception {
        ClusterCollector collector = new ClusterCollector(10, 0);
        collector.publish(figures());
        long before = System.nanoTime();
        assertThat(collector.scrapedSince(before)).as("nobody has scraped: the scheduler need not work").isFalse();

        java.util.concurrent.CompletableFuture<io.prometheus.metrics.model.snapshots.MetricSnapshots> scrape =
                java.util.concurrent.CompletableFuture.supplyAsync(collector::collect);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                .until(() -> collector.scrapedSince(before));
        assertThat(scrape).as("waits for the scheduler's next figures").isNotDone();
        ClusterFigures f = figures();
        collector.publish(new ClusterFigures(true, f.scheduler(), new ClusterFigures.Jobs(7, 5, 0, 1, 2, 10),
                f.nodesByState(), f.partitions(), f.accounts(), f.users(), f.pendingByReason()));

        io.prometheus.metrics.model.snapshots.MetricSnapshots shown = scrape.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(shown.stream().filter(m -> m.getMetadata().getPrometheusName().equals("slurm_jobs_running"))
                .findFirst().orElseThrow().getDataPoints().get(0))
                .extracting(d -> ((io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot) d).getValue())
                .isEqualTo(7.0);
    }
}
