package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;

/**
 * {@code -w/--nodelist} and {@code -x/--exclude} over HTTP on the simulated demo cluster: they steer
 * jobs onto and off nodes, a job waiting for a busy listed node says ReqNodeNotAvail, and a list
 * that names what the cluster lacks, or that no job could ever run with, is a 400 naming it.
 */
@GantryIntegrationTest
class NodelistIntegrationTests {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @LocalServerPort
    int port;

    @Autowired
    SchedulerJobs schedulerJobs;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void anExcludedNodeIsNeverGivenToTheJob() {
        long id = submitted(Map.of("name", "not-there", "partition", "cpu", "exclude", "cpu[001-006]",
                "timeLimitSeconds", 600, "simulatedRunSeconds", 1));
        JsonNode done = awaitState(id, "COMPLETED");
        assertThat(done.get("allocatedNodes").asString()).isIn("cpu007", "cpu008");
        assertThat(done.get("exclude").asString()).isEqualTo("cpu[001-006]");
    }

    @Test
    void aNodelistDirectivePutsTheJobOnTheNamedNode() {
        long id = submitted(Map.of("script", "#!/bin/bash\n#SBATCH -p cpu\n#SBATCH -w cpu003\nhostname\n",
                "timeLimitSeconds", 600, "simulatedRunSeconds", 1));
        JsonNode done = awaitState(id, "COMPLETED");
        assertThat(done.get("allocatedNodes").asString()).isEqualTo("cpu003");
    }

    @Test
    void aJobWaitingForABusyListedNodeSaysReqNodeNotAvailAndRunsThereOnceItFrees() {
        long busy = submitted(Map.of("name", "holder", "partition", "cpu", "nodelist", "cpu005", "exclusive", true,
                "timeLimitSeconds", 3600, "simulatedRunSeconds", 3000));
        awaitState(busy, "RUNNING");
        long waiting = submitted(Map.of("name", "wants-cpu005", "partition", "cpu", "nodelist", "cpu005",
                "timeLimitSeconds", 600, "simulatedRunSeconds", 1));
        await().atMost(PATIENCE).until(() -> "ReqNodeNotAvail".equals(job(waiting).get("reason").asString()));
        assertThat(job(waiting).get("state").asString()).isEqualTo("PENDING");
        // What a new leader loads after a restart still carries the list.
        assertThat(schedulerJobs.activeJobsOf(List.of(waiting))).singleElement()
                .satisfies(j -> assertThat(j.nodelist()).isEqualTo("cpu005"));

        assertThat(api.send("DELETE", "/api/v1/jobs/" + busy, admin, null).status()).isEqualTo(202);
        JsonNode done = awaitState(waiting, "COMPLETED");
        assertThat(done.get("allocatedNodes").asString()).isEqualTo("cpu005");
    }

    @Test
    void aNodeTheClusterDoesNotHaveIsRefusedNamingTheField() {
        assertProblem(Map.of("partition", "cpu", "nodelist", "nosuch[1-2]"), "nodelist", "'nosuch1', 'nosuch2'");
        assertProblem(Map.of("script", "#!/bin/bash\n#SBATCH -x cpu001,ghost7\nhostname\n"), "script:2", "ghost7");
    }

    @Test
    void aRequestTheListedNodesCanNeverHoldIsRefused() {
        assertProblem(Map.of("partition", "gpu", "nodes", 1, "gpus", 16, "nodelist", "gpu001"), "nodelist",
                "8 GPUs");
        assertProblem(Map.of("partition", "cpu", "exclude", "cpu[001-008]"), "exclude", "excluded");
        assertProblem(Map.of("script", "#!/bin/bash\n#SBATCH -p cpu\n#SBATCH -N 1\n#SBATCH -w cpu[001-002]\nhostname\n"),
                "script:4", "at most 1");
        assertProblem(Map.of("partition", "cpu", "nodelist", "cpu001", "exclude", "cpu001"), "nodelist", "both");
    }

    @Test
    void aHostlistOfMoreThan65536NamesIsRefusedBeforeItIsExpanded() {
        assertProblem(Map.of("partition", "cpu", "exclude", "n[1-200000]"), "exclude", "65536");
        assertProblem(Map.of("script", "#!/bin/bash\n#SBATCH --nodelist=n[1-100001]\nhostname\n"), "script:2",
                "65536");
    }

    private void assertProblem(Map<String, Object> body, String field, String text) {
        Response response = api.send("POST", "/api/v1/jobs", admin, body);
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.isProblem()).as(response.body()).isTrue();
        JsonNode errors = response.json().get("errors");
        assertThat(errors).as(response.body()).anySatisfy(e -> {
            assertThat(e.get("field").asString()).isEqualTo(field);
            assertThat(e.get("message").asString()).contains(text);
        });
    }

    private long submitted(Map<String, Object> body) {
        Map<String, Object> withDefaults = new HashMap<>(body);
        Response response = api.send("POST", "/api/v1/jobs", admin, withDefaults);
        assertThat(response.status()).as(response.body()).isEqualTo(201);
        JsonNode warnings = response.json().get("warnings");
        if (warnings != null && warnings.isArray()) {
            assertThat(warnings.valueStream().map(JsonNode::asString))
                    .noneMatch(w -> w.contains("nodelist") || w.contains("exclude"));
        }
        return response.json().get("jobId").asLong();
    }

    private JsonNode job(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json();
    }

    private JsonNode awaitState(long id, String state) {
        await().atMost(PATIENCE).until(() -> state.equals(job(id).get("state").asString()));
        return job(id);
    }
}
