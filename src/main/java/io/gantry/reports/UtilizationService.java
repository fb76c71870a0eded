package io.gantry.reports;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryException;
import io.gantry.api.InputBounds;
import io.gantry.gpus.GpuSamples;
import io.gantry.jobs.JobOwners;
import io.gantry.jobs.JobUsage;
import io.gantry.reports.UtilizationReport.Bucket;
import io.gantry.reports.UtilizationReport.Figures;

/**
 * Builds utilization reports from the hourly rollups (finished jobs, sampled capacity) plus the
 * jobs not yet rolled up (running, or ended in the last minutes), split exactly into hours.
 */
@Service
class UtilizationService {

    private static final long MAX_BUCKETS = 20_000;
    private static final double HOUR = 3600.0;
    /** cluster_hourly's sums: CPU and GPU total, down, reserved, then the eight GPU idle causes. */
    private static final int CAPACITY_COLUMNS = 14;

    private final JdbcTemplate jdbc;
    private final JobUsage jobs;
    private final UtilizationRecorder recorder;
    private final Clock clock;

    private final GpuSamples gpuSamples;
    private final JobOwners jobOwners;

    UtilizationService(JdbcTemplate jdbc, JobUsage jobs, UtilizationRecorder recorder, Clock clock,
            GpuSamples gpuSamples, JobOwners jobOwners) {
        this.gpuSamples = gpuSamples;
        this.jobOwners = jobOwners;
        this.jdbc = jdbc;
        this.jobs = jobs;
        this.recorder = recorder;
        this.clock = clock;
    }

    @Transactional(readOnly = true)
    public UtilizationReport report(String startText, String endText, String groupByText, String intervalText) {
        Instant now = clock.instant();
        String interval = intervalText == null || intervalText.isBlank() ? "hour" : intervalText.toLowerCase(Locale.ROOT);
        if (!interval.equals("hour") && !interval.equals("day")) {
            throw GantryException.badRequest("interval", "'" + intervalText + "' is not hour or day");
        }
        String groupBy = groupByText == null || groupByText.isBlank() ? "cluster" : groupByText.toLowerCase(Locale.ROOT);
        if (!List.of("cluster", "account", "user").contains(groupBy)) {
            throw GantryException.badRequest("groupBy", "'" + groupByText + "' is not cluster, account or user");
        }
        ChronoUnit unit = interval.equals("hour") ? ChronoUnit.HOURS : ChronoUnit.DAYS;
        Instant end = endText == null || endText.isBlank() ? now : instant("end", endText);
        Instant start = startText == null || startText.isBlank() ? end.minus(Duration.ofDays(1))
                : instant("start", startText);
        if (!start.isBefore(end)) {
            throw GantryException.badRequest("start", "must be before end (" + end + ")");
        }
        start = start.truncatedTo(unit);
        Instant endAligned = end.truncatedTo(unit).equals(end) ? end : end.truncatedTo(unit).plus(1, unit);
        if (Duration.between(start, endAligned).toSeconds() / unit.getDuration().toSeconds() > MAX_BUCKETS) {
            throw GantryException.badRequest("interval", "that is more than " + MAX_BUCKETS + " buckets; use day");
        }
        final Instant from = start;
        final Instant to = endAligned;

        // Allocated seconds per (bucket, group): rolled-up hours, then the jobs not rolled up yet.
        Map<Instant, Map<String, long[]>> allocated = new TreeMap<>();
        String groupColumn = switch (groupBy) {
            case "account" -> "account";
            case "user" -> "user_name";
            default -> "''";
        };
        boolean grouped = !groupColumn.equals("''");
        String rollup = grouped
                ? unit == ChronoUnit.DAYS
                        ? "SELECT day_start, SUM(cpu_seconds), SUM(gpu_seconds), " + groupColumn + " FROM usage_daily"
                                + " WHERE day_start >= ? AND day_start < ? GROUP BY day_start, " + groupColumn
                        : "SELECT hour_start, SUM(cpu_seconds), SUM(gpu_seconds), " + groupColumn + " FROM usage_hourly"
                                + " WHERE hour_start >= ? AND hour_start < ? GROUP BY hour_start, " + groupColumn
                : "SELECT hour_start, alloc_cpu_seconds, alloc_gpu_seconds FROM cluster_hourly"
                        + " WHERE hour_start >= ? AND hour_start < ?";
        jdbc.query(rollup, rs -> {
            Instant hour = rs.getObject(1, OffsetDateTime.class).toInstant();
            add(allocated, bucket(hour, unit), group(groupBy, grouped ? rs.getString(4) : null), rs.getLong(2),
                    rs.getLong(3));
        }, utc(from), utc(to));
        Instant rolledUp = recorder.rolledUpTo();
        jobs.ranBetweenAfterRollup(from, to, rolledUp, run -> {
            long cpus = run.allocated().cpu();
            long gpus = run.allocated().gpus();
            Instant jobEnd = run.end() == null ? now : run.end();
            String g = group(groupBy, groupBy.equals("account") ? run.account() : run.user());
            Hours.split(run.start().isAfter(from) ? run.start() : from, jobEnd.isBefore(to) ? jobEnd : to,
                    (hour, seconds) -> add(allocated, bucket(hour, unit), g, cpus * seconds, gpus * seconds));
        });

        Map<Instant, long[]> capacity = new TreeMap<>();
        if (groupBy.equals("cluster")) {
            jdbc.query("""
                    SELECT hour_start, total_cpu_seconds, total_gpu_seconds, down_cpu_seconds, down_gpu_seconds,
                           reserved_cpu_seconds, reserved_gpu_seconds, idle_no_demand_gpu_seconds,
                           idle_reserved_gpu_seconds, idle_fragmented_gpu_seconds, idle_topology_gpu_seconds,
                           idle_limits_gpu_seconds, idle_draining_gpu_seconds, idle_down_gpu_seconds,
                           idle_powered_down_gpu_seconds FROM cluster_hourly
                     WHERE hour_start >= ? AND hour_start < ?""", rs -> {
                long[] c = capacity.computeIfAbsent(bucket(rs.getObject(1, OffsetDateTime.class).toInstant(), unit),
                        k -> new long[CAPACITY_COLUMNS]);
                for (int i = 0; i < CAPACITY_COLUMNS; i++) {
                    c[i] += rs.getLong(2 + i);
                }
            }, utc(from), utc(to));
        }

        List<Bucket> buckets = new ArrayList<>();
        for (Instant b = from; b.isBefore(to); b = b.plus(1, unit)) {
            Instant bucketEnd = b.plus(1, unit);
            Map<String, long[]> groups = allocated.getOrDefault(b, Map.of());
            if (groupBy.equals("cluster")) {
                long[] a = groups.getOrDefault("", new long[2]);
                long[] c = capacity.getOrDefault(b, new long[CAPACITY_COLUMNS]);
                buckets.add(new Bucket(b, bucketEnd, null, figures(a[1], c[1], c[3], c[5]),
                        figures(a[0], c[0], c[2], c[4]), idleCauses(a[1], c)));
            } else {
                for (Map.Entry<String, long[]> g : new TreeMap<>(groups).entrySet()) {
                    buckets.add(new Bucket(b, bucketEnd, g.getKey(),
                            new Figures(g.getValue()[1] / HOUR, null, null, null, null),
                            new Figures(g.getValue()[0] / HOUR, null, null, null, null), null));
                }
            }
        }
        return new UtilizationReport(from, to, interval, groupBy, buckets,
                AllocatedIdleGpus.of(gpuSamples.idleThreshold(), allocatedIdle(from, to)));
    }

