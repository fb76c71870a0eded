package io.gantry.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

class EventRingTests {

    private static LiveEvent event(long id) {
        return new LiveEvent(id, "job", Long.toString(id), "RUNNING", Instant.parse("2030-01-01T00:00:00Z"));
    }

    private static List<Long> ids(List<LiveEvent> events) {
        return events.stream().map(LiveEvent::id).toList();
    }

    @Test
    void beforeItKnowsWhereItStartsEveryResumeIsToldToReload() {
        EventRing ring = new EventRing(10);
        assertThat(ring.since(5)).isEmpty();
    }

    @Test
    void aClientGetsWhatCameAfterItsLastEvent() {
        EventRing ring = new EventRing(10);
        ring.restart(100);
        for (long id = 101; id <= 105; id++) {
            ring.add(event(id));
        }
        assertThat(ids(ring.since(102).orElseThrow())).containsExactly(103L, 104L, 105L);
        assertThat(ids(ring.since(105).orElseThrow())).isEmpty();
        assertThat(ids(ring.since(100).orElseThrow())).containsExactly(101L, 102L, 103L, 104L, 105L);
    }

    @Test
    void aClientFromBeforeTheHorizonIsToldToReload() {
        EventRing ring = new EventRing(10);
        ring.restart(100);
        ring.add(event(101));
        assertThat(ring.since(99)).isEmpty();
    }

    @Test
    void eventsThatFellOutOfTheRingMoveTheHorizon() {
        EventRing ring = new EventRing(3);
        ring.restart(0);
        for (long id = 1; id <= 5; id++) {
            ring.add(event(id));
        }
        assertThat(ids(ring.snapshot())).containsExactly(3L, 4L, 5L);
        assertThat(ring.since(1)).isEmpty();
        assertThat(ids(ring.since(2).orElseThrow())).containsExactly(3L, 4L, 5L);
    }

    @Test
    void theResumePointIsThePositionOfTheLastEventNotItsNumber() {
        // Two controllers took ids 8 and 7 and committed in that order: everyone receives 8 before 7.
        EventRing ring = new EventRing(10);
        ring.restart(5);
        ring.add(event(6));
        ring.add(event(8));
        ring.add(event(7));
        ring.add(event(9));
        assertThat(ids(ring.since(8).orElseThrow())).containsExactly(7L, 9L);
        assertThat(ids(ring.since(7).orElseThrow())).containsExactly(9L);
    }

    @Test
    void aRestartForgetsWhatCameBefore() {
        EventRing ring = new EventRing(10);
        ring.restart(0);
        ring.add(event(1));
        ring.add(event(2));
        ring.restart(10);
        assertThat(ring.since(2)).isEmpty();
        assertThat(ring.snapshot()).isEmpty();
    }
}
