package io.gantry.cli.srun;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.OptionalLong;
import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.StepProtocol;
import tools.jackson.core.JacksonException;

/**
 * The calls srun and salloc make to the controllers, as one user or one job's credential: each to the
 * controller that answered last, on to the next one when it cannot be reached or does not lead.
 */
final class ControllerCalls {

    /** A controller's answer. */
    record Answer(int status, String body, OptionalLong retryAfterSeconds) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        /** The body as {@code type}; an IOException when it is not one. */
        <T> T read(Class<T> type) throws IOException {
            try {
                return AgentJson.MAPPER.readValue(body, type);
            } catch (JacksonException e) {
                throw new IOException("unreadable answer from the controller: " + e.getOriginalMessage(), e);
            }
        }
    }

    /** The most bytes of input one request carries (the controller's limit). */
    static final int MAX_INPUT = io.gantry.noded.protocol.StepProtocol.MAX_INPUT_BYTES;

    private final HttpClient http;
    private final List<URI> controllers;
    private final String token;
    private volatile int current;

    /**
     * Calls to {@code controllers}, over a client made for them. When none is HTTPS the client gets a TLS
     * context that trusts nothing (it never speaks TLS): the JDK's default one reads the whole CA store
     * when the client is made, a third of a short srun's run.
     */
    static ControllerCalls to(List<URI> controllers, String token) {
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10));
        if (controllers.stream().noneMatch(u -> "https".equalsIgnoreCase(u.getScheme()))) {
            builder.sslContext(plainOnly());
        }
        return new ControllerCalls(builder.build(), controllers, token);
    }

    private static javax.net.ssl.SSLContext plainOnly() {
        try {
            javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
            context.init(new javax.net.ssl.KeyManager[0], new javax.net.ssl.TrustManager[] {
                new javax.net.ssl.X509TrustManager() {
                    @Override
                    public void checkClientTrusted(java.security.cert.X509Certificate[] chain, String authType)
                            throws java.security.cert.CertificateException {
                        throw new java.security.cert.CertificateException("no TLS to plain-HTTP controllers");
                    }

                    @Override
                    public void checkServerTrusted(java.security.cert.X509Certificate[] chain, String authType)
                            throws java.security.cert.CertificateException {
                        throw new java.security.cert.CertificateException("no TLS to plain-HTTP controllers");
                    }

                    @Override
                    public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                        return new java.security.cert.X509Certificate[0];
                    }
                }
            }, null);
            return context;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("no TLS context", e);
        }
    }

    ControllerCalls(HttpClient http, List<URI> controllers, String token) {
        this.http = http;
        this.controllers = List.copyOf(controllers);
        this.token = token;
    }

    /**
     * One call to the controller that answered last; when it cannot be reached, or says it does not
     * lead (421, or 503 without Retry-After), the next one, once round.
     */
    Answer call(String method, String path, byte[] body, Duration timeout)
            throws IOException, InterruptedException {
        int first = current;
        for (int tried = 0;; tried++) {
            int index = (first + tried) % controllers.size();
            boolean last = tried + 1 >= controllers.size();
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(controllers.get(index) + path))
                    .timeout(timeout)
                    .header("Authorization", "Bearer " + token)
                    .header("Accept", "application/json");
            if (method.equals("DELETE")) {
                request.DELETE();
            } else if (body == null) {
                request.GET();
            } else {
                request.header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            }
            HttpResponse<String> response;
            try {
                response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (ConnectException | HttpConnectTimeoutException e) {
                if (last) {
                    throw new IOException("cannot reach the controller at " + controllers.get(index) + ": "
                            + (e.getMessage() == null ? "connection refused" : e.getMessage()), e);
                }
                continue;
            }
            OptionalLong retryAfter = response.headers().firstValue("Retry-After").map(v -> {
                try {
                    return OptionalLong.of(Long.parseLong(v.strip()));
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }).orElse(OptionalLong.empty());
            int status = response.statusCode();
            if (!last && (status == 421 || status == 503 && retryAfter.isEmpty())) {
                continue;
            }
            current = index;
            return new Answer(status, response.body(), retryAfter);
        }
    }

    /**
     * Submits a job of {@code script} for the login's user, from {@code workdir}, with the submitter's
     * environment (never its login token nor a job's credential); {@code name} null leaves the name to
     * the script's directives.
     */
    Answer submitJob(String script, Map<String, String> environment, String name, String workdir, Duration timeout)
            throws IOException, InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("script", script);
        Map<String, String> exported = new TreeMap<>();
        environment.forEach((k, v) -> {
            if (k != null && v != null && k.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                exported.put(k, v);
            }
        });
        // a job never carries its submitter's login
        exported.remove("GANTRY_TOKEN");
        exported.remove(StepProtocol.CREDENTIAL_ENV);
        body.put("environment", exported);
        if (name != null) {
            body.put("name", name);
        }
        body.put("workdir", workdir);
        return call("POST", "/api/v1/jobs", AgentJson.MAPPER.writeValueAsBytes(body), timeout);
    }

    /** Cancels job {@code id}; null when it is cancelled or had ended, else why not. */
    String cancelJob(String id, Duration timeout) {
        try {
            Answer answer = call("DELETE", "/api/v1/jobs/" + id, null, timeout);
            return answer.ok() || answer.status() == 409 ? null
                    : "HTTP " + answer.status() + " " + AgentJson.problemDetail(answer.body());
        } catch (IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
