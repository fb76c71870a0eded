package io.gantry.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * sacct end to end on PostgreSQL: jobs run on the simulated demo cluster, then {@code /accounting/jobs}
 * is asked about them. Other test classes share the database, so every query names these jobs by id.
 */
@GantryIntegrationTest
class JobAccountingIntegrationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void sacctFiguresEqualAllocationTimesElapsedToTheSecond() {
        long id = submit(admin, Map.of("name", unique("sacct-gpu"), "gpus", 2, "cpusPerTask", 6, "memoryMb", 3000,
                "timeLimitSeconds", 600, "simulatedRunSeconds", 2));
        JsonNode job = awaitState(Long.toString(id), "COMPLETED");

        JsonNode row = single(sacct(admin, "jobId=" + id));
        Instant start = Instant.parse(job.get("startTime").asString());
        Instant end = Instant.parse(job.get("endTime").asString());
        long elapsed = Duration.between(start, end).toSeconds();
        long cpus = 0;
        long memoryMb = 0;
        long gpus = 0;
        for (JsonNode a : job.get("allocation")) {
            cpus += a.get("cpus").asLong();
            memoryMb += a.get("memoryMb").asLong();
            gpus += a.get("gpuIndices").size();
        }
        assertThat(gpus).isEqualTo(2);
        assertThat(elapsed).isGreaterThanOrEqualTo(2);
        assertThat(row.get("jobId").asString()).isEqualTo(Long.toString(id));
        assertThat(row.get("state").asString()).isEqualTo("COMPLETED");
        assertThat(row.get("exitCode").asInt()).isZero();
        assertThat(Instant.parse(row.get("startTime").asString())).isEqualTo(start);
        assertThat(Instant.parse(row.get("endTime").asString())).isEqualTo(end);
        assertThat(row.get("elapsedSeconds").asLong()).isEqualTo(elapsed);
        assertThat(row.get("cpuSeconds").asLong()).isEqualTo(cpus * elapsed);
        assertThat(row.get("gpuSeconds").asLong()).isEqualTo(2 * elapsed);
        String mem = memoryMb % 1024 == 0 ? memoryMb / 1024 + "G" : memoryMb + "M";
        // As Slurm's AllocTRES, billing first: what the job holds at its partition's billing weights.
        assertThat(job.get("billing").asLong()).isGreaterThanOrEqualTo(cpus);
        assertThat(row.get("allocTres").asString()).isEqualTo("billing=" + job.get("billing").asLong() + ",cpu=" + cpus
                + ",mem=" + mem + ",gres/gpu=2,node=" + job.get("allocation").size());
        assertThat(row.get("nodeList").asString()).isEqualTo(job.get("allocatedNodes").asString());
        assertThat(row.get("partition").asString()).isEqualTo("gpu");
        assertThat(row.get("timeLimitSeconds").asLong()).isEqualTo(600);
    }

    @Test
    void aRunningJobAccruesUpToNow() {
        long id = submit(admin, Map.of("name", unique("sacct-running"), "partition", "cpu", "cpusPerTask", 3,
                "simulatedRunSeconds", 600));
        awaitState(Long.toString(id), "RUNNING");
        try {
            await().atMost(PATIENCE).until(() -> single(sacct(admin, "jobId=" + id)).get("elapsedSeconds").asLong() >= 1);
            JsonNode row = single(sacct(admin, "jobId=" + id));
            assertThat(row.get("state").asString()).isEqualTo("RUNNING");
            assertThat(row.get("endTime").isNull()).isTrue();
            assertThat(row.get("cpuSeconds").asLong()).isEqualTo(3 * row.get("elapsedSeconds").asLong());
            assertThat(ids(sacct(admin, "jobId=" + id + "&state=RUNNING")))
                    .as("running now is inside the default window, the last day").containsExactly(Long.toString(id));
        } finally {
            api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        }
    }

    @Test
    void filtersByUserStateAndWindow() {
        String aliceName = "u" + UUID.randomUUID().toString().substring(0, 8);
        String alice = createUser(aliceName);
        long ok = submit(alice, Map.of("name", unique("sacct-ok"), "partition", "cpu", "simulatedRunSeconds", 1));
        long failed = submit(admin, Map.of("name", unique("sacct-fail"), "partition", "cpu", "simulatedRunSeconds", 1,
                "simulatedExitCode", 3));
        JsonNode okJob = awaitState(Long.toString(ok), "COMPLETED");
        awaitState(Long.toString(failed), "FAILED");
        String both = "jobId=" + ok + "," + failed;

        assertThat(ids(sacct(admin, both))).containsExactly(Long.toString(ok), Long.toString(failed));
        assertThat(ids(sacct(admin, both + "&user=" + aliceName))).containsExactly(Long.toString(ok));
        assertThat(ids(sacct(admin, both + "&state=FAILED,CANCELLED"))).containsExactly(Long.toString(failed));
        assertThat(ids(sacct(admin, both + "&state=failed&user=" + aliceName))).isEmpty();
        JsonNode failedRow = sacct(admin, both + "&state=FAILED").get("items").get(0);
        assertThat(failedRow.get("exitCode").asInt()).isEqualTo(3);

        Instant start = Instant.parse(okJob.get("startTime").asString());
        Instant end = Instant.parse(okJob.get("endTime").asString());
        String okId = "jobId=" + ok;
        assertThat(ids(sacct(admin, okId + "&start=" + start.minusSeconds(3600) + "&end=" + start.plusMillis(1))))
                .as("started before the window's end").containsExactly(Long.toString(ok));
        assertThat(ids(sacct(admin, okId + "&start=" + end + "&end=" + end.plusSeconds(3600))))
                .as("ended at the window's start").containsExactly(Long.toString(ok));
        assertThat(ids(sacct(admin, okId + "&start=" + end.plusSeconds(1) + "&end=" + end.plusSeconds(3600))))
                .as("ended before the window").isEmpty();
        assertThat(ids(sacct(admin, okId + "&start=" + start.minusSeconds(7200) + "&end=" + start)))
                .as("the window ends as it starts").isEmpty();
        assertThat(ids(sacct(admin, both + "&start=" + start.minusSeconds(60) + "&partition=cpu&size=1")))
                .as("paged by job id").containsExactly(Long.toString(ok));
        assertThat(sacct(admin, both + "&size=1&page=1").get("total").asLong()).isEqualTo(2);

        assertThat(ids(sacct(alice, both))).as("without private-jobs, every user sees all jobs, as in squeue")
                .containsExactly(Long.toString(ok), Long.toString(failed));
    }

    @Test
    void csvHasTheHeaderAndTheSameRowsAsJson() throws Exception {
        long first = submit(admin, Map.of("name", unique("sacct, \"csv\""), "partition", "cpu", "tasks", 2,
                "simulatedRunSeconds", 1));
        long second = submit(admin, Map.of("name", unique("sacct-csv"), "gpus", 1, "simulatedRunSeconds", 1));
        awaitState(Long.toString(first), "COMPLETED");
        awaitState(Long.toString(second), "COMPLETED");
        String query = "jobId=" + first + "," + second;
        List<JsonNode> rows = sacct(admin, query).get("items").valueStream().toList();

        HttpResponse<String> csv = csv(admin, query);
        assertThat(csv.statusCode()).isEqualTo(200);
        assertThat(csv.headers().firstValue("Content-Type").orElse("")).startsWith("text/csv");
        String[] lines = csv.body().split("\r\n");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).isEqualTo("jobId,name,user,account,partition,qos,state,exitCode,submitTime,startTime,"
                + "endTime,elapsedSeconds,timeLimitSeconds,allocTres,cpuSeconds,gpuSeconds,nodeList,maxRssBytes,maxRss,"
                + "totalCpuMillis,totalCpu,borrowed,reclaimedAt,reclaimedFor,containerImage,containerImageDigest");
        for (int i = 0; i < rows.size(); i++) {
            JsonNode r = rows.get(i);
            String name = r.get("name").asString();
            String expected = String.join(",", r.get("jobId").asString(),
                    name.contains(",") ? "\"" + name.replace("\"", "\"\"") + "\"" : name,
                    r.get("user").asString(), text(r, "account"), r.get("partition").asString(), text(r, "qos"),
                    r.get("state").asString(), r.get("exitCode").asString(), r.get("submitTime").asString(),
                    r.get("startTime").asString(), r.get("endTime").asString(), r.get("elapsedSeconds").asString(),
                    r.get("timeLimitSeconds").asString(), "\"" + r.get("allocTres").asString() + "\"",
                    r.get("cpuSeconds").asString(), r.get("gpuSeconds").asString(), r.get("nodeList").asString(),
                    // Simulated nodes measure nothing: MaxRSS and TotalCPU are empty, as sacct leaves them.
                    "", "", "", "",
                    // No guarantees here: nothing ran on borrowed GPUs, nothing was reclaimed.
                    "false", "", "",
                    // No containers here.
                    "", "");
            assertThat(r.get("maxRss").isNull()).as(r.toString()).isTrue();
            assertThat(r.get("totalCpu").isNull()).as(r.toString()).isTrue();
            assertThat(lines[i + 1]).isEqualTo(expected);
        }
        assertThat(lines[1]).contains("\"" + rows.get(0).get("name").asString().replace("\"", "\"\"") + "\"");
    }

    @Test
    void eachBadParameterIsA400NamingIt() throws Exception {
        assertBad("start=yesterday", "start");
        assertBad("end=2026-02-30T00:00:00Z", "end");
        assertBad("state=RUNNING,DONE", "state");
        assertBad("start=2026-03-02T00:00:00Z&end=2026-03-01T00:00:00Z", "start");
        assertBad("jobId=banana", "jobId");
        assertBad("page=-1", "page");
        assertBad("size=1001", "size");
        assertBad("page=x", "page");

        HttpResponse<String> csv = csv(admin, "state=DONE");
        assertThat(csv.statusCode()).as("a CSV request with a bad filter").isEqualTo(400);
        assertThat(csv.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(csv.body()).contains("\"field\":\"state\"");

        assertThat(api.get("/api/v1/accounting/jobs", null).status()).isEqualTo(401);
    }

    private void assertBad(String query, String field) {
        Response response = api.get("/api/v1/accounting/jobs?" + query, admin);
        assertThat(response.status()).as(query + " -> " + response.body()).isEqualTo(400);
        assertThat(response.isProblem()).isTrue();
        assertThat(response.json().get("errors").valueStream().map(e -> e.get("field").asString()))
                .as(response.body()).containsExactly(field);
    }

    private JsonNode sacct(String token, String query) {
        Response response = api.get("/api/v1/accounting/jobs?" + query, token);
        assertThat(response.status()).as(query + " -> " + response.body()).isEqualTo(200);
        return response.json();
    }

    private HttpResponse<String> csv(String token, String query) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/accounting/jobs?"
                + query)).header("Accept", "text/csv").header("Authorization", "Bearer " + token).GET().build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode single(JsonNode page) {
        assertThat(page.get("items")).as(page.toString()).hasSize(1);
        return page.get("items").get(0);
    }

    private static List<String> ids(JsonNode page) {
        return page.get("items").valueStream().map(r -> r.get("jobId").asString()).toList();
    }

    private static String text(JsonNode row, String field) {
        return row.get(field).isNull() ? "" : row.get(field).asString();
    }

    private long submit(String token, Map<String, ?> body) {
        Response submitted = api.send("POST", "/api/v1/jobs", token, body);
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(201);
        return submitted.json().get("jobId").asLong();
    }

    private JsonNode awaitState(String id, String state) {
        await().atMost(PATIENCE).until(() -> state.equals(api.get("/api/v1/jobs/" + id, admin).json().get("state").asString()));
        return api.get("/api/v1/jobs/" + id, admin).json();
    }

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private String createUser(String name) {
        Response created = api.send("POST", "/api/v1/users", admin,
                Map.of("username", name, "password", "secret-password", "roles", List.of("USER"), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return api.token(name, "secret-password");
    }
}
