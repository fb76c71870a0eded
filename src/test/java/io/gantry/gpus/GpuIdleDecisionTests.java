package io.gantry.gpus;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.gantry.cluster.GpuIdlePolicy;
import io.gantry.gpus.GpuIdleDecision.Readings;
import io.gantry.gpus.GpuIdleDecision.Step;
import io.gantry.gpus.GpuIdleDecision.Warning;

/** The idle policy's rules one by one: timeout, reset during the grace, exemption, no readings, the action. */
class GpuIdleDecisionTests {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final GpuIdlePolicy POLICY = new GpuIdlePolicy(60, null, 30, GpuIdlePolicy.Action.CANCEL);

    private static Instant at(long seconds) {
        return T0.plusSeconds(seconds);
    }

    @Test
    void aJobWithNoReadingsIsNotIdle() {
        assertThat(GpuIdleDecision.decide(POLICY, false, null, null, at(1000))).isEqualTo(Step.NONE);
        assertThat(GpuIdleDecision.decide(POLICY, false, new Readings(null, null), null, at(1000)))
                .isEqualTo(Step.NONE);
    }

    @Test
    void aJobIsWarnedOnlyOnceEveryGpuWasIdleForTheWholeTimeout() {
        Readings neverBusy = new Readings(null, at(0));
        assertThat(GpuIdleDecision.decide(POLICY, false, neverBusy, null, at(59))).isEqualTo(Step.NONE);
        assertThat(GpuIdleDecision.decide(POLICY, false, neverBusy, null, at(60))).isEqualTo(Step.WARN);
        // busy (any GPU at or above the threshold) at 30 s: idle for the timeout only from 90 s
        Readings busyAt30 = new Readings(at(30), at(0));
        assertThat(GpuIdleDecision.decide(POLICY, false, busyAt30, null, at(89))).isEqualTo(Step.NONE);
        assertThat(GpuIdleDecision.decide(POLICY, false, busyAt30, null, at(90))).isEqualTo(Step.WARN);
        assertThat(GpuIdleDecision.idleSeconds(busyAt30, at(90))).isEqualTo(60);
    }

    @Test
    void theActionComesWhenTheGraceIsOverAndOnlyOnce() {
        Readings idle = new Readings(null, at(0));
        Warning warned = new Warning(at(60), false);
        assertThat(GpuIdleDecision.decide(POLICY, false, idle, warned, at(89))).isEqualTo(Step.WAIT);
        assertThat(GpuIdleDecision.decide(POLICY, false, idle, warned, at(90))).isEqualTo(Step.ACT);
        assertThat(GpuIdleDecision.decide(POLICY, false, idle, new Warning(at(60), true), at(200)))
                .isEqualTo(Step.NONE);
    }

    @Test
    void aGpuBusyDuringTheGraceResetsTheCountdownEvenWithAGraceLongerThanTheTimeout() {
        GpuIdlePolicy longGrace = new GpuIdlePolicy(10, null, 100, GpuIdlePolicy.Action.CANCEL);
        Warning warned = new Warning(at(10), false);
        Readings busyAfterWarning = new Readings(at(15), at(0));
        assertThat(GpuIdleDecision.decide(longGrace, false, busyAfterWarning, warned, at(16))).isEqualTo(Step.RESET);
        // idle again for 10 s since 15: still a reset, never the action of the old countdown
        assertThat(GpuIdleDecision.decide(longGrace, false, busyAfterWarning, warned, at(200))).isEqualTo(Step.RESET);
        // the readings stopped (none in the window): the countdown is dropped too
        assertThat(GpuIdleDecision.decide(longGrace, false, new Readings(null, null), warned, at(200)))
                .isEqualTo(Step.RESET);
    }

    @Test
    void anExemptQosIsNeverActedOn() {
        Readings idle = new Readings(null, at(0));
        assertThat(GpuIdleDecision.decide(POLICY, true, idle, null, at(10_000))).isEqualTo(Step.NONE);
        assertThat(GpuIdleDecision.decide(POLICY, true, idle, new Warning(at(60), false), at(10_000)))
                .isEqualTo(Step.NONE);
    }

    @Test
    void thePartitionsThresholdWinsOverTheReportsAndPercentagesReadAsWritten() {
        assertThat(POLICY.threshold(5)).isEqualTo(5);
        assertThat(new GpuIdlePolicy(60, 12.5, 0, GpuIdlePolicy.Action.WARN).threshold(5)).isEqualTo(12.5);
        assertThat(GpuIdleDecision.percent(5)).isEqualTo("5");
        assertThat(GpuIdleDecision.percent(12.5)).isEqualTo("12.5");
    }
}
