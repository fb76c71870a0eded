package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/** Jobs end to end on real PostgreSQL: submitted over REST, started by the worker, run by simulated nodes. */
@GantryIntegrationTest
class JobsIntegrationTests {

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
    void aTwoGpuJobRunsOnTwoGpusOfOneNodeAndCompletes() {
        Response submitted = submit(admin, Map.of("name", "two-gpus", "gpus", 2, "timeLimitSeconds", 600,
                "simulatedRunSeconds", 1));
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(201);
        long id = submitted.json().get("jobId").asLong();

        JsonNode done = awaitState(admin, Long.toString(id), "COMPLETED");
        assertThat(done.get("exitCode").asInt()).isZero();
        assertThat(done.get("partition").asString()).isEqualTo("gpu");
        JsonNode allocation = done.get("allocation");
        assertThat(allocation).hasSize(1);
        assertThat(allocation.get(0).get("gpuIndices")).hasSize(2);
        assertThat(done.get("allocatedNodes").asString()).isEqualTo(allocation.get(0).get("node").asString());
        assertThat(done.get("startTime").isNull()).isFalse();
        assertThat(done.get("endTime").isNull()).isFalse();

        List<String> events = api.get("/api/v1/jobs/" + id + "/events", admin).json().valueStream()
                .map(e -> e.get("type").asString()).toList();
        assertThat(events).containsExactly("SUBMITTED", "STARTED", "COMPLETED");
    }

    @Test
    void directivesFillWhatTheJsonLeavesOutAndJsonWins() {
        String script = """
                #!/bin/bash
                #SBATCH -J from-script
                #SBATCH --partition=cpu
                #SBATCH -n 4 -c 2
                #SBATCH --time=10:00

                # a blank line and a comment do not end the directives
                #SBATCH --mail-type=END
                srun hostname
                #SBATCH --ignored-after-the-first-command
                """;
        Response submitted = submit(admin, Map.of("script", script, "name", "from-json", "hold", true));
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(201);
        assertThat(submitted.json().get("warnings").toString()).contains("--mail-type");

        JsonNode job = api.get("/api/v1/jobs/" + submitted.json().get("jobId").asLong(), admin).json();
        assertThat(job.get("name").asString()).isEqualTo("from-json");
        assertThat(job.get("partition").asString()).isEqualTo("cpu");
        assertThat(job.get("tasks").asInt()).isEqualTo(4);
        assertThat(job.get("cpusPerTask").asInt()).isEqualTo(2);
        assertThat(job.get("timeLimitSeconds").asLong()).isEqualTo(600);
        assertThat(job.get("state").asString()).isEqualTo("PENDING");
        api.send("DELETE", "/api/v1/jobs/" + job.get("jobId").asLong(), admin, null);
    }

    @Test
    void everyBadSubmissionIsA400NamingTheFieldOrLineAndWritesNothing() {
        long before = api.get("/api/v1/jobs?size=1", admin).json().get("total").asLong();

        assertRejected(Map.of("partition", "nope"), "partition");
        assertRejected(Map.of("partition", "gpu", "timeLimitSeconds", 3 * 86400), "timeLimitSeconds");
        assertRejected(Map.of("gpusPerNode", 9), "gpusPerNode"); // "no node in gpu has 9 GPUs; the largest has 8"
        assertRejected(Map.of("nodes", 17, "partition", "gpu"), null);
        assertRejected(Map.of("array", "5-1"), "array");
        assertRejected(Map.of("dependency", "afterok:99999999"), "dependency");
        assertRejected(Map.of("dependency", "afterok:banana"), "dependency");
        assertRejected(Map.of("constraints", "h100&&"), "constraints");
        assertRejected(Map.of("gpus", 2, "gpusPerNode", 1), "gpus");
        assertRejected(Map.of("account", "someone-else"), "account");
        Response badLine = submit(admin, Map.of("script", "#!/bin/bash\n#SBATCH -N 1\n#SBATCH --no-such-option=3\nhostname\n"));
        assertThat(badLine.status()).isEqualTo(400);
        assertThat(badLine.json().get("errors").get(0).get("field").asString()).isEqualTo("script:3");
        Response notJson = api.send("POST", "/api/v1/jobs", admin, "{\"gpus\": \"many\"}");
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(notJson.isProblem()).isTrue();

        assertThat(api.get("/api/v1/jobs?size=1", admin).json().get("total").asLong()).isEqualTo(before);
    }

