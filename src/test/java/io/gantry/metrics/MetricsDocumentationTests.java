package io.gantry.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The names users build on stay in step: every metric {@code /metrics} shows of the cluster is in the
 * README's Metrics section, and every metric the Grafana dashboard queries is documented there too
 * (so a renamed metric cannot leave the dashboard drawing nothing).
 */
class MetricsDocumentationTests {

    private static final Pattern NAME = Pattern.compile("\\b((?:slurm|gantry)_[a-z0-9_]+)\\b");

    private static String metricsSection() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        int start = readme.indexOf("\n## Metrics\n");
        assertThat(start).as("README has a Metrics section").isPositive();
        int end = readme.indexOf("\n## ", start + 1);
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    @Test
    void everyMetricOfTheClusterIsDocumented() throws IOException {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ClusterCollector collector = new ClusterCollector(1000);
        registry.getPrometheusRegistry().register(collector);
        collector.publish(new ClusterFigures(true, new ClusterFigures.Scheduler(1, 1, 1, 1, 1, 1, 1),
                new ClusterFigures.Jobs(1, 1, 1, 1, 1, 1), Map.of("idle", 1),
                Map.of("p", new ClusterFigures.Partition(Map.of("idle", 1), 1, 1, 0, 1, 0, 0, 0, 0)),
                Map.of("a", new ClusterFigures.Holder(1, 1, 1)), Map.of("u", new ClusterFigures.Holder(1, 1, 1)),
                Map.of("Priority", 1)));
        Set<String> shown = new TreeSet<>();
        registry.scrape().lines().filter(l -> l.startsWith("# TYPE ")).map(l -> l.split(" ")[2])
                .filter(n -> n.startsWith("slurm_") || n.startsWith("gantry_")).forEach(shown::add);
        assertThat(shown).hasSizeGreaterThan(40);
        String section = metricsSection();
        assertThat(shown).allSatisfy(name -> assertThat(section).as(name).contains("`" + name + "`"));
    }

    @Test
    void theDashboardQueriesOnlyDocumentedMetrics() throws IOException {
        JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(
                Path.of("deploy", "grafana", "gantry.json")));
        Set<String> queried = new TreeSet<>();
        collectExpressions(dashboard, queried);
        assertThat(queried).contains("slurm_partition_jobs_gpus_alloc", "gantry_partition_gpus_idle",
                "slurm_account_jobs_gpus_alloc", "gantry_gpu_utilization_ratio");
        String section = metricsSection();
        assertThat(queried).allSatisfy(name -> assertThat(section).as(name).contains("`" + name + "`"));
    }

    private static void collectExpressions(JsonNode node, Set<String> names) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                if ((field.getKey().equals("expr") || field.getKey().equals("definition")) && field.getValue().isString()) {
                    Matcher m = NAME.matcher(field.getValue().asString());
                    while (m.find()) {
                        names.add(m.group(1));
                    }
                } else {
                    collectExpressions(field.getValue(), names);
                }
            }
        } else if (node.isArray()) {
            node.forEach(child -> collectExpressions(child, names));
        }
    }
}
