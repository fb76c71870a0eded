package io.gantry.reports;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

import io.gantry.control.LeaderLock;
import io.gantry.engine.Hostlist;
import io.gantry.jobs.JobUsage;

/**
 * Keeps the hourly rollups that utilization reports read, on the leader, every sample period:
 * <ul>
 * <li>finished jobs (ended since the last rollup) are split exactly into the hours they ran and
 * added to {@code usage_hourly} per account and user;</li>
 * <li>the cluster's capacity is sampled: all CPUs and GPUs, those down (DOWN, DRAINED or not
 * responding, less what jobs still hold there) and those reserved (in an active advance
 * reservation, less what jobs hold there), times the seconds since the last sample, into
 * {@code cluster_hourly};</li>
 * <li>with it, every GPU not allocated gets its cause ({@link IdleClassifier}, from the last full
 * scheduling pass's pending jobs), times the same seconds, into the {@code idle_*} columns.</li>
 * </ul>
 */
@Component
class UtilizationRecorder {

    private static final Duration ROLLUP_WINDOW = Duration.ofDays(30);
    private static final Duration ROLLUP_LAG = Duration.ofMinutes(2);

    private final JdbcTemplate jdbc;
    private final JobUsage jobs;
    private final TransactionTemplate transaction;
    private final LeaderLock leader;
    private final Clock clock;
    private final Duration period;
    private final IdleDemand demand;

    UtilizationRecorder(JdbcTemplate jdbc, JobUsage jobs, TransactionTemplate transaction, LeaderLock leader,
            Clock clock, ReportsProperties properties, IdleDemand demand) {
        this.demand = demand;
        this.jdbc = jdbc;
        this.jobs = jobs;
        this.transaction = transaction;
        this.leader = leader;
        this.clock = clock;
        this.period = properties.samplePeriod();
    }

    /** Rolls up finished jobs and samples the cluster, as of {@code now}. */
    void record(Instant now) {
        // Jobs are rolled up a little behind: an end written a moment late must not fall behind the mark.
        rollUp(now.minus(ROLLUP_LAG));
        sample(now);
    }

    /** When every job that ended at or before it is in {@code usage_hourly}. */
    Instant rolledUpTo() {
        return jdbc.queryForObject("SELECT rolled_up_to FROM utilization_state WHERE id = 1", OffsetDateTime.class)
                .toInstant();
    }

    void rollUp(Instant now) {
        while (true) {
            Instant from = rolledUpTo();
            if (!from.isBefore(now)) {
                return;
            }
            // Skip empty stretches (the first rollup starts at 1970) in one step.
            Optional<Instant> first = jobs.firstEndBetween(from, now);
            if (first.isEmpty()) {
                setRolledUpTo(now);
                return;
            }
            Instant windowFrom = first.get().minusSeconds(1).isAfter(from) ? first.get().minusSeconds(1) : from;
            Instant windowTo = windowFrom.plus(ROLLUP_WINDOW).isBefore(now) ? windowFrom.plus(ROLLUP_WINDOW) : now;
            transaction.executeWithoutResult(status -> {
                Map<List<Object>, long[]> sums = new HashMap<>();
                jobs.endedBetween(windowFrom, windowTo, run -> {
                    long cpus = run.allocated().cpu();
                    long gpus = run.allocated().gpus();
                    String account = run.account() == null ? "" : run.account();
                    String user = run.user();
                    Hours.split(run.start(), run.end(), (hour, seconds) -> {
                        long[] s = sums.computeIfAbsent(List.of(hour, account, user), k -> new long[2]);
                        s[0] += cpus * seconds;
                        s[1] += gpus * seconds;
                    });
                });
                upsert("usage_hourly", "hour_start", sums);
                // And by day, for reports per account or user over long windows.
                Map<List<Object>, long[]> daily = new HashMap<>();
                sums.forEach((key, v) -> {
                    long[] d = daily.computeIfAbsent(List.of(((Instant) key.get(0)).truncatedTo(ChronoUnit.DAYS),
                            key.get(1), key.get(2)), x -> new long[2]);
                    d[0] += v[0];
                    d[1] += v[1];
                });
                upsert("usage_daily", "day_start", daily);
                // The cluster's hours too, one row per hour.
                Map<Instant, long[]> perHour = new TreeMap<>();
                sums.forEach((key, v) -> {
                    long[] h = perHour.computeIfAbsent((Instant) key.get(0), x -> new long[2]);
                    h[0] += v[0];
                    h[1] += v[1];
                });
                for (Map.Entry<Instant, long[]> h : perHour.entrySet()) {
                    int changed = jdbc.update("""
                            UPDATE cluster_hourly SET alloc_cpu_seconds = alloc_cpu_seconds + ?,
                                   alloc_gpu_seconds = alloc_gpu_seconds + ? WHERE hour_start = ?""",
                            h.getValue()[0], h.getValue()[1], utc(h.getKey()));
                    if (changed == 0) {
                        jdbc.update("""
                                INSERT INTO cluster_hourly (hour_start, total_cpu_seconds, total_gpu_seconds,
                                       down_cpu_seconds, down_gpu_seconds, reserved_cpu_seconds, reserved_gpu_seconds,
                                       alloc_cpu_seconds, alloc_gpu_seconds) VALUES (?, 0, 0, 0, 0, 0, 0, ?, ?)""",
                                utc(h.getKey()), h.getValue()[0], h.getValue()[1]);
                    }
                }
                setRolledUpTo(windowTo);
            });
        }
    }

