package io.gantry.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.gantry.cluster.PowerCycle.Action;
import io.gantry.cluster.PowerCycle.NodePower;

/** Power saving's state machine, tick by tick, on a fixed clock. */
class PowerCycleTests {

    private static final Instant T0 = Instant.parse("2026-12-05T12:00:00Z");
    private final PowerCycle cycle = new PowerCycle(Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofSeconds(60));

    private static NodePower idle(String name) {
        return new NodePower(name, null, null, true, T0, false, true, false);
    }

    private List<String> at(long seconds, Action action, NodePower... nodes) {
        return cycle.decide(List.of(nodes), T0.plusSeconds(seconds)).nodes(action);
    }

    @Test
    void aNodeIdleForTheSuspendTimeIsSuspended() {
        assertThat(at(0, Action.SUSPEND, idle("n1"), idle("n2"))).isEmpty();
        assertThat(at(29, Action.SUSPEND, idle("n1"), idle("n2"))).isEmpty();
        assertThat(at(30, Action.SUSPEND, idle("n1"), idle("n2"))).containsExactly("n1", "n2");
    }

    @Test
    void aJobOrAnOperatorRestartsTheIdleClock() {
        NodePower busy = new NodePower("n1", null, null, true, T0, true, true, false);
        NodePower drained = new NodePower("n2", null, null, true, T0, false, false, false);
        at(0, Action.SUSPEND, idle("n1"), idle("n2"));
        at(20, Action.SUSPEND, busy, drained);
        // Idle again from 40: not 30 s since 0, but since then.
        assertThat(at(40, Action.SUSPEND, idle("n1"), idle("n2"))).isEmpty();
        assertThat(at(69, Action.SUSPEND, idle("n1"), idle("n2"))).isEmpty();
        assertThat(at(70, Action.SUSPEND, idle("n1"), idle("n2"))).containsExactly("n1", "n2");
    }

    @Test
    void excludedNodesAndNodesWithoutTheirAgentAreNeverSuspended() {
        NodePower excluded = new NodePower("n1", null, null, true, T0, false, true, true);
        NodePower silent = new NodePower("n2", null, null, false, T0, false, true, false);
        at(0, Action.SUSPEND, excluded, silent);
        assertThat(at(3600, Action.SUSPEND, excluded, silent)).isEmpty();
    }

    @Test
    void aNodePoweringDownIsPoweredDownWhenItsAgentGoesOrAfterTheSuspendTimeout() {
        NodePower agentGone = new NodePower("n1", PowerState.POWERING_DOWN, T0, false, T0, false, true, false);
        NodePower agentStays = new NodePower("n2", PowerState.POWERING_DOWN, T0, true, T0, false, true, false);
        assertThat(at(1, Action.POWERED, agentGone, agentStays)).containsExactly("n1");
        assertThat(at(10, Action.POWERED, agentGone, agentStays)).containsExactly("n1", "n2");
    }

    @Test
    void aPoweredDownNodeIsResumedOnlyOnceItIsGivenAJob() {
        NodePower free = new NodePower("n1", PowerState.POWERED_DOWN, T0, false, T0, false, true, false);
        NodePower given = new NodePower("n2", PowerState.POWERED_DOWN, T0, false, T0, true, true, false);
        assertThat(at(3600, Action.RESUME, free, given)).containsExactly("n2");
        assertThat(at(3600, Action.SUSPEND, free, given)).isEmpty();
    }

    @Test
    void aNodeComingUpIsUpWhenItsAgentRegistersAfterTheResumeAndDownAfterTheResumeTimeout() {
        Instant resumed = T0.plusSeconds(100);
        NodePower staleAgent = new NodePower("n1", PowerState.POWERING_UP, resumed, true, T0.plusSeconds(90), true,
                true, false);
        NodePower registered = new NodePower("n2", PowerState.POWERING_UP, resumed, true, T0.plusSeconds(120), true,
                true, false);
        NodePower silent = new NodePower("n3", PowerState.POWERING_UP, resumed, false, T0, true, true, false);
        assertThat(at(130, Action.BOOTED, staleAgent, registered, silent)).containsExactly("n2");
        assertThat(at(159, Action.RESUME_TIMEOUT, staleAgent, registered, silent)).isEmpty();
        assertThat(at(160, Action.RESUME_TIMEOUT, staleAgent, silent)).containsExactly("n1", "n3");
    }
}
