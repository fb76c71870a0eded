package io.gantry.gpus;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.GpuIdlePolicy;
import io.gantry.control.LeaderLock;
import io.gantry.gpus.GpuIdleDecision.Readings;
import io.gantry.gpus.GpuIdleDecision.Step;
import io.gantry.gpus.GpuIdleDecision.Warning;

/**
 * Applies the partitions' GPU idle policies ({@link GpuIdlePolicy}) on the leader every
 * {@code gantry.gpus.idle-check-period} (5 s): an allocated GPU nobody uses is the waste issue 33 is about,
 * and a job left idle (a notebook left open, a crashed worker) must give its GPUs back without an admin
 * watching. Cheap by construction: one query per partition with a policy, reading only its RUNNING jobs
 * (through the state index) and their readings of the look-back window (through the readings' job index).
 * Where each warned job's countdown stands is kept in memory: a new leader starts every countdown again,
 * which only ever delays an action.
 */
@Component
class GpuIdleMonitor {

    /** Readings older than the timeout plus the grace plus this are not read: they cannot change a decision. */
    private static final long SLACK_SECONDS = 60;

    private final JdbcTemplate jdbc;
    private final ClusterLayout layout;
    private final GpuSamples samples;
    private final GpuIdleActions actions;
    private final LeaderLock leader;
    private final Clock clock;
    private final Map<Long, Warning> warnings = new HashMap<>();

    GpuIdleMonitor(JdbcTemplate jdbc, ClusterLayout layout, GpuSamples samples, GpuIdleActions actions,
            LeaderLock leader, Clock clock) {
        this.jdbc = jdbc;
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

    /** The RUNNING jobs of {@code partition} with readings since they started, within the look-back window. */
    private java.util.List<Candidate> candidates(String partition, GpuIdlePolicy policy, double threshold,
            Instant now) {
        Instant from = now.minusSeconds(policy.timeoutSeconds() + policy.graceSeconds() + SLACK_SECONDS);
        return jdbc.query("SELECT j.id, j.job_id, j.array_task_id, COALESCE(q.gpu_idle_exempt, FALSE), "
                + "MAX(CASE WHEN s.utilization IS NULL OR s.utilization >= ? THEN s.sampled_at END), MIN(s.sampled_at) "
                + "FROM jobs j JOIN gpu_samples s ON s.job_id = j.job_id AND s.array_task_id = j.array_task_id "
                + "AND s.sampled_at >= j.start_time AND s.sampled_at >= ? LEFT JOIN qos q ON q.name = j.qos "
                + "WHERE j.state = 'RUNNING' AND j.partition = ? GROUP BY j.id, j.job_id, j.array_task_id, q.gpu_idle_exempt",
                (rs, n) -> {
                    Timestamp busy = rs.getTimestamp(5);
                    Timestamp first = rs.getTimestamp(6);
                    int task = rs.getInt(3);
                    return new Candidate(rs.getLong(1), task < 0 ? Long.toString(rs.getLong(2))
                            : rs.getLong(2) + "_" + task, rs.getBoolean(4), new Readings(
                                    busy == null ? null : busy.toInstant(), first == null ? null : first.toInstant()));
                }, threshold, Timestamp.from(from), partition);
    }
}
