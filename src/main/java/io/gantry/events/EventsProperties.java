package io.gantry.events;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code gantry.events.*}: limits of the live event streams ({@code GET /api/v1/events}).
 *
 * @param maxStreams open streams this controller serves in all; one more is answered 429
 * @param maxStreamsPerUser open streams one user may hold (a browser tab each); one more is answered
 *        429, and the streams already open keep running
 * @param clientQueue events waiting to be written to one stream; a client that falls this far behind
 *        is dropped (its stream ends) and resumes with {@code Last-Event-ID}. The controller keeps
 *        at least this many recent events for such resumes. Events are shared by all streams: a
 *        stream's queue costs a reference per delivered batch, not a copy per event
 * @param heartbeat how often an idle stream gets a comment line, so proxies keep it open and a client
 *        that went away without a word is noticed
 */
@Validated
@ConfigurationProperties("gantry.events")
public record EventsProperties(
        @DefaultValue("1000") int maxStreams,
        @DefaultValue("8") int maxStreamsPerUser,
        @DefaultValue("5000") int clientQueue,
        @DefaultValue("20s") Duration heartbeat) {

    public EventsProperties {
        requirePositive("max-streams", maxStreams);
        requirePositive("max-streams-per-user", maxStreamsPerUser);
        requirePositive("client-queue", clientQueue);
        if (heartbeat == null || heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException("gantry.events.heartbeat must be a positive duration, was " + heartbeat);
        }
    }

    private static void requirePositive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException("gantry.events." + name + " must be at least 1, was " + value);
        }
    }
}
