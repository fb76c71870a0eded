package io.gantry.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Debian's {@code prometheus} scraping a test controller's {@code /metrics} every second, as a cluster team
 * runs it, with its own storage and port; PromQL through its HTTP API. {@link #start} returns once the
 * first scrape found the page well-formed ({@code up == 1}).
 */
public final class Prometheus implements AutoCloseable {

    public static final Path BINARY = Path.of("/usr/bin/prometheus");
    /** The reason a test skips without it. */
    public static final String MISSING = "Debian's prometheus is not installed (apt-get install -y prometheus)";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Process process;
    private final int port;
    private final HttpClient http = HttpClient.newHttpClient();

    private Prometheus(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    public static boolean installed() {
        return Files.isExecutable(BINARY);
    }

    /** Starts one in {@code dir} scraping {@code http://127.0.0.1:controllerPort/metrics} as job "gantry". */
    public static Prometheus start(Path dir, int controllerPort) throws IOException {
        Files.createDirectories(dir);
        int port = freePort();
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: gantry
                    scrape_interval: 1s
                    scrape_timeout: 1s
                    metrics_path: /metrics
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                """.formatted(controllerPort));
        Process process = new ProcessBuilder(BINARY.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + Files.createDirectories(dir.resolve("tsdb")),
                "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        Prometheus prometheus = new Prometheus(process, port);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> prometheus.value("up{job=\"gantry\"}") == 1.0);
        return prometheus;
    }

    /** The single series a query answers, NaN for none. */
    public double value(String promql) throws IOException, InterruptedException {
        JsonNode result = query(promql);
        return result.isEmpty() ? Double.NaN : result.get(0).get("value").get(1).asDouble();
    }

    /** The result vector of an instant query. */
    public JsonNode query(String promql) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode body = JSON.readTree(answer.body());
        assertThat(body.get("status").asString()).as(answer.body()).isEqualTo("success");
        return body.get("data").get("result");
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
