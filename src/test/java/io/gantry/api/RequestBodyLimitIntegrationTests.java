package io.gantry.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.GantryIntegrationTest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Request bodies over gantry.api.max-request-bytes (16 MB by default) are answered 413 problem+json, whole. */
@GantryIntegrationTest
class RequestBodyLimitIntegrationTests {

    private static final int TWENTY_MB = 20 * 1024 * 1024;
    private static final String DETAIL = "Request body exceeds " + 16 * 1024 * 1024 + " bytes";

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private String admin;

    @BeforeEach
    void signIn() {
        admin = new ApiClient(port).adminToken();
    }

    @Test
    void aTwentyMegabyteSubmissionIsA413() throws Exception {
        HttpResponse<String> response = post("/api/v1/jobs", admin, HttpRequest.BodyPublishers.ofByteArray(twentyMbOfJson()));
        assertTooLarge(response);
    }

    @Test
    void aTwentyMegabyteChunkedBodyIsA413Too() throws Exception {
        byte[] body = twentyMbOfJson();
        // A publisher of unknown length: the client sends it chunked, without a Content-Length.
        HttpResponse<String> response = post("/api/v1/jobs", admin,
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)));
        assertTooLarge(response);
    }

    @Test
    void anyEndpointAndNoTokenNeededToBeToldSo() throws Exception {
        assertTooLarge(post("/api/v1/auth/tokens", null, HttpRequest.BodyPublishers.ofByteArray(twentyMbOfJson())));
        assertTooLarge(post("/api/v1/accounts", admin, HttpRequest.BodyPublishers.ofByteArray(twentyMbOfJson())));
    }

    @Test
    void aBodyUnderTheCapIsReadAsUsual() throws Exception {
        byte[] small = "{\"name\": \"small\", \"hold\": true, \"partition\": \"cpu\"}".getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> response = post("/api/v1/jobs", admin, HttpRequest.BodyPublishers.ofByteArray(small));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        long id = JsonMapper.builder().build().readTree(response.body()).get("jobId").asLong();
        new ApiClient(port).send("DELETE", "/api/v1/jobs/" + id, admin, null);
    }

    private static void assertTooLarge(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(413);
        assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        JsonNode problem = JsonMapper.builder().build().readTree(response.body());
        assertThat(problem.get("status").asInt()).isEqualTo(413);
        assertThat(problem.get("type").asString()).endsWith("/payload-too-large");
        assertThat(problem.get("detail").asString()).isEqualTo(DETAIL);
    }

    /** A JSON object whose script is twenty megabytes of comment: valid, just too large. */
    private static byte[] twentyMbOfJson() {
        char[] hashes = new char[TWENTY_MB];
        Arrays.fill(hashes, '#');
        return ("{\"name\": \"huge\", \"hold\": true, \"script\": \"" + new String(hashes) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private HttpResponse<String> post(String path, String token, HttpRequest.BodyPublisher body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, application/problem+json")
                .POST(body);
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
