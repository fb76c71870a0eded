package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/** aftercorr and --kill-on-invalid-dep through the REST API (issue 32), on simulated nodes. */
@GantryIntegrationTest
class DependencyIntegrationTests {

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
    void eachAftercorrTaskWaitsForItsOwnTaskOfTheOtherArrayAndOneWithoutForTheWholeArray() {
        long first = submit(Map.of("name", "prepare", "partition", "cpu", "array", "0-1", "hold", true,
                "simulatedRunSeconds", 1));
        long second = submit(Map.of("name", "train", "partition", "cpu", "array", "0-2", "dependency",
                "aftercorr:" + first, "simulatedRunSeconds", 1));
        assertThat(job(second + "_0").get("dependency").asString()).isEqualTo("aftercorr:" + first);
        awaitReason(second + "_0", "Dependency");

        assertThat(api.send("POST", "/api/v1/jobs/" + first + "_0/release", admin, null).status()).isEqualTo(200);
        awaitState(first + "_0", "COMPLETED");
        awaitState(second + "_0", "COMPLETED");
        assertThat(job(second + "_1").get("state").asString()).as("its own task is still held").isEqualTo("PENDING");
        assertThat(job(second + "_1").get("reason").asString()).isEqualTo("Dependency");
        assertThat(job(second + "_2").get("reason").asString()).as("no task 2 there: the whole array counts")
                .isEqualTo("Dependency");

        assertThat(api.send("DELETE", "/api/v1/jobs/" + first + "_1", admin, null).status()).isEqualTo(200);
        awaitReason(second + "_1", "DependencyNeverSatisfied");
        awaitReason(second + "_2", "DependencyNeverSatisfied");
        api.send("DELETE", "/api/v1/jobs/" + second, admin, null);
    }

    @Test
    void aJobAskedToBeKilledOnAnInvalidDependencyIsCancelledAndTheOthersPendAsSlurmsDefault() {
        long failing = submit(Map.of("name", "fails", "partition", "cpu", "simulatedRunSeconds", 1,
                "simulatedExitCode", 3));
        long killed = submit(Map.of("name", "killed", "partition", "cpu", "dependency", "afterok:" + failing,
                "killOnInvalidDep", true));
        long byDirective = submit(Map.of("name", "by-directive", "partition", "cpu", "script", """
                #!/bin/bash
                #SBATCH --dependency=afterok:%d
                #SBATCH --kill-on-invalid-dep=yes
                true
                """.formatted(failing)));
        long pends = submit(Map.of("name", "pends", "partition", "cpu", "dependency", "afterok:" + failing,
                "killOnInvalidDep", false));
        long unsaid = submit(Map.of("name", "unsaid", "partition", "cpu", "dependency", "afterok:" + failing));
        long afterKilled = submit(Map.of("name", "after-killed", "partition", "cpu", "dependency", "afterany:" + killed,
                "simulatedRunSeconds", 1));

        awaitState(Long.toString(failing), "FAILED");
        JsonNode cancelled = awaitState(Long.toString(killed), "CANCELLED");
        assertThat(cancelled.get("reason").asString()).isEqualTo("DependencyNeverSatisfied");
        awaitState(Long.toString(byDirective), "CANCELLED");
        awaitReason(Long.toString(pends), "DependencyNeverSatisfied");
        awaitReason(Long.toString(unsaid), "DependencyNeverSatisfied");
        assertThat(job(Long.toString(pends)).get("state").asString()).isEqualTo("PENDING");
        awaitState(Long.toString(afterKilled), "COMPLETED");
        List<String> history = api.get("/api/v1/jobs/" + killed + "/events", admin).json().valueStream()
                .map(e -> e.get("type").asString() + " " + e.get("detail").asString()).toList();
        assertThat(history).anyMatch(e -> e.equals("CANCELLED cancelled: its dependency afterok:" + failing
                + " can never be satisfied (--kill-on-invalid-dep)"));

        Response bad = api.send("POST", "/api/v1/jobs", admin, Map.of("partition", "cpu", "script",
                "#!/bin/bash\n#SBATCH --kill-on-invalid-dep=maybe\ntrue\n"));
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body()).contains("script:2", "'maybe' is neither yes nor no");
        api.send("DELETE", "/api/v1/jobs/" + pends, admin, null);
        api.send("DELETE", "/api/v1/jobs/" + unsaid, admin, null);
    }

    private long submit(Map<String, ?> body) {
        Response response = api.send("POST", "/api/v1/jobs", admin, body);
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        return response.json().get("jobId").asLong();
    }

    private JsonNode job(String id) {
        return api.get("/api/v1/jobs/" + id, admin).json();
    }

    private JsonNode awaitState(String id, String state) {
        await().atMost(PATIENCE).until(() -> state.equals(job(id).get("state").asString()));
        return job(id);
    }

    private void awaitReason(String id, String reason) {
        await().atMost(PATIENCE).until(() -> reason.equals(job(id).get("reason").asString()));
    }
}
