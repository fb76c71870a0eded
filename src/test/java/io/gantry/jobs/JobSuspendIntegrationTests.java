package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
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
 * scontrol suspend and resume through the REST API (issue 32), on simulated nodes: an operator's suspended
 * job keeps its GPUs and its run's clock stops; users are refused, and every wrong request is a problem in
 * Slurm's words.
 */
@GantryIntegrationTest
class JobSuspendIntegrationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /** A node of the demo cluster's gpu partition that this test pins its jobs to. */
    private static final String NODE = "gpu015";

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
    void aSuspendedJobKeepsItsGpusUntilAnOperatorResumesItAndThenRunsWhatWasLeftOfIt() {
        long id = submit(admin, Map.of("name", "frozen", "partition", "gpu", "nodelist", NODE, "gpus", 8,
                "simulatedRunSeconds", 3));
        awaitState(id, "RUNNING");

        Response suspended = api.send("POST", "/api/v1/jobs/" + id + "/suspend", admin, null);
        assertThat(suspended.status()).as(suspended.body()).isEqualTo(200);
        assertThat(suspended.json().get("jobs").toString()).contains(Long.toString(id));
        assertThat(job(id).get("state").asString()).isEqualTo("SUSPENDED");
        assertThat(api.get("/api/v1/jobs?state=SUSPENDED", admin).body()).contains("\"jobId\":" + id);
        assertThat(api.get("/api/v1/nodes/" + NODE, admin).json().get("allocGpus").asInt())
                .as("its GPUs stay its own").isEqualTo(8);

        long waiting = submit(admin, Map.of("name", "wants-a-gpu", "partition", "gpu", "nodelist", NODE, "gpus", 1,
                "simulatedRunSeconds", 1));
        // What Gantry says of a job whose named node is busy.
        await().atMost(PATIENCE).until(() -> "ReqNodeNotAvail".equals(job(waiting).get("reason").asString()));
        // Longer than its simulated run: the run's clock stopped while it was suspended, nor did the scheduler resume it.
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(7))
                .until(() -> job(id).get("state").asString().equals("SUSPENDED")
                        && job(waiting).get("state").asString().equals("PENDING"));

        Response resumed = api.send("POST", "/api/v1/jobs/" + id + "/resume", admin, null);
        assertThat(resumed.status()).as(resumed.body()).isEqualTo(200);
        assertThat(job(id).get("state").asString()).isEqualTo("RUNNING");
        awaitState(id, "COMPLETED");
        awaitState(waiting, "COMPLETED");

        List<String> events = api.get("/api/v1/jobs/" + id + "/events", admin).json().valueStream()
                .map(e -> e.get("type").asString() + " " + e.get("detail").asString()).toList();
        assertThat(events).anyMatch(e -> e.startsWith("SUSPENDED suspended by admin"))
                .anyMatch(e -> e.startsWith("RESUMED resumed by admin"));
    }

    @Test
    void usersAreRefusedAndOnlyARunningJobIsSuspendedAndOnlyASuspendedOneResumed() {
        String user = createUser("USER");
        long own = submit(user, Map.of("name", "mine", "partition", "cpu", "simulatedRunSeconds", 600));
        awaitState(own, "RUNNING");

        Response refused = api.send("POST", "/api/v1/jobs/" + own + "/suspend", user, null);
        assertThat(refused.status()).as("not even their own job, as in Slurm").isEqualTo(403);
        assertThat(refused.isProblem()).isTrue();
        assertThat(refused.json().get("detail").asString()).startsWith("Access/permission denied");
        assertThat(api.send("POST", "/api/v1/jobs/" + own + "/resume", user, null).status()).isEqualTo(403);
        assertThat(job(own).get("state").asString()).isEqualTo("RUNNING");

        Response notSuspended = api.send("POST", "/api/v1/jobs/" + own + "/resume", admin, null);
        assertThat(notSuspended.status()).isEqualTo(409);
        assertThat(notSuspended.isProblem()).isTrue();
        assertThat(notSuspended.json().get("detail").asString()).startsWith("Job is not suspended: job " + own
                + " is RUNNING");

        long held = submit(admin, Map.of("name", "held", "partition", "cpu", "hold", true));
        Response pending = api.send("POST", "/api/v1/jobs/" + held + "/suspend", admin, null);
        assertThat(pending.status()).isEqualTo(409);
        assertThat(pending.json().get("detail").asString()).isEqualTo("Job is not running: job " + held + " is PENDING");
        assertThat(api.send("POST", "/api/v1/jobs/99999999/suspend", admin, null).status()).isEqualTo(404);

        // Cancelled while suspended, it gives back what it kept once its node confirms.
        assertThat(api.send("POST", "/api/v1/jobs/" + own + "/suspend", admin, null).status()).isEqualTo(200);
        assertThat(api.send("DELETE", "/api/v1/jobs/" + own, admin, null).status()).isIn(200, 202);
        awaitState(own, "CANCELLED");
        api.send("DELETE", "/api/v1/jobs/" + held, admin, null);
    }

    private long submit(String token, Map<String, ?> body) {
        Response response = api.send("POST", "/api/v1/jobs", token, body);
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return response.json().get("jobId").asLong();
    }

    private JsonNode job(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json();
    }

    private void awaitState(long id, String state) {
        await().atMost(PATIENCE).until(() -> state.equals(job(id).get("state").asString()));
    }

    private String createUser(String role) {
        String name = "u" + UUID.randomUUID().toString().substring(0, 8);
        Response created = api.send("POST", "/api/v1/users", admin,
                Map.of("username", name, "password", "secret-password", "roles", List.of(role), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return api.token(name, "secret-password");
    }
}
