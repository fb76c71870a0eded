package io.gantry.support;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A client of {@code GET /api/v1/events} that reads its stream as a browser would, on a thread of its own. */
public final class SseClient implements AutoCloseable {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    /** One server-sent event or comment as a client reads it. */
    public record Sse(String event, Long id, String data, String comment) {
    }

    private final int status;
    private final InputStream body;
    private final List<Sse> events = new CopyOnWriteArrayList<>();
    private volatile boolean ended;

    private SseClient(int status, InputStream body) {
        this.status = status;
        this.body = body;
    }

    public static SseClient open(int port, String token, Long lastEventId) throws IOException, InterruptedException {
        return open(port, "/api/v1/events", token, lastEventId);
    }

    /** A stream of any endpoint that answers server-sent events ({@code path} with its query). */
    public static SseClient open(int port, String path, String token, Long lastEventId)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Accept", "text/event-stream").header("Authorization", "Bearer " + token)
                // a stream's headers come at once (its first line is the ":connected" comment): fail, never hang
                .timeout(java.time.Duration.ofSeconds(30));
        if (lastEventId != null) {
            request.header("Last-Event-ID", Long.toString(lastEventId));
        }
        HttpResponse<InputStream> response = HttpClient.newHttpClient().send(request.build(),
                HttpResponse.BodyHandlers.ofInputStream());
        SseClient client = new SseClient(response.statusCode(), response.body());
        Thread reader = new Thread(client::read, "test-sse-reader");
        reader.setDaemon(true);
        reader.start();
        return client;
    }

    public int status() {
        return status;
    }

    /** What arrived so far, in order. */
    public List<Sse> events() {
        return events;
    }

    /** Waits until the server ends the stream (the body reaches its end). */
    public void awaitEnd() {
        await().atMost(PATIENCE).until(() -> ended);
    }

    public void awaitComment(String comment) {
        await().atMost(PATIENCE).until(() -> events.stream().anyMatch(e -> comment.equals(e.comment())));
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String event = null;
            Long id = null;
            String data = null;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.isEmpty()) {
                    if (event != null || data != null) {
                        events.add(new Sse(event, id, data, null));
                    }
                    event = null;
                    id = null;
                    data = null;
                } else if (line.startsWith(":")) {
                    events.add(new Sse(null, null, null, line.substring(1).trim()));
                } else if (line.startsWith("event:")) {
                    event = line.substring(6).trim();
                } else if (line.startsWith("id:")) {
                    id = Long.parseLong(line.substring(3).trim());
                } else if (line.startsWith("data:")) {
                    data = line.substring(5).trim();
                }
            }
            ended = true;
        } catch (IOException closed) {
            // the test closed the stream
        }
    }

    @Override
    public void close() throws IOException {
        body.close();
    }
}
