package io.gantry.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A plain HTTP client for integration tests: real requests to the running controller. */
public final class ApiClient {

    public static final String ADMIN_PASSWORD = "admin-test-password";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    public ApiClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    public Response get(String path, String token) {
        return send("GET", path, token, null);
    }

    /**
     * {@code method path} with {@code body} (JSON, or a String as it is). A write a controller answers
     * "No scheduling leader is reachable yet" (503: it started a moment ago, or a takeover is under way,
     * and it says to retry shortly) is retried for up to 30 s, as a client should.
     */
    public Response send(String method, String path, String token, Object body) {
        Response first = sendOnce(method, path, token, body);
        if (!leaderless(first)) {
            return first;
        }
        AtomicReference<Response> last = new AtomicReference<>(first);
        try {
            return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        last.set(sendOnce(method, path, token, body));
                        return last.get();
                    }, response -> !leaderless(response));
        } catch (ConditionTimeoutException stillLeaderless) {
            return last.get();
        }
    }

    private static boolean leaderless(Response response) {
        return response.status() == 503 && response.body().contains("No scheduling leader is reachable yet");
    }

    private Response sendOnce(String method, String path, String token, Object body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json, application/problem+json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            String text = body instanceof String s ? s : JSON.writeValueAsString(body);
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(text));
        }
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(),
                    response.headers().firstValue("Content-Type").orElse(""), response.body());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(method + " " + path + " interrupted", e);
        }
    }

    /** Signs in and returns the bearer token. */
    public String token(String username, String password) {
        Response response = send("POST", "/api/v1/auth/tokens", null,
                java.util.Map.of("username", username, "password", password));
        if (response.status() != 201) {
            throw new IllegalStateException("sign-in as " + username + " failed: " + response);
        }
        return response.json().get("token").asString();
    }

    public String adminToken() {
        return token("admin", ADMIN_PASSWORD);
    }

    /** Submits a job as {@code token}'s user; fails unless the controller answers 201. Returns its job id. */
    public long submitJob(String token, Object job) {
        Response response = send("POST", "/api/v1/jobs", token, job);
        if (response.status() != 201) {
            throw new AssertionError("submitting " + job + " was answered " + response);
        }
        return response.json().get("jobId").asLong();
    }

    /**
     * Waits up to {@code timeout} until the job is in {@code state} and returns it; fails at once when
     * it ends in another state, since an ended job never changes again.
     */
    public JsonNode awaitJobState(long id, String token, String state, Duration timeout) {
        JsonNode[] last = new JsonNode[1];
        org.awaitility.Awaitility.await("job " + id + " " + state).atMost(timeout).pollInterval(Duration.ofMillis(200))
                .failFast(() -> last[0] != null && !state.equals(last[0].get("state").asString())
                        && ENDED.contains(last[0].get("state").asString()))
                .until(() -> {
                    last[0] = get("/api/v1/jobs/" + id, token).json();
                    return state.equals(last[0].get("state").asString());
                });
        return last[0];
    }

    /** Waits up to {@code timeout} until node {@code node} exists and is in one of {@code states}. */
    public void awaitNodeState(String node, String token, Duration timeout, String... states) {
        org.awaitility.Awaitility.await("node " + node + " " + String.join("|", states)).atMost(timeout)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    Response response = get("/api/v1/nodes/" + node, token);
                    return response.status() == 200
                            && java.util.List.of(states).contains(response.json().get("state").asString());
                });
    }

    /**
     * Creates a USER {@code username} (default account root) as ADMIN {@code adminToken}; fails unless the
     * controller answers 201. Returns the new user's bearer token.
     */
    public String createUser(String adminToken, String username, String password) {
        Response created = send("POST", "/api/v1/users", adminToken, java.util.Map.of("username", username,
                "password", password, "roles", java.util.List.of("USER"), "defaultAccount", "root"));
        if (created.status() != 201) {
            throw new AssertionError("creating user " + username + " was answered " + created);
        }
        return token(username, password);
    }

    private static final java.util.Set<String> ENDED = java.util.Set.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT",
            "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED", "DEADLINE", "BOOT_FAIL");

    public record Response(int status, String contentType, String body) {

        public JsonNode json() {
            return JSON.readTree(body);
        }

        public boolean isProblem() {
            return contentType.startsWith("application/problem+json");
        }
    }
}
