package io.gantry.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.Prometheus;
import io.gantry.support.StartEarly;
import tools.jackson.databind.JsonNode;

/**
 * Gantry as a cluster team monitors it: Debian's {@code prometheus} scrapes the packaged controller's
 * {@code /metrics} every second (no token: the metrics are open by default, as Slurm's are), and
 * PromQL answers through Prometheus's HTTP API match what the REST API says of the cluster: the GPUs
 * allocated per partition once jobs start, running and pending jobs per account, nodes by state; and
 * they follow the cluster when a job ends and the next one starts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@StartEarly("a real Prometheus scraping a packaged controller")
class PrometheusIntegrationTests {

    private static final String DATABASE = "wt_prometheus_it_" + ProcessHandle.current().pid();
    private static final Duration SETTLE = Duration.ofSeconds(60);

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private Prometheus prometheus;
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<Long> submitted = new ArrayList<>();

    @BeforeAll
    void startControllerAndPrometheus() throws Exception {
        assumeTrue(Prometheus.installed(), Prometheus.MISSING);
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  security:
                    # Shared, as controllers on one store share it, so the standby takes the leader's tokens.
                    jwt-secret: prometheus-test-jwt-secret-0123456789abcdef
                  cluster:
                    name: prom
                    nodes:
                      - names: g[1-3]
                        cpus: 16
                        memory-mb: 64000
                        gpus: 4
                        gpu-type: a100
                        simulated: true
                      - names: c1
                        cpus: 16
                        memory-mb: 64000
                        simulated: true
                    partitions:
                      - name: gpu
                        nodes: g[1-3]
                        default: true
                        default-time: "10:00"
                        default-mem-per-cpu: 1000
                      - name: cpu
                        nodes: c1
                        default-time: "10:00"
                        default-mem-per-cpu: 1000
                    switches:
                      - name: leaf1
                        nodes: g[1-3],c1
                    blocks:
                      - name: block1
                        nodes: g[1-3],c1
                """);
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        for (String account : List.of("physics", "chem")) {
            created(api.send("POST", "/api/v1/accounts", admin, Map.of("name", account)));
            created(api.send("POST", "/api/v1/associations", admin, Map.of("account", account, "user", "admin")));
        }
        prometheus = Prometheus.start(dir.resolve("prometheus"), controller.port());
    }

    @AfterAll
    void stop() throws Exception {
        if (prometheus != null) {
            prometheus.close();
        }
        if (api != null) {
            for (long id : submitted) {
                api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void promqlAnswersMatchTheClusterAndFollowIt() throws Exception {
        // g3 drained: two usable GPU nodes of four GPUs each.
        assertThat(api.send("PATCH", "/api/v1/nodes/g3", admin, Map.of("state", "DRAIN", "reason", "bad fan"))
                .status()).isEqualTo(200);
        long first = submit("physics", 4, false);
        long second = submit("physics", 4, false);
        api.awaitJobState(first, admin, "RUNNING", SETTLE);
        api.awaitJobState(second, admin, "RUNNING", SETTLE);
        // Then chem's: one waits for GPUs (Resources), one is held.
        long waiting = submit("chem", 2, false);
        submit("chem", 1, true);
        await().atMost(SETTLE).until(() -> "Resources".equals(api.get("/api/v1/jobs/" + waiting, admin).json()
                .get("reason").asString()));

        awaitQuery("sum by (partition) (slurm_partition_jobs_gpus_alloc)", Map.of("gpu", 8.0, "cpu", 0.0),
                "partition");
        assertThat(allocatedGpusPerPartition()).containsEntry("gpu", 8.0);
        awaitQuery("slurm_account_jobs_running", Map.of("physics", 2.0, "chem", 0.0), "account");
        awaitQuery("slurm_account_jobs_pending", Map.of("physics", 0.0, "chem", 2.0), "account");
        assertThat(jobsPerAccount("RUNNING")).isEqualTo(Map.of("physics", 2.0));
        assertThat(jobsPerAccount("PENDING")).isEqualTo(Map.of("chem", 2.0));
        // Nodes by state, as sinfo (the REST API) has them.
        Map<String, Double> states = nodesByState();
        assertThat(states).isEqualTo(Map.of("ALLOCATED", 2.0, "DRAINED", 1.0, "IDLE", 1.0));
        awaitValue("slurm_nodes_alloc", 2.0);
        awaitValue("slurm_nodes_drained", 1.0);
        awaitValue("slurm_nodes_idle", 1.0);
        awaitValue("slurm_partition_nodes_alloc{partition=\"gpu\"}", 2.0);
        awaitValue("gantry_partition_gpus_down{partition=\"gpu\"}", 4.0);
        awaitValue("gantry_partition_gpus_idle{partition=\"gpu\"}", 0.0);
        awaitValue("gantry_jobs_pending_reason{reason=\"Resources\"}", 1.0);
        awaitValue("slurm_user_jobs_gpus_alloc{username=\"admin\"}", 8.0);

        // The first physics job ends: chem's waiting job takes two of its GPUs.
        api.send("DELETE", "/api/v1/jobs/" + first, admin, null);
        api.awaitJobState(waiting, admin, "RUNNING", SETTLE);
        awaitQuery("slurm_account_jobs_running", Map.of("physics", 1.0, "chem", 1.0), "account");
        awaitQuery("slurm_account_jobs_gpus_alloc", Map.of("physics", 4.0, "chem", 2.0), "account");
        awaitValue("slurm_partition_jobs_gpus_alloc{partition=\"gpu\"}", 6.0);
        assertThat(allocatedGpusPerPartition()).containsEntry("gpu", 6.0);
        awaitValue("slurm_nodes_mixed", 1.0);
        assertThat(nodesByState()).containsEntry("MIXED", 1.0);
        awaitValue("gantry_partition_gpus_idle{partition=\"gpu\"}", 2.0);
    }

    /**
     * A standby controller on the same store that requires a token for its metrics (as one with private
     * user data does): no token is a 401, an OPERATOR's (here the ADMIN's) is answered, and it shows it
     * is not the leader instead of figures it does not have.
     */
    @Test
    void aStandbyThatRequiresATokenAnswersOnlyWithOneAndHasNoFigures() throws Exception {
        ControllerProcess standby = cluster.controller("standby", "--gantry.metrics.require-token=true").start();
        HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + standby.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(401);
        HttpResponse<String> withToken = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + standby.port() + "/metrics")).header("Authorization", "Bearer " + admin).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(withToken.statusCode()).isEqualTo(200);
        assertThat(withToken.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/plain");
        assertThat(withToken.body()).contains("gantry_scheduler_leader 0").doesNotContain("slurm_jobs_running");
        // The leader's stays open.
        HttpResponse<String> leader = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + controller.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(leader.statusCode()).isEqualTo(200);
        assertThat(leader.body()).contains("gantry_scheduler_leader 1");
        standby.stop();
    }

    private long submit(String account, int gpus, boolean hold) {
        Map<String, Object> job = new HashMap<>(Map.of("partition", "gpu", "account", account, "nodes", 1,
                "gpusPerNode", gpus, "simulatedRunSeconds", 600, "script", "#!/bin/bash\ntrue\n"));
        if (hold) {
            job.put("hold", true);
        }
        long id = api.submitJob(admin, job);
        submitted.add(id);
        return id;
    }

    /** GPUs held on each partition's nodes, as the REST API's nodes say. */
    private Map<String, Double> allocatedGpusPerPartition() {
        Map<String, Double> out = new HashMap<>();
        for (JsonNode n : api.get("/api/v1/nodes?size=100", admin).json().get("items")) {
            for (JsonNode p : n.get("partitions")) {
                out.merge(p.asString(), n.get("allocGpus").asDouble(), Double::sum);
            }
        }
        return out;
    }

    private Map<String, Double> jobsPerAccount(String state) {
        Map<String, Double> out = new HashMap<>();
        for (JsonNode j : api.get("/api/v1/jobs?state=" + state + "&size=100", admin).json().get("items")) {
            out.merge(j.get("account").asString(), 1.0, Double::sum);
        }
        return out;
    }

    private Map<String, Double> nodesByState() {
        Map<String, Double> out = new HashMap<>();
        for (JsonNode n : api.get("/api/v1/nodes?size=100", admin).json().get("items")) {
            out.merge(n.get("state").asString(), 1.0, Double::sum);
        }
        return out;
    }

    /** Polls until the query's series, keyed by {@code label}, are exactly {@code expected}. */
    private void awaitQuery(String promql, Map<String, Double> expected, String label) {
        await().atMost(SETTLE).pollInterval(Duration.ofMillis(500)).ignoreExceptions().untilAsserted(() -> {
            Map<String, Double> got = new HashMap<>();
            for (JsonNode r : query(promql)) {
                got.put(r.get("metric").get(label).asString(), r.get("value").get(1).asDouble());
            }
            assertThat(got).as(promql).isEqualTo(expected);
        });
    }

    private void awaitValue(String promql, double expected) {
        await().atMost(SETTLE).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .untilAsserted(() -> assertThat(value(promql)).as(promql).isEqualTo(expected));
    }

    private double value(String promql) throws IOException, InterruptedException {
        return prometheus.value(promql);
    }

    private JsonNode query(String promql) throws IOException, InterruptedException {
        return prometheus.query(promql);
    }

    private static void created(ApiClient.Response response) {
        assertThat(response.status()).as(response.toString()).isEqualTo(201);
    }
}
