package io.gantry.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import tools.jackson.databind.JsonNode;

/**
 * What a job used on its node reaches the job and sacct: the packaged controller on PostgreSQL, an
 * agent played by plain HTTP calls on {@code node1}, which reports its jobs' ends with the cgroup's
 * peak memory and CPU time (or without them, as an agent on a node without cgroups does).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobUsageIntegrationTests {

    private static final String JOIN_TOKEN = "usage-test-join-token-0123456789";
    private static final String DATABASE = "gantry_usage_it_" + ProcessHandle.current().pid();

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private String node1;

    @BeforeAll
    void startControllerAndJoinNode() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  cluster:
                    name: usage-test
                    nodes:
                      - names: node1
                        cpus: 4
                        memory-mb: 4000
                        simulated: false
                    partitions:
                      - name: batch
                        nodes: node1
                        default: true
                        default-time: "10:00"
                    # named so that the demo cluster's switches and blocks are replaced, not merged in
                    switches:
                      - name: leaf1
                        nodes: node1
                    blocks:
                      - name: block1
                        nodes: node1
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    heartbeat-timeout: 600s
                    poll-wait: 1s
                """.formatted(JOIN_TOKEN));
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        Response joined = api.send("POST", "/api/v1/agents/register", JOIN_TOKEN, Map.of("name", "node1", "cpus", 4,
                "memoryMb", 4000, "gpus", List.of()));
        assertThat(joined.status()).as(joined.body()).isEqualTo(200);
        node1 = joined.json().get("credential").asString();
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theCgroupsPeakMemoryAndCpuTimeReachTheJobAndSacct() throws Exception {
        long id = submit("measured");
        JsonNode running = awaitState(id, "RUNNING");
        // Nothing is known until the job ends.
        assertThat(running.get("maxRssBytes").isNull()).as(running.toString()).isTrue();
        assertThat(running.get("totalCpuMillis").isNull()).isTrue();
        assertThat(sacct(id).get("maxRss").isNull()).isTrue();

        Instant start = Instant.parse(running.get("startTime").asString());
        Response reported = report(started(id, start), ended(id, start, Map.of("maxRssBytes", 123456L * 1024,
                "cpuTimeMillis", 62_345L)));
        assertThat(reported.status()).as(reported.body()).isEqualTo(200);

        JsonNode job = api.get("/api/v1/jobs/" + id, admin).json();
        assertThat(job.get("state").asString()).isEqualTo("COMPLETED");
        assertThat(job.get("maxRssBytes").asLong()).isEqualTo(126_418_944L);
        assertThat(job.get("totalCpuMillis").asLong()).isEqualTo(62_345L);

        JsonNode row = sacct(id);
        assertThat(row.get("maxRssBytes").asLong()).isEqualTo(126_418_944L);
        assertThat(row.get("maxRss").asString()).isEqualTo("123456K");
        assertThat(row.get("totalCpuMillis").asLong()).isEqualTo(62_345L);
        assertThat(row.get("totalCpu").asString()).isEqualTo("01:02.345");
        assertThat(csvRow(id)).endsWith("," + row.get("nodeList").asString() + ",126418944,123456K,62345,01:02.345,false,,,,");

        // A repeated end report changes nothing, not even with other figures.
        Response again = report(ended(id, start, Map.of("maxRssBytes", 1L, "cpuTimeMillis", 1L)));
        assertThat(again.status()).as(again.body()).isEqualTo(200);
        assertThat(sacct(id).get("maxRss").asString()).isEqualTo("123456K");
    }

    @Test
    void aJobEndedWithoutUsageShowsItEmptyAsSacctDoes() throws Exception {
        long id = submit("unmeasured");
        Instant start = Instant.parse(awaitState(id, "RUNNING").get("startTime").asString());
        Response reported = report(ended(id, start, null));
        assertThat(reported.status()).as(reported.body()).isEqualTo(200);
        assertUnknown(id);
    }

    @Test
    void aFigureNoCgroupCouldGiveIsNotKept() throws Exception {
        long id = submit("negative");
        Instant start = Instant.parse(awaitState(id, "RUNNING").get("startTime").asString());
        Map<String, Object> usage = new HashMap<>();
        usage.put("maxRssBytes", -1L);
        usage.put("cpuTimeMillis", null);
        Response reported = report(ended(id, start, usage));
        assertThat(reported.status()).as(reported.body()).isEqualTo(200);
        assertUnknown(id);
    }

    @Test
    void aJobThatNeverStartedHasNoUsage() throws Exception {
        Response held = api.send("POST", "/api/v1/jobs", admin, Map.of("name", "never", "nodelist", "node1",
                "hold", true, "script", "#!/bin/bash\nsleep 60\n"));
        assertThat(held.status()).as(held.body()).isEqualTo(201);
        long id = held.json().get("jobId").asLong();
        assertThat(api.send("DELETE", "/api/v1/jobs/" + id, admin, null).status()).isBetween(200, 204);
        awaitState(id, "CANCELLED");
        assertUnknown(id);
    }

    private void assertUnknown(long id) throws Exception {
        JsonNode job = api.get("/api/v1/jobs/" + id, admin).json();
        assertThat(job.get("state").asString()).isIn("COMPLETED", "CANCELLED");
        assertThat(job.get("maxRssBytes").isNull()).as(job.toString()).isTrue();
        assertThat(job.get("totalCpuMillis").isNull()).isTrue();
        JsonNode row = sacct(id);
        for (String field : List.of("maxRssBytes", "maxRss", "totalCpuMillis", "totalCpu")) {
            assertThat(row.get(field).isNull()).as(field + " in " + row).isTrue();
        }
        assertThat(csvRow(id)).endsWith(",,,,,false,,,,");
    }

    private long submit(String name) {
        Response response = api.send("POST", "/api/v1/jobs", admin, Map.of("name", name, "nodelist", "node1",
                "script", "#!/bin/bash\nsleep 60\n"));
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return response.json().get("jobId").asLong();
    }

    private JsonNode awaitState(long id, String state) {
        JsonNode[] last = new JsonNode[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            last[0] = api.get("/api/v1/jobs/" + id, admin).json();
            return state.equals(last[0].get("state").asString());
        });
        return last[0];
    }

    private JsonNode sacct(long id) {
        Response response = api.get("/api/v1/accounting/jobs?jobId=" + id, admin);
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        assertThat(response.json().get("items")).as(response.body()).hasSize(1);
        return response.json().get("items").get(0);
    }

    /** The job's line of the CSV export (after the header). */
    private String csvRow(long id) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + controller.port()
                + "/api/v1/accounting/jobs?jobId=" + id)).header("Accept", "text/csv")
                .header("Authorization", "Bearer " + admin).GET().build();
        HttpResponse<String> csv = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(csv.statusCode()).as(csv.body()).isEqualTo(200);
        String[] lines = csv.body().split("\r\n");
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).endsWith(",nodeList,maxRssBytes,maxRss,totalCpuMillis,totalCpu,borrowed,reclaimedAt,reclaimedFor,containerImage,containerImageDigest");
        return lines[1];
    }

    private static Map<String, Object> started(long id, Instant runStart) {
        return Map.of("jobId", Long.toString(id), "type", "STARTED", "time", runStart.toString(),
                "runStart", runStart.toString());
    }

    private static Map<String, Object> ended(long id, Instant runStart, Map<String, Object> usage) {
        Map<String, Object> report = new HashMap<>(Map.of("jobId", Long.toString(id), "type", "ENDED",
                "time", runStart.plusSeconds(2).toString(), "state", "COMPLETED", "exitCode", 0,
                "runStart", runStart.toString()));
        if (usage != null) {
            report.put("usage", usage);
        }
        return report;
    }

    @SafeVarargs
    private Response report(Map<String, Object>... reports) {
        return api.send("POST", "/api/v1/agents/node1/reports", node1, Map.of("reports", List.of(reports)));
    }
}
