package io.gantry.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.GantryIntegrationTest;
import io.gantry.support.SseClient;
import io.gantry.support.SseClient.Sse;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Live events on real PostgreSQL: a client that stops reading holds up neither the scheduler nor
 * the other clients, is dropped and resumes; streams are capped per user; an event sent by one
 * controller reaches the clients of another (that a client going away is no error in the log is
 * {@link EventsLogIntegrationTests}).
 */
@GantryIntegrationTest
class EventsIntegrationTests {

    static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    int port;

    @Autowired
    LiveEvents liveEvents;

    @Autowired
    EventStreams streams;

    @Autowired
    DataSource dataSource;

    @Autowired
    EventsProperties properties;

    ApiClient api;
    String admin;

    @BeforeEach
    void signIn() {
        api = new ApiClient(port);
        admin = api.adminToken();
    }

    @Test
    void aClientThatStopsReadingDelaysNeitherSchedulingNorOtherClientsAndIsDroppedThenResumes() throws Exception {
        String stalledUser = createUser();
        String readingUser = createUser();
        String tag = UUID.randomUUID().toString().substring(0, 8);
        try (StalledClient stalled = new StalledClient(port, api.token(stalledUser, "secret-password"));
                SseClient reader = SseClient.open(port, api.token(readingUser, "secret-password"), null)) {
            assertThat(reader.status()).isEqualTo(200);
            reader.awaitComment("connected");
            await().atMost(PATIENCE).until(() -> streams.openStreams(stalledUser) == 1);

            int published = 0;
            String submittedJob = null;
            while (streams.openStreams(stalledUser) > 0) {
                assertThat(published).as("the stalled client should have been dropped by now").isLessThan(100_000);
                published = publishAndAwait(reader, tag, published, 500);
                if (submittedJob == null && published >= 2 * properties.clientQueue() / 3) {
                    // The stalled client's socket is full by now and its queue filling: the scheduler
                    // must start a job all the same, and the reading client hear of it.
                    Response submitted = api.send("POST", "/api/v1/jobs", admin, Map.of("name", "while-stalled",
                            "partition", "cpu", "timeLimitSeconds", 600, "simulatedRunSeconds", 600));
                    assertThat(submitted.status()).as(submitted.body()).isEqualTo(201);
                    submittedJob = submitted.json().get("jobId").asString();
                    String job = submittedJob;
                    await().atMost(PATIENCE).until(() -> "RUNNING".equals(
                            api.get("/api/v1/jobs/" + job, admin).json().get("state").asString()));
                    await().atMost(PATIENCE).until(() -> reader.events().stream()
                            .anyMatch(e -> e.data() != null && e.data().contains("\"id\":\"" + job + "\"")
                                    && e.data().contains("RUNNING")));
                }
            }
            assertThat(submittedJob).as("a job was submitted while the client stalled").isNotNull();
            api.send("DELETE", "/api/v1/jobs/" + submittedJob, admin, null);

            // The reading client got every event, in order, and no reset.
            List<Long> tagged = reader.events().stream().filter(e -> e.data() != null && e.data().contains(tag))
                    .map(Sse::id).toList();
            assertThat(tagged).hasSize(published);
            assertThat(tagged).isSorted();
            assertThat(reader.events()).noneMatch(e -> "reset".equals(e.event()));

            // The stalled client, once it reads again, finds its stream ended; it resumes from its last id.
            List<Long> seen = stalled.readToEnd();
            assertThat(seen).isNotEmpty();
            long last = seen.get(seen.size() - 1);
            List<LiveEvent> recent = streams.recent();
            try (SseClient resumed = SseClient.open(port, api.token(stalledUser, "secret-password"), last)) {
                assertThat(resumed.status()).isEqualTo(200);
                resumed.awaitComment("connected");
                List<Sse> replay = resumed.events();
                boolean kept = recent.stream().anyMatch(e -> e.id() == last);
                if (kept) {
                    assertThat(replay.get(0).event()).isEqualTo("job");
                    assertThat(replay.get(0).id()).isGreaterThan(last);
                } else {
                    assertThat(replay.get(0).event()).isEqualTo("reset");
                }
            }
        }
    }

