package io.gantry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.sdk.ApiClient;
import io.gantry.sdk.ApiException;
import io.gantry.sdk.api.AuthApi;
import io.gantry.sdk.api.JobsApi;
import io.gantry.sdk.api.NodesApi;
import io.gantry.sdk.model.Job;
import io.gantry.sdk.model.JobActionResult;
import io.gantry.sdk.model.JobSubmission;
import io.gantry.sdk.model.JobSubmitted;
import io.gantry.sdk.model.Node;
import io.gantry.sdk.model.JobPage;
import io.gantry.sdk.model.NodePage;
import io.gantry.sdk.model.TokenRequest;
import io.gantry.sdk.model.Token;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI document generates a working SDK: the Java client the build generates (package
 * {@code io.gantry.sdk}, from the committed {@code src/main/openapi/gantry.json}) drives jobs end to
 * end against the running controller, and that committed document is what the controller serves.
 */
@GantryIntegrationTest
class SdkIntegrationTests {

    private static final Path COMMITTED_SPEC = Path.of("src", "main", "openapi", "gantry.json");
    private static final String ADMIN_PASSWORD = io.gantry.support.ApiClient.ADMIN_PASSWORD;

    @LocalServerPort
    int port;

    private ApiClient client;

    @BeforeEach
    void signIn() throws ApiException {
        ApiClient anonymous = new ApiClient();
        anonymous.updateBaseUri(baseUri());
        Token token = new AuthApi(anonymous)
                .createToken(new TokenRequest().username("admin").password(ADMIN_PASSWORD));
        assertThat(token.getTokenType()).isEqualTo("Bearer");

        client = new ApiClient();
        client.updateBaseUri(baseUri());
        client.setReadTimeout(Duration.ofSeconds(30));
        client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + token.getToken()));
    }

    @Test
    void theGeneratedClientSubmitsListsReadsAndCancelsAJob() throws ApiException {
        assertThat(new AuthApi(client).getWhoami().getUsername()).isEqualTo("admin");
        JobsApi jobs = new JobsApi(client);
        String name = "sdk-" + UUID.randomUUID().toString().substring(0, 8);

        JobSubmitted submitted = jobs.submitJob(new JobSubmission()
                .name(name)
                .script("#!/bin/bash\nsleep 600\n")
                .partition("cpu")
                .tasks(2)
                .timeLimitSeconds(3600L)
                .hold(true)
                .simulatedRunSeconds(600L));
        long jobId = submitted.getJobId();
        assertThat(jobId).isPositive();

        JobPage listed = jobs.listJobs("PENDING", null, null, "cpu", name, null, null, null, 0, 100);
        assertThat(listed.getItems()).extracting(Job::getJobId).containsExactly(jobId);
        assertThat(listed.getTotal()).isEqualTo(1L);

        Job job = jobs.getJob(String.valueOf(jobId));
        assertThat(job.getName()).isEqualTo(name);
        assertThat(job.getUser()).isEqualTo("admin");
        assertThat(job.getPartition()).isEqualTo("cpu");
        assertThat(job.getState()).isEqualTo("PENDING");
        assertThat(job.getReason()).isEqualTo("JobHeldUser");
        assertThat(job.getHold()).isEqualTo("USER");
        assertThat(job.getTasks()).isEqualTo(2);
        assertThat(job.getTimeLimitSeconds()).isEqualTo(3600L);
        assertThat(job.getSubmitTime()).isNotNull();

        JobActionResult cancelled = jobs.cancelJob(String.valueOf(jobId));
        assertThat(cancelled.getJobs()).containsExactly(String.valueOf(jobId));
        assertThat(cancelled.getStopping()).isEmpty();

        Job after = jobs.getJob(String.valueOf(jobId));
        assertThat(after.getState()).isEqualTo("CANCELLED");
        assertThat(after.getEndTime()).isNotNull();
        assertThat(jobs.listJobs("CANCELLED", null, null, null, name, null, null, null, null, null).getItems())
                .extracting(Job::getJobId).containsExactly(jobId);
        assertThat(jobs.listJobEvents(String.valueOf(jobId))).isNotEmpty();
    }

    @Test
    void theGeneratedClientReadsNodesAndReportsProblemsAsApiExceptions() throws ApiException {
        NodesApi nodes = new NodesApi(client);
        NodePage cpu = nodes.listNodes(null, "cpu", 0, 100);
        assertThat(cpu.getItems()).extracting(Node::getName)
                .containsExactly("cpu001", "cpu002", "cpu003", "cpu004", "cpu005", "cpu006", "cpu007", "cpu008");

        Node gpu = nodes.getNode("gpu001");
        assertThat(gpu.getGpus()).isEqualTo(8);
        assertThat(gpu.getGpuType()).isEqualTo("h100");
        assertThat(gpu.getPartitions()).contains("gpu");
        assertThat(gpu.getState()).isNotNull();

        assertThatExceptionOfType(ApiException.class).isThrownBy(() -> nodes.getNode("no-such-node"))
                .satisfies(e -> {
                    assertThat(e.getCode()).isEqualTo(404);
                    assertThat(e.getResponseBody()).contains("\"status\":404");
                });

        ApiClient anonymous = new ApiClient();
        anonymous.updateBaseUri(baseUri());
        assertThatExceptionOfType(ApiException.class).isThrownBy(() -> new NodesApi(anonymous).listNodes(null, null, null, null))
                .satisfies(e -> assertThat(e.getCode()).isEqualTo(401));
    }

    /** The SDK is generated from the committed document, so it must be the one the controller serves. */
    @Test
    void theCommittedOpenApiDocumentIsTheOneTheControllerServes() throws IOException, InterruptedException {
        JsonMapper json = JsonMapper.builder().build();
        HttpResponse<String> served = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(baseUri() + "/v3/api-docs")).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(served.statusCode()).isEqualTo(200);

        JsonNode live = comparable(json.readTree(served.body()));
        JsonNode committed = comparable(json.readTree(Files.readString(COMMITTED_SPEC)));
        List<String> differences = new ArrayList<>();
        diff("", committed, live, differences);
        assertThat(differences)
                .as("%s differs from the /v3/api-docs the controller serves (the generated SDK would not match the "
                        + "API). Run scripts/update-openapi.sh and commit the file. Differences (committed -> served):",
                        COMMITTED_SPEC)
                .isEmpty();
    }

    /** What may differ between runs without the API differing: the server URL and the jar's version. */
    private static JsonNode comparable(JsonNode doc) {
        ObjectNode copy = (ObjectNode) doc.deepCopy();
        copy.remove("servers");
        if (copy.get("info") instanceof ObjectNode info) {
            info.remove("version");
        }
        return copy;
    }

    private static void diff(String at, JsonNode committed, JsonNode live, List<String> out) {
        if (out.size() >= 25 || committed.equals(live)) {
            return;
        }
        if (committed.isObject() && live.isObject()) {
            Set<String> keys = new HashSet<>(committed.propertyNames());
            keys.addAll(live.propertyNames());
            keys.stream().sorted().forEach(key -> {
                String path = at + "/" + key.replace("~", "~0").replace("/", "~1");
                if (!committed.has(key)) {
                    out.add(path + ": only served");
                } else if (!live.has(key)) {
                    out.add(path + ": only committed");
                } else {
                    diff(path, committed.get(key), live.get(key), out);
                }
            });
        } else if (committed.isArray() && live.isArray() && committed.size() == live.size()) {
            for (int i = 0; i < committed.size(); i++) {
                diff(at + "/" + i, committed.get(i), live.get(i), out);
            }
        } else {
            out.add((at.isEmpty() ? "/" : at) + ": " + abbreviate(committed) + " -> " + abbreviate(live));
        }
    }

    private static String abbreviate(JsonNode node) {
        String text = node.toString();
        return text.length() > 120 ? text.substring(0, 117) + "..." : text;
    }

    private String baseUri() {
        return "http://127.0.0.1:" + port;
    }
}
