package io.gantry.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * {@code PATCH /partitions/{name}} (scontrol update PartitionName=... State=): an ADMIN sets a partition
 * DOWN and a job submitted to it waits with PartitionDown instead of running; set UP again, the job runs.
 * A DRAIN partition runs what is queued and refuses new jobs, as an INACTIVE one does (Slurm's meaning).
 * Everyone else is refused, as are a state that does not exist and a partition that does not, and each
 * change is in the audit trail.
 */
@GantryIntegrationTest
class PartitionStateIntegrationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @LocalServerPort
    int port;

    ApiClient api;
    String admin;
    final List<Long> submitted = new ArrayList<>();

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @AfterEach
    void putBack() {
        api.send("PATCH", "/api/v1/partitions/cpu", admin, Map.of("state", "UP"));
        for (long id : submitted) {
            api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        }
    }

    @Test
    void aDownPartitionRunsNoNewJobAndUpAgainRunsIt() {
        Response down = api.send("PATCH", "/api/v1/partitions/cpu", admin, Map.of("state", "down"));
        assertThat(down.status()).as(down.body()).isEqualTo(200);
        assertThat(down.json().get("state").asString()).isEqualTo("DOWN");
        assertThat(api.get("/api/v1/partitions/cpu", admin).json().get("state").asString()).isEqualTo("DOWN");

        long job = submit(Map.of("name", "partition-down", "partition", "cpu", "nodes", 1,
                "timeLimitSeconds", 600, "simulatedRunSeconds", 600));
        JsonNode waiting = await("job " + job + " waits for its partition").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(200)).until(() -> api.get("/api/v1/jobs/" + job, admin).json(),
                        j -> "PartitionDown".equals(j.path("reason").asString()));
        assertThat(waiting.get("state").asString()).isEqualTo("PENDING");

        Response up = api.send("PATCH", "/api/v1/partitions/cpu", admin, Map.of("state", "UP"));
        assertThat(up.status()).as(up.body()).isEqualTo(200);
        assertThat(up.json().get("state").asString()).isEqualTo("UP");
        api.awaitJobState(job, admin, "RUNNING", PATIENCE);

        JsonNode trail = api.get("/api/v1/audit?entity=partition&key=cpu&size=2", admin).json().get("items");
        assertThat(trail).hasSize(2);
        assertThat(trail.get(0).get("action").asString()).isEqualTo("update");
        assertThat(trail.get(0).get("actor").asString()).isEqualTo("admin");
        assertThat(trail.get(0).get("before").get("state").asString()).isEqualTo("DOWN");
        assertThat(trail.get(0).get("after").get("state").asString()).isEqualTo("UP");
        assertThat(trail.get(1).get("before").get("state").asString()).isEqualTo("UP");
        assertThat(trail.get(1).get("after").get("state").asString()).isEqualTo("DOWN");
    }

    @Test
    void aDrainPartitionRunsItsQueueButRefusesNewJobsAsAnInactiveOneDoes() {
        assertThat(api.send("PATCH", "/api/v1/partitions/cpu", admin, Map.of("state", "DOWN")).status()).isEqualTo(200);
        long queued = submit(Map.of("name", "queued-before-drain", "partition", "cpu", "nodes", 1,
                "timeLimitSeconds", 600, "simulatedRunSeconds", 600));
        await().atMost(PATIENCE).until(() -> api.get("/api/v1/jobs/" + queued, admin).json().path("reason").asString(),
                "PartitionDown"::equals);

        assertThat(api.send("PATCH", "/api/v1/partitions/cpu", admin, Map.of("state", "DRAIN")).status()).isEqualTo(200);
        api.awaitJobState(queued, admin, "RUNNING", PATIENCE);
        for (String state : List.of("DRAIN", "INACTIVE")) {
            assertThat(api.send("PATCH", "/api/v1/partitions/cpu", admin, Map.of("state", state)).status()).isEqualTo(200);
            int before = api.get("/api/v1/jobs?size=1", admin).json().get("total").asInt();
            Response refused = api.send("POST", "/api/v1/jobs", admin, Map.of("partition", "cpu",
                    "script", "#!/bin/bash\ntrue\n"));
            assertThat(refused.status()).as(state + ": " + refused.body()).isEqualTo(400);
            assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("partition");
            assertThat(refused.json().get("errors").get(0).get("message").asString()).contains("'cpu'", "no new jobs");
            assertThat(api.get("/api/v1/jobs?size=1", admin).json().get("total").asInt()).as("nothing stored")
                    .isEqualTo(before);
        }
        assertThat(api.send("PATCH", "/api/v1/partitions/cpu", admin, Map.of("state", "UP")).status()).isEqualTo(200);
        submit(Map.of("partition", "cpu", "hold", true, "script", "#!/bin/bash\ntrue\n")); // UP again takes jobs
    }

    @Test
    void onlyAnAdminMaySetAKnownStateOfAKnownPartition() {
        Response badState = api.send("PATCH", "/api/v1/partitions/cpu", admin, Map.of("state", "SLEEPY"));
        assertThat(badState.status()).isEqualTo(400);
        assertThat(badState.isProblem()).isTrue();
        assertThat(badState.json().get("errors").get(0).get("field").asString()).isEqualTo("state");
        assertThat(badState.json().get("errors").get(0).get("message").asString())
                .contains("'SLEEPY'", "UP, DOWN, DRAIN, INACTIVE");

        Response noState = api.send("PATCH", "/api/v1/partitions/cpu", admin, Map.of());
        assertThat(noState.status()).isEqualTo(400);
        assertThat(noState.json().get("errors").get(0).get("field").asString()).isEqualTo("state");

        Response unknown = api.send("PATCH", "/api/v1/partitions/nope", admin, Map.of("state", "DOWN"));
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.isProblem()).isTrue();
        assertThat(unknown.json().get("detail").asString()).contains("nope");

        for (String role : List.of("USER", "OPERATOR")) {
            Response forbidden = api.send("PATCH", "/api/v1/partitions/cpu", createUser(role), Map.of("state", "DOWN"));
            assertThat(forbidden.status()).as(role).isEqualTo(403);
            assertThat(forbidden.isProblem()).isTrue();
        }

        assertThat(api.get("/api/v1/partitions/cpu", admin).json().get("state").asString()).isEqualTo("UP");
        assertThat(api.get("/api/v1/audit?entity=partition&key=nope", admin).json().get("total").asInt()).isZero();
    }

    private long submit(Map<String, Object> job) {
        long id = api.submitJob(admin, job);
        submitted.add(id);
        return id;
    }

    private String createUser(String role) {
        String name = "u" + UUID.randomUUID().toString().substring(0, 8);
        Response created = api.send("POST", "/api/v1/users", admin,
                Map.of("username", name, "password", "secret-password", "roles", List.of(role), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return api.token(name, "secret-password");
    }
}