    @Test
    void aClientThatResumesWithLastEventIdGetsWhatItMissedAndNothingElse() throws Exception {
        String user = createUser();
        String token = api.token(user, "secret-password");
        String tag = UUID.randomUUID().toString().substring(0, 8);
        long last;
        try (SseClient first = SseClient.open(port, token, null)) {
            first.awaitComment("connected");
            publishAndAwait(first, tag, 0, 3);
            last = first.events().get(first.events().size() - 1).id();
        }
        for (int i = 3; i < 8; i++) {
            liveEvents.publish("job", tag + "-" + i, "TEST");
        }
        await().atMost(PATIENCE).until(() -> streams.recent().stream().anyMatch(e -> e.subject().equals(tag + "-7")));
        try (SseClient resumed = SseClient.open(port, token, last)) {
            resumed.awaitComment("connected");
            List<Sse> replay = resumed.events().stream().filter(e -> e.event() != null).toList();
            assertThat(replay).extracting(e -> JSON.readTree(e.data()).get("id").asString())
                    .containsExactly(tag + "-3", tag + "-4", tag + "-5", tag + "-6", tag + "-7");
            JsonNode data = JSON.readTree(replay.get(0).data());
            assertThat(data.propertyNames()).containsExactly("kind", "id", "change", "time");
            assertThat(data.get("kind").asString()).isEqualTo("job");
            assertThat(Instant.parse(data.get("time").asString())).isNotNull();
        }
    }

    @Test
    void oneUserMayHoldOnlySoManyStreamsAndTheNextIsAnswered429() throws Exception {
        String user = createUser();
        String token = api.token(user, "secret-password");
        List<SseClient> open = new ArrayList<>();
        try {
            for (int i = 0; i < properties.maxStreamsPerUser(); i++) {
                SseClient client = SseClient.open(port, token, null);
                open.add(client);
                assertThat(client.status()).isEqualTo(200);
                client.awaitComment("connected");
            }
            // Asked for as a browser's EventSource asks, and as a REST client asks.
            for (String accept : List.of("text/event-stream", "*/*")) {
                HttpResponse<String> refused = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/api/v1/events")).header("Accept", accept)
                        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(refused.statusCode()).as(accept + ": " + refused.body()).isEqualTo(429);
                assertThat(refused.headers().firstValue("Content-Type").orElse(""))
                        .startsWith("application/problem+json");
                JsonNode problem = JSON.readTree(refused.body());
                assertThat(problem.get("type").asString()).endsWith("/too-many-requests");
                assertThat(problem.get("detail").asString()).contains("max-streams-per-user");
            }

            // The streams already open are untouched, and another user is not affected.
            String tag = UUID.randomUUID().toString().substring(0, 8);
            publishAndAwait(open.get(0), tag, 0, 1);
            for (SseClient client : open) {
                await().atMost(PATIENCE).until(() -> client.events().stream()
                        .anyMatch(e -> e.data() != null && e.data().contains(tag)));
            }
            try (SseClient other = SseClient.open(port, api.token(createUser(), "secret-password"), null)) {
                assertThat(other.status()).isEqualTo(200);
            }
        } finally {
            for (SseClient client : open) {
                client.close();
            }
        }
    }

    @Test
    void anEventSentByOneControllerReachesTheClientsOfAnotherWithTheSameId() throws Exception {
        // A second controller's event machinery, by hand, on the same database.
        EventStreams otherStreams = new EventStreams(properties);
        PostgresEventRelay otherRelay = new PostgresEventRelay(dataSource, otherStreams, properties);
        otherRelay.start();
        try (SseClient reader = SseClient.open(port, api.token(createUser(), "secret-password"), null)) {
            reader.awaitComment("connected");
            String tag = UUID.randomUUID().toString().substring(0, 8);

            // From this controller to the other: once the other listens, it hears ours, same id.
            await().atMost(PATIENCE).until(() -> {
                liveEvents.publish("node", tag + "-ours", "IDLE");
                return otherStreams.recent().stream().anyMatch(e -> e.subject().equals(tag + "-ours"));
            });
            LiveEvent ours = otherStreams.recent().stream().filter(e -> e.subject().equals(tag + "-ours"))
                    .findFirst().orElseThrow();
            await().atMost(PATIENCE).until(() -> streams.recent().contains(ours));

            // From the other controller to a client of this one, same id as the other one gave it.
            otherRelay.offer(new EventRelay.Draft("job", tag + "-theirs", "COMPLETED", Instant.parse("2030-01-01T00:00:00Z")));
            await().atMost(PATIENCE).until(() -> reader.events().stream()
                    .anyMatch(e -> e.data() != null && e.data().contains(tag + "-theirs")));
            Sse received = reader.events().stream().filter(e -> e.data() != null && e.data().contains(tag + "-theirs"))
                    .findFirst().orElseThrow();
            LiveEvent theirs = otherStreams.recent().stream().filter(e -> e.subject().equals(tag + "-theirs"))
                    .findFirst().orElseThrow();
            assertThat(received.id()).isEqualTo(theirs.id());
            assertThat(received.event()).isEqualTo("job");
            assertThat(JSON.readTree(received.data()).get("change").asString()).isEqualTo("COMPLETED");
            // Delivered once here, not once per controller.
            assertThat(reader.events().stream().filter(e -> e.data() != null && e.data().contains(tag + "-theirs")))
                    .hasSize(1);
        } finally {
            otherRelay.stop();
            otherStreams.closeStreams();
            otherStreams.destroy();
        }
    }