    @Test
    void cancellingARunningJobStopsItOnItsNode() {
        long id = submit(admin, Map.of("name", "long", "partition", "cpu", "simulatedRunSeconds", 600))
                .json().get("jobId").asLong();
        awaitState(admin, Long.toString(id), "RUNNING");

        Response cancel = api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        assertThat(cancel.status()).isEqualTo(202);
        JsonNode job = awaitState(admin, Long.toString(id), "CANCELLED");
        assertThat(job.get("endTime").isNull()).isFalse();

        Response again = api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        assertThat(again.status()).isEqualTo(409);
    }

    @Test
    void aHeldJobWaitsUntilReleased() {
        long id = submit(admin, Map.of("partition", "cpu", "hold", true, "simulatedRunSeconds", 1))
                .json().get("jobId").asLong();
        await().atMost(PATIENCE).until(() -> "JobHeldUser".equals(job(admin, id).get("reason").asString()));
        assertThat(job(admin, id).get("state").asString()).isEqualTo("PENDING");

        assertThat(api.send("POST", "/api/v1/jobs/" + id + "/release", admin, null).status()).isEqualTo(200);
        awaitState(admin, Long.toString(id), "COMPLETED");
    }

    @Test
    void anArrayRunsEachTaskAndNeverMoreThanItsLimitAtOnce() {
        Response submitted = submit(admin, Map.of("partition", "cpu", "array", "0-3%2", "simulatedRunSeconds", 2));
        assertThat(submitted.status()).as(submitted.body()).isEqualTo(201);
        long id = submitted.json().get("jobId").asLong();
        assertThat(submitted.json().get("arrayTaskIds")).hasSize(4);

        await().atMost(PATIENCE).until(() -> {
            List<JsonNode> tasks = api.get("/api/v1/jobs?arrayJobId=" + id, admin).json().get("items").valueStream().toList();
            long running = tasks.stream().filter(t -> t.get("state").asString().equals("RUNNING")).count();
            assertThat(running).isLessThanOrEqualTo(2);
            return tasks.stream().allMatch(t -> t.get("state").asString().equals("COMPLETED"));
        });
        assertThat(job(admin, id + "_3").get("arrayTaskId").asInt()).isEqualTo(3);
    }

    @Test
    void aDependencyOnAFailedJobIsNeverSatisfied() {
        long first = submit(admin, Map.of("partition", "cpu", "simulatedRunSeconds", 1, "simulatedExitCode", 3))
                .json().get("jobId").asLong();
        long ok = submit(admin, Map.of("partition", "cpu", "dependency", "afterok:" + first))
                .json().get("jobId").asLong();
        long notOk = submit(admin, Map.of("partition", "cpu", "dependency", "afternotok:" + first,
                "simulatedRunSeconds", 1)).json().get("jobId").asLong();

        JsonNode failed = awaitState(admin, Long.toString(first), "FAILED");
        assertThat(failed.get("exitCode").asInt()).isEqualTo(3);
        await().atMost(PATIENCE).until(() -> "DependencyNeverSatisfied".equals(job(admin, ok).get("reason").asString()));
        awaitState(admin, Long.toString(notOk), "COMPLETED");
        api.send("DELETE", "/api/v1/jobs/" + ok, admin, null);
    }

    @Test
    void aJobOverItsTimeLimitEndsTimeout() {
        long id = submit(admin, Map.of("partition", "cpu", "timeLimitSeconds", 2, "simulatedRunSeconds", 500))
                .json().get("jobId").asLong();
        awaitState(admin, Long.toString(id), "TIMEOUT");
    }

