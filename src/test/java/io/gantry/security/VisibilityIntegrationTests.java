package io.gantry.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
import io.gantry.support.SseClient;
import tools.jackson.databind.JsonNode;

/**
 * A job's script and environment, where secrets live, go only to its owner, OPERATORs and ADMINs,
 * as Slurm shows a batch script only to them: another USER sees the job (the queue is public by
 * default) but never its secrets, wherever the job shows up.
 */
@GantryIntegrationTest
class VisibilityIntegrationTests {

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
    void onlyTheOwnerOperatorsAndAdminsSeeAJobsScriptAndEnvironment() throws Exception {
        String s = UUID.randomUUID().toString().substring(0, 8);
        String scriptSecret = "AKIA" + s + "script";
        String envSecret = "wJalr" + s + "environment";
        String alice = token(user("alice" + s, "USER"));
        String bob = token(user("bob" + s, "USER"));
        String operator = token(user("oper" + s, "OPERATOR"));

        try (SseClient bobStream = SseClient.open(port, bob, null)) {
            bobStream.awaitComment("connected");
            long job = api.submitJob(alice, Map.of("name", "train-" + s, "partition", "cpu", "simulatedRunSeconds", 1,
                    "script", "#!/bin/bash\nexport AWS_SECRET_ACCESS_KEY=" + scriptSecret + "\n./train\n",
                    "environment", Map.of("AWS_SECRET_ACCESS_KEY", envSecret)));
            long array = api.submitJob(alice, Map.of("name", "sweep-" + s, "partition", "cpu", "array", "0-1",
                    "hold", true, "script", "#!/bin/bash\n# " + scriptSecret + "\n",
                    "environment", Map.of("WANDB_API_KEY", envSecret)));
            api.awaitJobState(job, alice, "COMPLETED", PATIENCE);

            // The owner, an OPERATOR and an ADMIN see both.
            for (String reader : List.of(alice, operator, admin)) {
                JsonNode seen = api.get("/api/v1/jobs/" + job, reader).json();
                assertThat(seen.get("script").asString()).contains(scriptSecret);
                assertThat(seen.get("environment").get("AWS_SECRET_ACCESS_KEY").asString()).isEqualTo(envSecret);
                assertThat(api.get("/api/v1/jobs/" + array + "_1", reader).json().get("environment")
                        .get("WANDB_API_KEY").asString()).isEqualTo(envSecret);
            }

            // Another USER sees the job and the array task, without either.
            for (String id : List.of(Long.toString(job), array + "_1", Long.toString(array))) {
                Response seen = api.get("/api/v1/jobs/" + id, bob);
                assertThat(seen.status()).isEqualTo(200);
                assertThat(seen.json().get("user").asString()).isEqualTo("alice" + s);
                assertThat(absent(seen.json(), "script")).as(seen.body()).isTrue();
                assertThat(absent(seen.json(), "environment")).as(seen.body()).isTrue();
                assertNoSecret(seen.body(), scriptSecret, envSecret);
            }
            Response listed = api.get("/api/v1/jobs?user=alice" + s, bob);
            assertThat(listed.json().get("total").asLong()).isEqualTo(3);
            assertNoSecret(listed.body(), scriptSecret, envSecret);
            assertNoSecret(api.get("/api/v1/jobs?arrayJobId=" + array, bob).body(), scriptSecret, envSecret);
            Response sacct = api.get("/api/v1/accounting/jobs?jobId=" + job, bob);
            assertThat(sacct.json().get("items")).hasSize(1);
            assertNoSecret(sacct.body(), scriptSecret, envSecret);
            HttpResponse<String> csv = csv(bob, "jobId=" + job);
            assertThat(csv.body()).contains(Long.toString(job));
            assertNoSecret(csv.body(), scriptSecret, envSecret);
            assertNoSecret(api.get("/api/v1/jobs/" + job + "/events", bob).body(), scriptSecret, envSecret);
            assertNoSecret(api.get("/api/v1/jobs/" + job + "/steps", bob).body(), scriptSecret, envSecret);

            // Bob's event stream told him of the job's start and end, and of nothing secret.
            await().atMost(PATIENCE).until(() -> bobStream.events().stream().anyMatch(e -> e.data() != null
                    && e.data().contains("\"id\":\"" + job + "\"") && e.data().contains("COMPLETED")));
            bobStream.events().stream().filter(e -> e.data() != null)
                    .forEach(e -> assertNoSecret(e.data(), scriptSecret, envSecret));
            api.send("DELETE", "/api/v1/jobs/" + array, alice, null);
        }
    }

    private static boolean absent(JsonNode job, String field) {
        return job.path(field).isNull() || job.path(field).isMissingNode();
    }

    private static void assertNoSecret(String body, String... secrets) {
        for (String secret : secrets) {
            assertThat(body).doesNotContain(secret);
        }
    }

    private HttpResponse<String> csv(String token, String query) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/accounting/jobs?"
                + query)).header("Accept", "text/csv").header("Authorization", "Bearer " + token).GET().build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    private String user(String name, String role) {
        Response created = api.send("POST", "/api/v1/users", admin, Map.of("username", name,
                "password", "secret-password", "roles", List.of(role), "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return name;
    }

    private String token(String name) {
        return api.token(name, "secret-password");
    }
}