    /** Each job's allocated-but-idle GPU time with who it is charged to (a job no longer known is left out). */
    private List<io.gantry.gpus.AllocatedIdle> allocatedIdle(Instant from, Instant to) {
        List<GpuSamples.IdleUse> uses = gpuSamples.allocatedIdle(from, to);
        Map<String, JobOwners.Charged> charged = jobOwners.charged(uses.stream().map(GpuSamples.IdleUse::job).toList());
        List<io.gantry.gpus.AllocatedIdle> out = new ArrayList<>();
        for (GpuSamples.IdleUse u : uses) {
            JobOwners.Charged c = charged.get(u.job() + ":" + u.arrayTaskId());
            if (c != null) {
                out.add(new io.gantry.gpus.AllocatedIdle(u.jobId(), c.account(), c.user(), c.partition(),
                        u.idleGpuSeconds(), u.gpuSeconds()));
            }
        }
        return out;
    }

    /**
     * Sampled capacity and exact allocations can disagree a little (a controller that was down part
     * of an hour sampled less of it): the total is never less than what is accounted for in it.
     */
    private static Figures figures(long allocated, long total, long down, long reserved) {
        long accounted = allocated + down + reserved;
        long whole = Math.max(total, accounted);
        return new Figures(allocated / HOUR, (whole - accounted) / HOUR, down / HOUR, reserved / HOUR, whole / HOUR);
    }

    /**
     * The bucket's GPU idle causes, adding up exactly to its non-allocated GPU-seconds (total less
     * allocated, as {@link #figures} counts them): see {@link IdleShares}.
     */
    private static IdleCauses idleCauses(long allocated, long[] c) {
        long down = c[3];
        long reserved = c[5];
        long accounted = allocated + down + reserved;
        long idle = Math.max(c[1], accounted) - accounted;
        IdleCauses sampled = new IdleCauses(c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13]);
        return IdleShares.reconcile(down, reserved, idle, sampled);
    }

    private static void add(Map<Instant, Map<String, long[]>> into, Instant bucket, String group, long cpu, long gpu) {
        long[] s = into.computeIfAbsent(bucket, k -> new TreeMap<>()).computeIfAbsent(group, k -> new long[2]);
        s[0] += cpu;
        s[1] += gpu;
    }

    private static String group(String groupBy, String value) {
        return groupBy.equals("cluster") ? "" : value == null ? "" : value;
    }

    private static Instant bucket(Instant hour, ChronoUnit unit) {
        return hour.truncatedTo(unit);
    }

    private static Instant instant(String field, String text) {
        return InputBounds.parseInstant(field, text);
    }

    private static OffsetDateTime utc(Instant t) {
        return OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
    }
}