    /**
     * Adds CPU- and GPU-seconds to a usage table keyed by (time, account, user): existing rows in one
     * batch, then the rows that were not there yet in another.
     */
    private void upsert(String table, String timeColumn, Map<List<Object>, long[]> sums) {
        List<Map.Entry<List<Object>, long[]>> entries = new java.util.ArrayList<>(sums.entrySet());
        int[][] updated = jdbc.batchUpdate("UPDATE " + table + " SET cpu_seconds = cpu_seconds + ?, "
                + "gpu_seconds = gpu_seconds + ? WHERE " + timeColumn + " = ? AND account = ? AND user_name = ?",
                entries, 1000, (ps, e) -> {
                    ps.setLong(1, e.getValue()[0]);
                    ps.setLong(2, e.getValue()[1]);
                    ps.setObject(3, utc((Instant) e.getKey().get(0)));
                    ps.setString(4, (String) e.getKey().get(1));
                    ps.setString(5, (String) e.getKey().get(2));
                });
        List<Map.Entry<List<Object>, long[]>> missing = new java.util.ArrayList<>();
        int k = 0;
        for (int[] chunk : updated) {
            for (int count : chunk) {
                if (count == 0) {
                    missing.add(entries.get(k));
                }
                k++;
            }
        }
        jdbc.batchUpdate("INSERT INTO " + table + " (" + timeColumn + ", account, user_name, cpu_seconds, gpu_seconds)"
                + " VALUES (?, ?, ?, ?, ?)", missing, 1000, (ps, e) -> {
                    ps.setObject(1, utc((Instant) e.getKey().get(0)));
                    ps.setString(2, (String) e.getKey().get(1));
                    ps.setString(3, (String) e.getKey().get(2));
                    ps.setLong(4, e.getValue()[0]);
                    ps.setLong(5, e.getValue()[1]);
                });
    }

    private void setRolledUpTo(Instant to) {
        jdbc.update("UPDATE utilization_state SET rolled_up_to = ? WHERE id = 1", utc(to));
    }

