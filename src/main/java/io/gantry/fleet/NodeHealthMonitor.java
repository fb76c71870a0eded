package io.gantry.fleet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import io.gantry.cluster.AgentNodes;
import io.gantry.control.LeaderLock;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobState;
import io.gantry.jobs.SchedulerJobs;
import io.gantry.scheduling.JobCompletion;

/**
 * Once a second: writes the heartbeats this controller heard, and (on the leader) declares DOWN
 * the agent-run nodes unheard for {@code gantry.agents.heartbeat-timeout}, ending their jobs
 * NODE_FAIL or requeueing them. After it starts or becomes leader it waits one whole timeout before
 * judging anyone, so agents get the time to reach a restarted controller.
 */
@Component
class NodeHealthMonitor {

    private static final Logger log = LoggerFactory.getLogger(NodeHealthMonitor.class);

    private final AgentHub hub;
    private final AgentNodes nodes;
    private final SchedulerJobs jobs;
    private final JobCompletion completion;
    private final LeaderLock leader;
    private final Clock clock;
    private final Duration timeout;
    private final io.gantry.cluster.PowerStates power;
    private Instant judgingFrom;

    NodeHealthMonitor(AgentHub hub, AgentNodes nodes, SchedulerJobs jobs, JobCompletion completion, LeaderLock leader,
            Clock clock, AgentsProperties properties, io.gantry.cluster.PowerStates power) {
        this.power = power;
        this.hub = hub;
        this.nodes = nodes;
        this.jobs = jobs;
        this.completion = completion;
        this.leader = leader;
        this.clock = clock;
        this.timeout = properties.heartbeatTimeout();
    }

    /** Once a second, after the last run ended; Spring's scheduler logs a failure and carries on. */
    @Scheduled(fixedDelay = 1000, initialDelay = 1000)
    void run() {
        tick();
    }

    void tick() {
        Map<String, Instant> heard = hub.takeHeartbeats();
        if (!heard.isEmpty()) {
            nodes.heartbeats(heard);
        }
        Instant now = clock.instant();
        if (!leader.isLeader()) {
            judgingFrom = null;
            return;
        }
        if (judgingFrom == null) {
            judgingFrom = now.plus(timeout);
        }
        if (now.isBefore(judgingFrom)) {
            return;
        }
        Instant cutoff = now.minus(timeout);
        for (String node : nodes.silentSince(cutoff)) {
            // A node power saving takes down goes silent on purpose: the jobs given it wait for it to come up.
            if (nodes.notResponding(node, cutoff) && power.allPoweredOn(java.util.List.of(node))) {
                log.warn("Node '{}' is not responding (no heartbeat for {} s): DOWN; ending or requeueing its jobs",
                        node, timeout.toSeconds());
                hub.close(node);
                failJobsOn(node, now);
            }
        }
    }

    private void failJobsOn(String node, Instant now) {
        for (ActiveJob job : jobs.activeJobs()) {
            if (job.allocation().stream().noneMatch(a -> a.node().equals(node))) {
                continue;
            }
            if (job.state() == JobState.COMPLETING) {
                completion.end(job.row(), JobState.CANCELLED, null, now, "cancelled; node " + node + " not responding");
            } else if (job.state() == JobState.RUNNING || job.state() == JobState.SUSPENDED) {
                completion.nodeFailed(job.row(), now, "node " + node + " not responding");
            }
        }
    }
}
