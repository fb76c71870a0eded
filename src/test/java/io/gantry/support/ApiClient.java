package io.gantry.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

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

    public Response send(String method, String path, String token, Object body) {
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

    public record Response(int status, String contentType, String body) {

        public JsonNode json() {
            return JSON.readTree(body);
        }

        public boolean isProblem() {
            return contentType.startsWith("application/problem+json");
        }
    }
}