    /** Adds the seconds since the last sample (at most two periods: an outage is not guessed at). */
    void sample(Instant now) {
        transaction.executeWithoutResult(status -> {
            OffsetDateTime lastValue = jdbc.queryForObject("SELECT sampled_at FROM utilization_state WHERE id = 1",
                    OffsetDateTime.class);
            Instant last = lastValue == null ? null : lastValue.toInstant();
            if (last != null && !now.isAfter(last)) {
                return;
            }
            Duration cap = period.multipliedBy(2);
            Instant from = last == null || Duration.between(last, now).compareTo(cap) > 0 ? now.minus(period) : last;
            Sample sample = capacity(now);
            long[] capacity = sample.capacity();
            Map<Instant, Long> pieces = new TreeMap<>();
            Hours.split(from, now, pieces::put);
            for (Map.Entry<Instant, Long> piece : pieces.entrySet()) {
                long s = piece.getValue();
                IdleCauses causes = sample.causes().times(s);
                Object[] add = {capacity[0] * s, capacity[1] * s, capacity[2] * s, capacity[3] * s, capacity[4] * s,
                        capacity[5] * s, causes.noDemand(), causes.reserved(), causes.fragmented(), causes.topology(),
                        causes.limits(), causes.draining(), causes.down(), causes.poweredDown(), utc(piece.getKey())};
                int updated = jdbc.update("""
                        UPDATE cluster_hourly SET total_cpu_seconds = total_cpu_seconds + ?,
                               total_gpu_seconds = total_gpu_seconds + ?, down_cpu_seconds = down_cpu_seconds + ?,
                               down_gpu_seconds = down_gpu_seconds + ?, reserved_cpu_seconds = reserved_cpu_seconds + ?,
                               reserved_gpu_seconds = reserved_gpu_seconds + ?,
                               idle_no_demand_gpu_seconds = idle_no_demand_gpu_seconds + ?,
                               idle_reserved_gpu_seconds = idle_reserved_gpu_seconds + ?,
                               idle_fragmented_gpu_seconds = idle_fragmented_gpu_seconds + ?,
                               idle_topology_gpu_seconds = idle_topology_gpu_seconds + ?,
                               idle_limits_gpu_seconds = idle_limits_gpu_seconds + ?,
                               idle_draining_gpu_seconds = idle_draining_gpu_seconds + ?,
                               idle_down_gpu_seconds = idle_down_gpu_seconds + ?,
                               idle_powered_down_gpu_seconds = idle_powered_down_gpu_seconds + ?
                         WHERE hour_start = ?""", add);
                if (updated == 0) {
                    jdbc.update("""
                            INSERT INTO cluster_hourly (total_cpu_seconds, total_gpu_seconds, down_cpu_seconds,
                                   down_gpu_seconds, reserved_cpu_seconds, reserved_gpu_seconds,
                                   idle_no_demand_gpu_seconds, idle_reserved_gpu_seconds, idle_fragmented_gpu_seconds,
                                   idle_topology_gpu_seconds, idle_limits_gpu_seconds, idle_draining_gpu_seconds,
                                   idle_down_gpu_seconds, idle_powered_down_gpu_seconds, hour_start)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", add);
                }
            }
            jdbc.update("UPDATE utilization_state SET sampled_at = ? WHERE id = 1", utc(now));
        });
    }

    /**
     * One sample: total CPUs, total GPUs, down CPUs, down GPUs, reserved CPUs, reserved GPUs (free
     * parts only), and the cause of every GPU not allocated.
     */
    private record Sample(long[] capacity, IdleCauses causes) {
    }

    private Sample capacity(Instant now) {
        Set<String> reserved = new HashSet<>();
        jdbc.query("SELECT nodes FROM reservations WHERE start_time <= ? AND end_time > ?",
                rs -> {
                    reserved.addAll(Hostlist.parse(rs.getString(1)).hosts());
                }, utc(now), utc(now));
        IdleDemand.Known known = demand.now();
        List<IdleClassifier.NodeSample> nodes = new ArrayList<>();
        long[] c = new long[6];
        jdbc.query("""
                SELECT name, cpus, gpus, alloc_cpus, alloc_gpus, admin_state, simulated, agent_state, power_state
                  FROM nodes""", rs -> {
            String name = rs.getString(1);
            int cpus = rs.getInt(2);
            int gpus = rs.getInt(3);
            int freeCpus = Math.max(0, cpus - rs.getInt(4));
            int freeGpus = Math.max(0, gpus - rs.getInt(5));
            String admin = rs.getString(6);
            boolean powerSaved = rs.getString(9) != null;
            // A node power saving took down has no agent on purpose: idle (powered down), not down.
            boolean agentDown = !rs.getBoolean(7) && !"UP".equals(rs.getString(8)) && !powerSaved;
            boolean isReserved = reserved.contains(name);
            c[0] += cpus;
            c[1] += gpus;
            IdleClassifier.Condition condition = "DOWN".equals(admin) || agentDown ? IdleClassifier.Condition.DOWN
                    : "DRAIN".equals(admin) ? IdleClassifier.Condition.DRAINING
                    : powerSaved ? IdleClassifier.Condition.POWERED_DOWN : IdleClassifier.Condition.UP;
            if (condition == IdleClassifier.Condition.DOWN || condition == IdleClassifier.Condition.DRAINING) {
                c[2] += freeCpus;
                c[3] += freeGpus;
            } else if (isReserved) {
                c[4] += freeCpus;
                c[5] += freeGpus;
            }
            nodes.add(new IdleClassifier.NodeSample(name, gpus, freeGpus, condition, isReserved,
                    known.held().getOrDefault(name, 0), known.blocks().get(name)));
        });
        return new Sample(c, IdleClassifier.classify(nodes, known.demand()));
    }

    static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }

    /** Every sample period, on the leader only. */
    @Scheduled(fixedDelayString = "${gantry.reports.sample-period:60s}")
    void recordOnLeader() {
        if (leader.isLeader()) {
            record(clock.instant().truncatedTo(ChronoUnit.SECONDS));
        }
    }
}