    @Test
    void aStreamEndsWithinSecondsOnceItsTokenIsRevokedOrItsUserDisabledNotAtTheNextHeartbeat() throws Exception {
        assertThat(properties.heartbeat()).as("the heartbeat alone would take longer").isGreaterThan(Duration.ofSeconds(5));
        String revokes = createUser();
        String disabled = createUser();
        String stays = createUser();
        try (SseClient revoked = SseClient.open(port, api.token(revokes, "secret-password"), null);
                SseClient ofDisabled = SseClient.open(port, api.token(disabled, "secret-password"), null);
                SseClient kept = SseClient.open(port, api.token(stays, "secret-password"), null)) {
            revoked.awaitComment("connected");
            ofDisabled.awaitComment("connected");
            kept.awaitComment("connected");

            long start = System.nanoTime();
            assertThat(api.send("POST", "/api/v1/auth/tokens/revoke?user=" + revokes, admin, null).status())
                    .isEqualTo(204);
            Response disabling = api.send("PATCH", "/api/v1/users/" + disabled, admin, Map.of("enabled", false));
            assertThat(disabling.status()).as(disabling.body()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> streams.openStreams(revokes) == 0 && streams.openStreams(disabled) == 0);
            revoked.awaitEnd();
            ofDisabled.awaitEnd();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(streams.openStreams(stays)).as("another user's stream is left alone").isEqualTo(1);
        }
    }

    /** Publishes {@code count} events tagged {@code tag} and waits until {@code reader} has them all. */
    private int publishAndAwait(SseClient reader, String tag, int from, int count) {
        for (int i = from; i < from + count; i++) {
            liveEvents.publish("job", tag + "-" + i, "TEST");
        }
        String lastSubject = "\"" + tag + "-" + (from + count - 1) + "\"";
        await().atMost(PATIENCE).until(() -> reader.events().stream()
                .anyMatch(e -> e.data() != null && e.data().contains(lastSubject)));
        return from + count;
    }

    private String createUser() {
        String name = "u" + UUID.randomUUID().toString().substring(0, 8);
        Response created = api.send("POST", "/api/v1/users", admin,
                Map.of("username", name, "password", "secret-password", "roles", List.of("USER"),
                        "defaultAccount", "root"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return name;
    }

    /**
     * A client that sends its request and then does not read: a tiny receive buffer, so the
     * controller's writes to it block as soon as the socket buffers fill.
     */
    static final class StalledClient implements AutoCloseable {

        private static final Pattern ID = Pattern.compile("(?m)^id:(\\d+)$");

        private final Socket socket = new Socket();

        StalledClient(int port, String token) throws IOException {
            socket.setReceiveBufferSize(1024);
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAccept: text/event-stream\r\n"
                    + "Authorization: Bearer " + token + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        /** Reads the rest of the response (chunked) to its end; the event ids it carried, in order. */
        List<Long> readToEnd() throws IOException {
            socket.setSoTimeout((int) PATIENCE.toMillis());
            InputStream in = socket.getInputStream();
            String headers = line(in);
            assertThat(headers).startsWith("HTTP/1.1 200");
            while (!line(in).isEmpty()) {
                // skip the headers
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (int size = Integer.parseInt(line(in).trim(), 16); size > 0;
                    size = Integer.parseInt(line(in).trim(), 16)) {
                body.write(in.readNBytes(size));
                line(in);
            }
            List<Long> ids = new ArrayList<>();
            Matcher m = ID.matcher(body.toString(StandardCharsets.UTF_8));
            while (m.find()) {
                ids.add(Long.parseLong(m.group(1)));
            }
            return ids;
        }

        /** Goes away without a word: a reset connection, as a crashed browser leaves. */
        void abort() throws IOException {
            socket.setSoLinger(true, 0);
            socket.close();
        }

        private static String line(InputStream in) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int b = in.read(); b != '\n'; b = in.read()) {
                if (b < 0) {
                    throw new IOException("the stream ended mid-line");
                }
                if (b != '\r') {
                    line.write(b);
                }
            }
            return line.toString(StandardCharsets.US_ASCII);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
