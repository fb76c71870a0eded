package io.gantry.fleet;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import io.gantry.cluster.PowerCycle;
import io.gantry.cluster.PowerProperties;
import io.gantry.cluster.PowerState;
import io.gantry.cluster.PowerStates;
import io.gantry.control.LeaderLock;
import io.gantry.engine.Hostlist;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobState;
import io.gantry.jobs.SchedulerJobs;
import io.gantry.scheduling.JobCompletion;

/**
 * Power saving on the leader, once a second, as Slurm's SuspendProgram and ResumeProgram: idle nodes are
 * powered down with the suspend program, powered-down nodes given a job are powered up with the resume
 * program, a node whose agent registers again takes its jobs, one that does not within the resume timeout
 * goes DOWN and its jobs back to the queue ({@link PowerCycle} decides; this applies). The programs run
 * as the controller's user with the nodes as a hostlist, one run for all the nodes of a step, without
 * holding up the next tick; their output goes to the controller's own.
 */
@Component
class PowerSaving {

    private static final Logger log = LoggerFactory.getLogger(PowerSaving.class);

    private final PowerProperties properties;
    private final PowerStates states;
    private final SchedulerJobs jobs;
    private final JobCompletion completion;
    private final AgentService agents;
    private final AgentHub hub;
    private final LeaderLock leader;
    private final Clock clock;
    private final ExecutorService programs = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "gantry-power-program");
        t.setDaemon(true);
        return t;
    });
    /** This leader's term's; a new term starts counting idle time afresh. */
    private PowerCycle cycle;

    PowerSaving(PowerProperties properties, PowerStates states, SchedulerJobs jobs, JobCompletion completion,
            AgentService agents, AgentHub hub, LeaderLock leader, Clock clock) {
        this.properties = properties;
        this.states = states;
        this.jobs = jobs;
        this.completion = completion;
        this.agents = agents;
        this.hub = hub;
        this.leader = leader;
        this.clock = clock;
    }

    @Scheduled(fixedDelay = 1000, initialDelay = 1000)
    void run() {
        if (properties.enabled()) {
            tick();
        }
    }

    synchronized void tick() {
        if (!leader.isLeader()) {
            cycle = null;
            return;
        }
        if (cycle == null) {
            cycle = new PowerCycle(properties.suspendTime(), properties.suspendTimeout(), properties.resumeTimeout());
        }
        Instant now = clock.instant();
        PowerCycle.Decisions decisions = cycle.decide(states.read(), now);
        if (decisions.isEmpty()) {
            return;
        }
        List<String> suspended = states.move(decisions.nodes(PowerCycle.Action.SUSPEND), null,
                PowerState.POWERING_DOWN, now);
        if (!suspended.isEmpty()) {
            log.info("Powering down idle nodes {}", Hostlist.of(suspended));
            runProgram(properties.suspendProgram(), suspended);
        }
        states.move(decisions.nodes(PowerCycle.Action.POWERED), PowerState.POWERING_DOWN, PowerState.POWERED_DOWN, now);
        List<String> resumed = states.move(decisions.nodes(PowerCycle.Action.RESUME), PowerState.POWERED_DOWN,
                PowerState.POWERING_UP, now);
        if (!resumed.isEmpty()) {
            log.info("Powering up nodes {} for the jobs given them", Hostlist.of(resumed));
            for (ActiveJob job : jobsOn(resumed)) {
                jobs.recordEvent(job.row(), now, "CONFIGURING", "waiting for its nodes to power up: "
                        + Hostlist.of(nodesOf(job).stream().filter(resumed::contains).toList()));
            }
            runProgram(properties.resumeProgram(), resumed);
        }
        List<String> booted = states.move(decisions.nodes(PowerCycle.Action.BOOTED), PowerState.POWERING_UP, null, now);
        if (!booted.isEmpty()) {
            log.info("Nodes {} are up again", Hostlist.of(booted));
            Set<String> batchHosts = new LinkedHashSet<>();
            jobsOn(booted).forEach(j -> batchHosts.add(nodesOf(j).get(0)));
            agents.launchWaiting(batchHosts);
        }
        for (String node : decisions.nodes(PowerCycle.Action.RESUME_TIMEOUT)) {
            if (states.resumeTimedOut(node, now)) {
                log.warn("Node '{}' did not come back within gantry.power.resume-timeout ({} s): DOWN; its jobs go "
                        + "back to the queue", node, properties.resumeTimeout().toSeconds());
                hub.close(node);
                for (ActiveJob job : jobsOn(List.of(node))) {
                    if (job.state() == JobState.COMPLETING) {
                        // cancelled while it waited: nothing ran, nothing is left to kill
                        completion.end(job.row(), JobState.CANCELLED, null, now, "cancelled; node " + node + ": "
                                + PowerStates.RESUME_TIMEOUT_REASON);
                    } else if (job.state() == JobState.RUNNING) {
                        completion.nodeFailed(job.row(), now, "node " + node + ": " + PowerStates.RESUME_TIMEOUT_REASON);
                    }
                }
            }
        }
    }

    private List<ActiveJob> jobsOn(List<String> nodes) {
        List<ActiveJob> on = new ArrayList<>();
        for (ActiveJob job : jobs.activeJobs()) {
            if (nodesOf(job).stream().anyMatch(nodes::contains)) {
                on.add(job);
            }
        }
        return on;
    }

    private static List<String> nodesOf(ActiveJob job) {
        return job.allocation().stream().map(a -> a.node()).toList();
    }

    private void runProgram(String program, List<String> nodes) {
        String hostlist = Hostlist.of(nodes).toString();
        programs.execute(() -> {
            try {
                Process process = new ProcessBuilder(program, hostlist).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.INHERIT).start();
                int exit = process.waitFor();
                if (exit != 0) {
                    log.warn("{} {} exited with {}", program, hostlist, exit);
                }
            } catch (java.io.IOException e) {
                log.warn("Could not run {} {}: {}", program, hostlist, e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @jakarta.annotation.PreDestroy
    void stop() {
        programs.shutdownNow();
    }
}
