package io.gantry.scheduling;

import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import io.gantry.accounting.AccountingService;
import io.gantry.accounting.AccountingViews;
import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.GpuIdlePolicy;
import io.gantry.control.LeaderLock;
import io.gantry.gpus.GpuIdleDecision;
import io.gantry.gpus.GpuIdleDecision.Readings;
import io.gantry.gpus.GpuIdleDecision.Step;
import io.gantry.gpus.GpuIdleDecision.Warning;
import io.gantry.gpus.GpuSamples;
import io.gantry.jobs.RunningJobs;

/**
 * Applies the partitions' GPU idle policies ({@link GpuIdlePolicy}) on the leader every
 * {@code gantry.gpus.idle-check-period} (5 s): an allocated GPU nobody uses is the waste issue 33 is about,
 * and a job left idle (a notebook left open, a crashed worker) must give its GPUs back without an admin
 * watching. Cheap by construction: per partition with a policy, its RUNNING jobs (through the state index)
 * and their readings of the look-back window (through the readings' job index), and the QOS list only when
 * some job has readings.
 * Where each warned job's countdown stands is kept in memory: a new leader starts every countdown again,
 * which only ever delays an action.
 */
@Component
class GpuIdleMonitor {

    /** Readings older than the timeout plus the grace plus this are not read: they cannot change a decision. */
    private static final long SLACK_SECONDS = 60;

    private final RunningJobs runningJobs;
    private final AccountingService accounting;
    private final ClusterLayout layout;
    private final GpuSamples samples;
    private final GpuIdleActions actions;
    private final LeaderLock leader;
    private final Clock clock;
    private final Map<Long, Warning> warnings = new HashMap<>();

    GpuIdleMonitor(RunningJobs runningJobs, AccountingService accounting, ClusterLayout layout, GpuSamples samples,
            GpuIdleActions actions, LeaderLock leader, Clock clock) {
        this.runningJobs = runningJobs;
        this.accounting = accounting;
        this.layout = layout;
        this.samples = samples;
        this.actions = actions;
        this.leader = leader;
        this.clock = clock;
    }

    /** One running job of a partition with a policy, with its readings summarised. */
    record Candidate(long row, String jobId, boolean exempt, Readings readings) {
    }

    @Scheduled(fixedDelayString = "${gantry.gpus.idle-check-period:5s}", initialDelayString = "${gantry.gpus.idle-check-period:5s}")
    void run() {
        if (layout.partitions().values().stream().noneMatch(p -> p.gpuIdle() != null)) {
            return;
        }
        if (!leader.isLeader()) {
            warnings.clear();
            return;
        }
        check(clock.instant());
    }

    void check(Instant now) {
        Set<Long> seen = new HashSet<>();
        for (ClusterLayout.PartitionSpec partition : layout.partitions().values()) {
            GpuIdlePolicy policy = partition.gpuIdle();
            if (policy == null) {
                continue;
            }
            double threshold = policy.threshold(samples.idleThreshold());
            for (Candidate job : candidates(partition.name(), policy, threshold, now)) {
                seen.add(job.row());
                Warning warning = warnings.get(job.row());
                Step step = GpuIdleDecision.decide(policy, job.exempt(), job.readings(), warning, now);
                long idle = GpuIdleDecision.idleSeconds(job.readings(), now);
                switch (step) {
                    case WARN -> {
                        actions.warn(job.row(), partition.name(), policy, threshold, idle, now);
                        warnings.put(job.row(), new Warning(now, false));
                    }
                    case RESET -> {
                        actions.busyAgain(job.row(), now);
                        warnings.remove(job.row());
                    }
                    case ACT -> {
                        actions.act(job.row(), job.jobId(), partition.name(), policy, threshold, idle, now);
                        warnings.put(job.row(), new Warning(warning.warnedAt(), true));
                    }
                    case NONE -> {
                        if (job.exempt()) {
                            warnings.remove(job.row());
                        }
                    }
                    case WAIT -> {
                    }
                }
            }
        }
        // ended, requeued, or without readings in the window: their countdowns are over
        warnings.keySet().retainAll(seen);
    }

    /**
     * The RUNNING jobs of {@code partition} with readings since they started, within the look-back window:
     * the jobs from the jobs feature, their readings from GPU use's, their QOS's exemption from accounting.
     */
    private java.util.List<Candidate> candidates(String partition, GpuIdlePolicy policy, double threshold,
            Instant now) {
        Instant from = now.minusSeconds(policy.timeoutSeconds() + policy.graceSeconds() + SLACK_SECONDS);
        java.util.List<RunningJobs.Running> running = runningJobs.in(partition);
        java.util.List<GpuSamples.Since> since = new java.util.ArrayList<>();
        for (RunningJobs.Running r : running) {
            Instant start = r.startTime() == null || r.startTime().isBefore(from) ? from : r.startTime();
            since.add(new GpuSamples.Since(r.jobId(), r.arrayTaskId(), start));
        }
        Map<String, Readings> readings = samples.idleReadings(since, threshold);
        Set<String> exempt = new HashSet<>();
        if (!readings.isEmpty()) {
            for (AccountingViews.Qos q : accounting.listQos()) {
                if (q.gpuIdleExempt()) {
                    exempt.add(q.name());
                }
            }
        }
        java.util.List<Candidate> out = new java.util.ArrayList<>();
        for (RunningJobs.Running r : running) {
            Readings read = readings.get(r.jobId() + ":" + r.arrayTaskId());
            if (read != null) {
                out.add(new Candidate(r.row(), r.displayId(), r.qos() != null && exempt.contains(r.qos()), read));
            }
        }
        return out;
    }
}
