package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

/** Powered-down nodes are usable once they are up: expected starts on them count their resume delay. */
class NodeReadinessTests {

    private static StartEstimate estimate(EngineFixtures.Scenario scenario, EngineFixtures.JobBuilder job) {
        Snapshot s = scenario.snapshot();
        Engine engine = new Engine();
        return engine.estimateStarts(s, engine.plan(s), StartEstimator.Budget.UNLIMITED).of(job.id()).orElseThrow();
    }

    @Test
    void a_job_on_a_powered_down_node_is_expected_once_the_node_is_up() {
        var scenario = aCluster().nodes(2).gpusPerNode(8).scenario();
        long now = scenario.now;
        var whole = aJob().nodes(2).exclusive();
        // The engine counts both nodes (powered down is UP to it), so the job starts on them now; they come up later.
        StartEstimate e = estimate(scenario.runningOn(0, 1, 1000, List.of(), now + 100).with(whole), whole);
        assertThat(e.start()).hasValue(now + 100);
        String poweredDown = EngineFixtures.nodeName(1);
        assertThat(NodeReadiness.delayed(e, Map.of(poweredDown, now + 300))).hasValue(now + 300);
        // Ready before the profile's start: no delay.
        assertThat(NodeReadiness.delayed(e, Map.of(poweredDown, now + 50))).hasValue(now + 100);
    }

    @Test
    void nodes_the_estimate_does_not_use_do_not_delay_it() {
        OptionalLong start = OptionalLong.of(1000);
        assertThat(NodeReadiness.delayed(start, List.of("a", "b"), Map.of("c", 5000L))).hasValue(1000);
        assertThat(NodeReadiness.delayed(start, List.of("a", "b"), Map.of("a", 1200L, "b", 1500L))).hasValue(1500);
        assertThat(NodeReadiness.delayed(start, List.of("a"), Map.of())).hasValue(1000);
    }

    @Test
    void a_job_with_no_expected_start_keeps_none() {
        assertThat(NodeReadiness.delayed(OptionalLong.empty(), List.of("a"), Map.of("a", 1200L))).isEmpty();
    }

    @Test
    void powered_down_nodes_given_to_the_engine_as_up_take_a_job_at_once() {
        // What ClusterService hands the engine for POWERED_DOWN and POWERING_UP nodes: UP; POWERING_DOWN: DOWN.
        var scenario = aCluster().nodes(3).state(2, NodeState.DOWN).scenario();
        var two = aJob().nodes(2).exclusive();
        var three = aJob().nodes(3).exclusive();
        Plan plan = new Engine().plan(scenario.with(two, three).snapshot());
        assertThat(plan.start(two.id())).hasValueSatisfying(s -> assertThat(s.nodeNames())
                .containsExactly(EngineFixtures.nodeName(0), EngineFixtures.nodeName(1)));
        assertThat(plan.start(three.id())).isEmpty();
    }
}
