package io.gantry.loadtest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.BiConsumer;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The few REST calls the load tests make, over the JDK's HTTP client with a bearer token: no Spring,
 * so the load generator costs the machine as little as possible besides the controller it measures.
 */
final class GantryClient {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http;
    private final URI base;
    private final String authorization;

    private GantryClient(HttpClient http, URI base, String authorization) {
        this.http = http;
        this.base = base;
        this.authorization = authorization;
    }

    static GantryClient signIn(String url, String user, String password) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        URI base = URI.create(url.endsWith("/") ? url : url + "/");
        GantryClient anonymous = new GantryClient(http, base, null);
        JsonNode token = anonymous.call("POST", "api/v1/auth/tokens",
                Map.of("username", user, "password", password, "lifetimeSeconds", 3600), 201);
        return new GantryClient(http, base, "Bearer " + token.get("token").asString());
    }

    /** POST /api/v1/jobs; returns the new job id. */
    long submit(Map<String, Object> job) {
        return call("POST", "api/v1/jobs", job, 201).get("jobId").asLong();
    }

    /** GET /api/v1/agents/join-token (ADMIN). */
    String joinToken() {
        return call("GET", "api/v1/agents/join-token", null, 200).get("joinToken").asString();
    }

    JsonNode diag() {
        return call("GET", "api/v1/diag", null, 200);
    }

    /**
     * CPU time the controller process has used, in nanoseconds, from its Prometheus metrics; -1 when
     * it does not say. On a shared machine, CPU per job is the figure other engineers' load does not move.
     */
    double controllerCpuNanos() {
        return metric(metrics(), "process_cpu_time_ns_total");
    }

    /** The controller's {@code /actuator/prometheus} text; empty when it does not answer. */
    String metrics() {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("actuator/prometheus")).GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException | RuntimeException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /**
     * The sum of a metric's samples whose labels contain {@code labels} (e.g. {@code area="heap"}),
     * from Prometheus text; -1 when there is none.
     */
    static double metric(String prometheus, String name, String... labels) {
        double sum = 0;
        boolean found = false;
        for (String line : prometheus.split("\n")) {
            if (!line.startsWith(name) || line.length() == name.length()) {
                continue;
            }
            char next = line.charAt(name.length());
            if (next != ' ' && next != '{') {
                continue;
            }
            boolean matches = true;
            for (String label : labels) {
                matches &= line.contains(label);
            }
            if (matches) {
                try {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).strip());
                    found = true;
                } catch (NumberFormatException e) {
                    // A sample with a timestamp or an odd value is skipped, not fatal.
                }
            }
        }
        return found ? sum : -1;
    }

    JsonNode get(String pathAndQuery) {
        return call("GET", pathAndQuery, null, 200);
    }

    JsonNode job(String id) {
        return call("GET", "api/v1/jobs/" + id, null, 200);
    }

    /**
     * Follows {@code GET /api/v1/events} on a daemon thread, handing each job event's subject and
     * change to {@code listener}; returns once the stream is open, so nothing after it is missed.
     */
    void followJobEvents(BiConsumer<String, String> listener) {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("api/v1/events"))
                .header("Authorization", authorization).header("Accept", "text/event-stream").GET().build();
        HttpResponse<InputStream> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET /api/v1/events answered " + response.statusCode());
        }
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                String event = null;
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    if (line.startsWith("event:")) {
                        event = line.substring(6).strip();
                    } else if (line.startsWith("data:") && "job".equals(event)) {
                        JsonNode data = JSON.readTree(line.substring(5).strip());
                        listener.accept(data.get("id").asString(), data.get("change").asString());
                    } else if (line.isEmpty()) {
                        event = null;
                    }
                }
            } catch (IOException e) {
                // The stream ends when the load test exits or the controller stops.
            }
        }, "loadtest-events");
        reader.setDaemon(true);
        reader.start();
    }

    private JsonNode call(String method, String path, Object body, int expected) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(300))
                .header("Accept", "application/json");
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<byte[]> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (response.statusCode() != expected) {
            throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": "
                    + new String(response.body(), StandardCharsets.UTF_8));
        }
        return JSON.readTree(response.body());
    }
}
