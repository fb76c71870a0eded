package io.gantry.cli;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;

/** {@link ControllerApi} over HTTP with {@code java.net.http}: no Spring, so a command starts in well under a second. */
final class HttpControllerApi implements ControllerApi {

    static final JsonMapper JSON = JsonMapper.builder()
            .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private final URI base;
    private final String token;
    private final HttpClient http;

    HttpControllerApi(URI base, String token) {
        this.base = base;
        this.token = token;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @Override
    public String host() {
        return base.getHost();
    }

    @Override
    public JsonNode get(String path) {
        return send(request(path).GET(), true);
    }

    @Override
    public JsonNode post(String path, Object body) {
        return send(request(path).POST(bodyOf(body)).header("Content-Type", "application/json"), false);
    }

    @Override
    public JsonNode patch(String path, Object body) {
        return send(request(path).method("PATCH", bodyOf(body)).header("Content-Type", "application/json"), false);
    }

    @Override
    public JsonNode delete(String path) {
        return send(request(path).DELETE(), false);
    }

    private HttpRequest.Builder request(String path) {
        String root = base.toString().endsWith("/") ? base.toString().substring(0, base.toString().length() - 1)
                : base.toString();
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(root + path)).timeout(Duration.ofSeconds(60))
                .header("Accept", "application/json");
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }

    private static HttpRequest.BodyPublisher bodyOf(Object body) {
        return HttpRequest.BodyPublishers.ofString(body == null ? "{}" : JSON.writeValueAsString(body));
    }

    private JsonNode send(HttpRequest.Builder builder, boolean notFoundIsNull) {
        HttpResponse<String> response;
        try {
            response = http.send(builder.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new Unreachable("Unable to contact the Gantry controller at " + base + " ("
                    + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()) + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while waiting for the Gantry controller at " + base);
        }
        int status = response.statusCode();
        if (status == 404 && notFoundIsNull) {
            return null;
        }
        JsonNode body = parse(response.body());
        if (status >= 200 && status < 300) {
            return body;
        }
        String detail = body != null && body.hasNonNull("detail") ? body.get("detail").asString()
                : body != null && body.hasNonNull("title") ? body.get("title").asString() : "HTTP " + status;
        if (status == 401) {
            detail = "Invalid authentication credential (" + detail + "): run 'gantry login' or set GANTRY_TOKEN";
        }
        throw new ApiException(status, detail);
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return JSON.readTree(body);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
