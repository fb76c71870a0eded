package io.gantry.events;

import static io.gantry.events.EventsIntegrationTests.PATIENCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;

import io.gantry.events.EventsIntegrationTests.StalledClient;
import io.gantry.support.ApiClient;
import io.gantry.support.GantryIntegrationTest;

/**
 * A client going away from its live events is no error in the log. Apart from the other live-event tests
 * ({@link EventsIntegrationTests}) because it reads the JVM's output, which classes running beside it would
 * write to: JUnit runs it alone, after all the others, so the less it holds the shorter that end.
 */
@Isolated
@GantryIntegrationTest
class EventsLogIntegrationTests {

    @LocalServerPort
    int port;

    @Autowired
    LiveEvents liveEvents;

    @Autowired
    EventStreams streams;

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aClientGoingAwayIsNoErrorInTheLog(CapturedOutput output) throws Exception {
        ApiClient api = new ApiClient(port);
        String user = "u" + UUID.randomUUID().toString().substring(0, 8);
        String token = api.createUser(api.adminToken(), user, "secret-password");
        String tag = UUID.randomUUID().toString().substring(0, 8);
        StalledClient leaving = new StalledClient(port, token);
        await().atMost(PATIENCE).until(() -> streams.openStreams(user) == 1);
        leaving.abort();
        // The next writes to it fail: the stream ends, quietly.
        int published = 0;
        while (streams.openStreams(user) > 0) {
            assertThat(published).isLessThan(50_000);
            for (int i = 0; i < 50; i++) {
                liveEvents.publish("job", tag + "-" + published++, "TEST");
            }
            String lastSubject = tag + "-" + (published - 1);
            await().atMost(PATIENCE).until(() -> streams.recent().stream()
                    .anyMatch(e -> e.subject().equals(lastSubject)));
        }
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> true);
        assertThat(output.getAll()).doesNotContain("Unexpected error", "ClientAbortException", "Broken pipe",
                "Connection reset", "AsyncRequestNotUsableException");
    }
}
