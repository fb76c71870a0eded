package io.gantry.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
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

/**
 * {@link ControllerApi} over HTTP: no Spring, so a command starts in well under a second. Requests go
 * through {@link HttpURLConnection}, which costs a command about 50 ms where building a
 * {@code java.net.http.HttpClient} (its executor, selector thread and default TLS context, trust store
 * read) and its first exchange cost about 350 ms (measured on this project's 2-core machine). Only
 * PATCH, which {@code HttpURLConnection} refuses, takes the {@code java.net.http} client, made when first needed.
 */
final class HttpControllerApi implements ControllerApi {

    static final JsonMapper JSON = JsonMapper.builder()
            .disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    private static final int READ_TIMEOUT_MILLIS = 60_000;

    private final URI base;
    private final String token;
    private HttpClient patchClient;

    HttpControllerApi(URI base, String token) {
        this.base = base;
        this.token = token;
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
        return send("GET", path, null, true);
    }

    @Override
    public JsonNode post(String path, Object body) {
        return send("POST", path, json(body), false);
    }

    @Override
    public JsonNode patch(String path, Object body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofMillis(READ_TIMEOUT_MILLIS))
                .header("Accept", "application/json").header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(json(body)));
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        if (patchClient == null) {
            patchClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofMillis(CONNECT_TIMEOUT_MILLIS)).build();
        }
        try {
            HttpResponse<String> response = patchClient.send(builder.build(), HttpResponse.BodyHandlers.ofString());
            return answer(response.statusCode(), response.body(), false);
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while waiting for the Gantry controller at " + base);
        }
    }

    @Override
    public JsonNode delete(String path) {
        return send("DELETE", path, null, false);
    }

    private URI uri(String path) {
        String root = base.toString().endsWith("/") ? base.toString().substring(0, base.toString().length() - 1)
                : base.toString();
        return URI.create(root + path);
    }

    private static String json(Object body) {
        return body == null ? "{}" : JSON.writeValueAsString(body);
    }

    private JsonNode send(String method, String path, String body, boolean notFoundIsNull) {
        HttpURLConnection connection = null;
        try {
            connection = (HttpURLConnection) uri(path).toURL().openConnection();
            connection.setRequestMethod(method);
            connection.setConnectTimeout(CONNECT_TIMEOUT_MILLIS);
            connection.setReadTimeout(READ_TIMEOUT_MILLIS);
            connection.setUseCaches(false);
            connection.setInstanceFollowRedirects(false);
            connection.setRequestProperty("Accept", "application/json");
            if (token != null) {
                connection.setRequestProperty("Authorization", "Bearer " + token);
            }
            if (body != null) {
                byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                connection.setDoOutput(true);
                connection.setRequestProperty("Content-Type", "application/json");
                connection.setFixedLengthStreamingMode(bytes.length);
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(bytes);
                }
            }
            int status = connection.getResponseCode();
            InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
            String text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return answer(status, text, notFoundIsNull);
        } catch (IOException e) {
            throw unreachable(e);
        } finally {
            if (connection != null) {
                connection.disconnect();
            }
        }
    }

    private Unreachable unreachable(IOException e) {
        return new Unreachable("Unable to contact the Gantry controller at " + base + " ("
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()) + ")");
    }

    private JsonNode answer(int status, String text, boolean notFoundIsNull) {
        if (status == 404 && notFoundIsNull) {
            return null;
        }
        JsonNode body = parse(text);
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