    @Test
    void aUserActsOnlyOnTheirOwnJobs() {
        String alice = createUser("USER");
        String bob = createUser("USER");
        long id = submit(alice, Map.of("partition", "cpu", "hold", true)).json().get("jobId").asLong();

        Response bobCancels = api.send("DELETE", "/api/v1/jobs/" + id, bob, null);
        assertThat(bobCancels.status()).isEqualTo(403);
        assertThat(bobCancels.isProblem()).isTrue();
        assertThat(api.get("/api/v1/jobs/" + id, bob).status()).as("the queue is visible to all").isEqualTo(200);
        assertThat(api.send("DELETE", "/api/v1/jobs/" + id, alice, null).status()).isEqualTo(200);
        assertThat(job(admin, id).get("state").asString()).isEqualTo("CANCELLED");
    }

    @Test
    void noGpuIsEverGivenToTwoJobs() {
        for (int i = 0; i < 24; i++) {
            submit(admin, Map.of("name", "fill", "gpus", 3 + i % 4, "simulatedRunSeconds", 2));
        }
        await().atMost(PATIENCE).until(() -> {
            List<JsonNode> running = api.get("/api/v1/jobs?state=RUNNING,COMPLETING&size=1000", admin).json()
                    .get("items").valueStream().toList();
            Set<String> gpus = new HashSet<>();
            for (JsonNode job : running) {
                for (JsonNode a : job.get("allocation")) {
                    for (JsonNode index : a.get("gpuIndices")) {
                        assertThat(gpus.add(a.get("node").asString() + "#" + index.asInt()))
                                .as("GPU %s#%s given twice", a.get("node").asString(), index.asInt()).isTrue();
                    }
                }
            }
            return api.get("/api/v1/jobs?state=PENDING,RUNNING,COMPLETING&name=fill&size=1", admin).json()
                    .get("total").asInt() == 0;
        });
        JsonNode diag = api.get("/api/v1/diag", admin).json();
        assertThat(diag.get("cycles").asLong()).isPositive();
        assertThat(diag.get("jobsStarted").asLong()).isGreaterThanOrEqualTo(24);
        assertThat(diag.get("leader").asBoolean()).isTrue();
    }

    @Test
    void anEndedJobCanBeRequeuedAndRunsAgain() {
        long id = submit(admin, Map.of("partition", "cpu", "simulatedRunSeconds", 1, "simulatedExitCode", 1))
                .json().get("jobId").asLong();
        awaitState(admin, Long.toString(id), "FAILED");

        Response requeued = api.send("POST", "/api/v1/jobs/" + id + "/requeue", admin, null);
        assertThat(requeued.status()).as(requeued.body()).isEqualTo(200);
        JsonNode again = awaitState(admin, Long.toString(id), "FAILED");
        assertThat(again.get("requeueCount").asInt()).isEqualTo(1);
        List<String> events = api.get("/api/v1/jobs/" + id + "/events", admin).json().valueStream()
                .map(e -> e.get("type").asString()).toList();
        assertThat(events).containsSubsequence("STARTED", "FAILED", "REQUEUED", "STARTED", "FAILED");

        long pending = submit(admin, Map.of("partition", "cpu", "hold", true)).json().get("jobId").asLong();
        assertThat(api.send("POST", "/api/v1/jobs/" + pending + "/requeue", admin, null).status()).isEqualTo(409);
        api.send("DELETE", "/api/v1/jobs/" + pending, admin, null);
    }

    @Test
    void cancellingAnArrayCancelsEveryTaskAndOneTaskCanBeCancelledAlone() {
        long id = submit(admin, Map.of("partition", "cpu", "array", "1,3,5-7", "hold", true))
                .json().get("jobId").asLong();
        Response one = api.send("DELETE", "/api/v1/jobs/" + id + "_3", admin, null);
        assertThat(one.status()).isEqualTo(200);
        assertThat(job(admin, id + "_3").get("state").asString()).isEqualTo("CANCELLED");
        assertThat(job(admin, id + "_5").get("state").asString()).isEqualTo("PENDING");

        Response all = api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        assertThat(all.status()).isEqualTo(200);
        assertThat(all.json().get("jobs")).hasSize(4);
        List<JsonNode> tasks = api.get("/api/v1/jobs?arrayJobId=" + id, admin).json().get("items").valueStream().toList();
        assertThat(tasks).hasSize(5).allSatisfy(t -> assertThat(t.get("state").asString()).isEqualTo("CANCELLED"));
        assertThat(api.get("/api/v1/jobs/" + id + "_4", admin).status()).isEqualTo(404);
        assertThat(api.get("/api/v1/jobs/banana", admin).status()).isEqualTo(400);
    }

    @Test
    void afterAfteranyAndSingletonWaitForWhatTheyName() {
        long first = submit(admin, Map.of("name", "single", "partition", "cpu", "simulatedRunSeconds", 3))
                .json().get("jobId").asLong();
        long after = submit(admin, Map.of("partition", "cpu", "dependency", "after:" + first, "simulatedRunSeconds", 1))
                .json().get("jobId").asLong();
        long afterany = submit(admin, Map.of("partition", "cpu", "dependency", "afterany:" + first,
                "simulatedRunSeconds", 1)).json().get("jobId").asLong();
        long singleton = submit(admin, Map.of("name", "single", "partition", "cpu", "dependency", "singleton",
                "simulatedRunSeconds", 1)).json().get("jobId").asLong();

        awaitState(admin, Long.toString(after), "COMPLETED");
        JsonNode done = awaitState(admin, Long.toString(first), "COMPLETED");
        JsonNode any = awaitState(admin, Long.toString(afterany), "COMPLETED");
        JsonNode single = awaitState(admin, Long.toString(singleton), "COMPLETED");
        JsonNode afterJob = job(admin, after);
        assertThat(Instant.parse(afterJob.get("startTime").asString()))
                .isAfterOrEqualTo(Instant.parse(done.get("startTime").asString()));
        assertThat(Instant.parse(any.get("startTime").asString()))
                .isAfterOrEqualTo(Instant.parse(done.get("endTime").asString()));
        assertThat(Instant.parse(single.get("startTime").asString()))
                .isAfterOrEqualTo(Instant.parse(done.get("endTime").asString()));
    }

    @Test
    void aPendingJobCanBeChangedButNotBeyondItsPartition() {
        long id = submit(admin, Map.of("partition", "cpu", "hold", true)).json().get("jobId").asLong();
        Response changed = api.send("PATCH", "/api/v1/jobs/" + id, admin,
                Map.of("timeLimitSeconds", 1200, "name", "renamed", "nice", 10));
        assertThat(changed.status()).as(changed.body()).isEqualTo(200);
        assertThat(changed.json().get("timeLimitSeconds").asLong()).isEqualTo(1200);
        assertThat(changed.json().get("name").asString()).isEqualTo("renamed");

        Response tooLong = api.send("PATCH", "/api/v1/jobs/" + id, admin, Map.of("timeLimitSeconds", 30 * 86400));
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.json().get("errors").get(0).get("field").asString()).isEqualTo("timeLimitSeconds");
        api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        assertThat(api.send("PATCH", "/api/v1/jobs/" + id, admin, Map.of("name", "x")).status()).isEqualTo(409);
    }

    private void assertRejected(Map<String, Object> body, String field) {
        Map<String, Object> withDefaults = new LinkedHashMap<>(body);
        Response response = submit(admin, withDefaults);
        assertThat(response.status()).as(body + " -> " + response.body()).isEqualTo(400);
        assertThat(response.isProblem()).isTrue();
        if (field != null) {
            assertThat(response.json().get("errors").valueStream().map(e -> e.get("field").asString()))
                    .as(response.body()).contains(field);
        }
    }

    private Response submit(String token, Map<String, ?> body) {
        return api.send("POST", "/api/v1/jobs", token, body);
    }

    private JsonNode job(String token, Object id) {
        return api.get("/api/v1/jobs/" + id, token).json();
    }

    private JsonNode awaitState(String token, String id, String state) {
        await().atMost(PATIENCE).until(() -> state.equals(job(token, id).get("state").asString()));
        return job(token, id);
    }

    private String createUser(String role) {
        String name = "u" + UUID.randomUUID().toString().substring(0, 8);
        Response created = api.send("POST", "/api/v1/users", admin,
                Map.of("username", name, "password", "secret-password", "roles", List.of(role), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return api.token(name, "secret-password");
    }
}
