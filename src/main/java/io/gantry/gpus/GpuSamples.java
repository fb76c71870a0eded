package io.gantry.gpus;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import io.gantry.noded.protocol.AgentProtocol.GpuSample;

/**
 * The GPU readings agents send with their polls, kept per job in {@code gpu_samples} as they arrive
 * (so a job's figures hold while it runs and stay once it ended), and the figures made of them: each
 * job's average and peak utilisation and peak memory, its time series, and the allocated-but-idle
 * GPU-seconds of a window (readings below {@code gantry.reports.gpu-idle-threshold}, 5 % by default).
 * Readings of GPUs no job held go to the node's metrics only ({@link GpuMetrics}).
 */
@Component
public class GpuSamples {

    /** The most points a series answers with, and the default. */
    public static final int MAX_POINTS = 10_000;
    public static final int DEFAULT_POINTS = 2_000;
    private static final Pattern DISPLAY_ID = Pattern.compile("(\\d{1,18})(?:_(\\d{1,9}))?");
    private static final int NO_TASK = -1;
    /** Jobs per query of {@link #usage(List)}. */
    private static final int BATCH = 500;

    private final JdbcTemplate jdbc;
    private final GpuMetrics metrics;
    private final double idleThreshold;

    GpuSamples(JdbcTemplate jdbc, GpuMetrics metrics,
            @Value("${gantry.reports.gpu-idle-threshold:5}") double idleThreshold) {
        this.jdbc = jdbc;
        this.metrics = metrics;
        this.idleThreshold = idleThreshold;
    }

    /** The utilisation (percent) below which an allocated GPU counts as idle. */
    public double idleThreshold() {
        return idleThreshold;
    }

    /** Stores one poll's readings from {@code node}: those of GPUs a job held for the job, all for the metrics. */
    public void record(String node, List<GpuSample> samples) {
        if (samples == null || samples.isEmpty()) {
            return;
        }
        metrics.update(node, samples);
        List<Object[]> rows = new ArrayList<>();
        for (GpuSample s : samples) {
            long[] id = s.jobId() == null ? null : parse(s.jobId());
            if (id == null || s.time() == null) {
                continue;
            }
            rows.add(new Object[] {id[0], (int) id[1], node, s.index(), Timestamp.from(s.time()), s.seconds(),
                    s.utilization(), s.memoryUsedMb(), s.memoryTotalMb(), s.powerWatts(), s.temperatureC()});
        }
        if (!rows.isEmpty()) {
            jdbc.batchUpdate("INSERT INTO gpu_samples (job_id, array_task_id, node, gpu_index, sampled_at, seconds, "
                    + "utilization, memory_used_mb, memory_total_mb, power_watts, temperature_c) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows);
        }
    }

    /** Each listed job's GPU use (display ids); jobs without readings are left out. */
    public Map<String, GpuUsage> usage(List<String> jobIds) {
        List<Long> jobs = new ArrayList<>();
        List<Integer> tasks = new ArrayList<>();
        for (String id : jobIds) {
            long[] parsed = parse(id);
            if (parsed != null) {
                jobs.add(parsed[0]);
                tasks.add((int) parsed[1]);
            }
        }
        Map<String, GpuUsage> found = new HashMap<>();
        // (job, task) IN a list of pairs, in batches: portable to PostgreSQL and H2, and one query per page
        for (int from = 0; from < jobs.size(); from += BATCH) {
            int to = Math.min(jobs.size(), from + BATCH);
            List<Object> args = new ArrayList<>();
            args.add(idleThreshold);
            for (int i = from; i < to; i++) {
                args.add(jobs.get(i));
                args.add(tasks.get(i));
            }
            jdbc.query("SELECT job_id, array_task_id, "
                    + "SUM(utilization * seconds) / NULLIF(SUM(CASE WHEN utilization IS NOT NULL THEN seconds END), 0), "
                    + "MAX(utilization), MAX(memory_used_mb), SUM(seconds), "
                    + "COALESCE(SUM(CASE WHEN utilization < ? THEN seconds END), 0), COUNT(*), MAX(sampled_at), "
                    + "CAST(ROUND(SUM(memory_used_mb * seconds) / NULLIF(SUM(CASE WHEN memory_used_mb IS NOT NULL "
                    + "THEN seconds END), 0)) AS BIGINT) FROM gpu_samples WHERE (job_id, array_task_id) IN ("
                    + String.join(", ", java.util.Collections.nCopies(to - from, "(?, ?)"))
                    + ") GROUP BY job_id, array_task_id", (ResultSet rs) -> {
                        long job = rs.getLong(1);
                        int task = rs.getInt(2);
                        found.put(task == NO_TASK ? Long.toString(job) : job + "_" + task, new GpuUsage(
                                nullableDouble(rs, 3), nullableDouble(rs, 4), nullableLong(rs, 5), nullableLong(rs, 10),
                                rs.getDouble(6), rs.getDouble(7), rs.getLong(8), rs.getTimestamp(9).toInstant()));
                    }, args.toArray());
        }
        return found;
    }

    /** One job's GPU use, or null when no reading of it arrived. */
    public GpuUsage usage(String jobId) {
        return usage(List.of(jobId)).get(jobId);
    }

    /**
     * One job's readings per GPU over time: raw when there are at most {@code maxPoints}, else merged
     * into equal time buckets so the answer stays small for a week-long job.
     */
    public GpuUsageSeries series(String jobId, int maxPoints) {
        long[] id = parse(jobId);
        if (id == null) {
            return new GpuUsageSeries(jobId, null, List.of());
        }
        Object[] range = jdbc.queryForObject("SELECT COUNT(*), MIN(sampled_at), MAX(sampled_at) FROM gpu_samples "
                + "WHERE job_id = ? AND array_task_id = ?", (rs, n) -> new Object[] {rs.getLong(1),
                        rs.getTimestamp(2), rs.getTimestamp(3)}, id[0], (int) id[1]);
        long count = (Long) range[0];
        if (count <= maxPoints) {
            return new GpuUsageSeries(jobId, null, jdbc.query("SELECT sampled_at, node, gpu_index, utilization, "
                    + "memory_used_mb, memory_total_mb, power_watts FROM gpu_samples WHERE job_id = ? AND "
                    + "array_task_id = ? ORDER BY sampled_at, node, gpu_index", (rs, n) -> point(rs,
                    rs.getTimestamp(1).toInstant()), id[0],
                    (int) id[1]));
        }
        long gpus = jdbc.queryForObject("SELECT COUNT(*) FROM (SELECT DISTINCT node, gpu_index FROM gpu_samples "
                + "WHERE job_id = ? AND array_task_id = ?) x", Long.class, id[0], (int) id[1]);
        // buckets counted from the first reading: with k buckets a GPU, span / ceil((span + 1) / k) < k
        long first = ((Timestamp) range[1]).toInstant().getEpochSecond();
        long last = ((Timestamp) range[2]).toInstant().getEpochSecond() + 1;
        long perGpu = Math.max(1, maxPoints / Math.max(1, gpus));
        long bucket = Math.max(1, (last - first + 1 + perGpu - 1) / perGpu);
        return new GpuUsageSeries(jobId, bucket, jdbc.query("SELECT b, node, gpu_index, AVG(u), MAX(m), MAX(t), "
                + "AVG(p) FROM (SELECT CAST(FLOOR((EXTRACT(EPOCH FROM sampled_at) - ?) / ?) AS BIGINT) AS b, node, "
                + "gpu_index, utilization AS u, memory_used_mb AS m, memory_total_mb AS t, power_watts AS p FROM "
                + "gpu_samples WHERE job_id = ? AND array_task_id = ?) x GROUP BY b, node, gpu_index "
                + "ORDER BY b, node, gpu_index", (rs, n) -> point(rs, Instant.ofEpochSecond(first + rs.getLong(1) * bucket)),
                first, bucket, id[0], (int) id[1]));
    }

    /** A running job's readings to summarise: those of its job id and array task (-1: none) since {@code since}. */
    public record Since(long jobId, int arrayTaskId, Instant since) {
    }

    /**
     * For each job, its latest reading at or above {@code threshold} percent (or with no utilisation
     * reported: a MIG-split GPU is not known to be idle) and its earliest reading, both since its
     * {@code since}, keyed {@code jobId + ":" + arrayTaskId}; jobs without readings are left out. What the
     * GPU idle policy decides from.
     */
    public Map<String, GpuIdleDecision.Readings> idleReadings(List<Since> jobs, double threshold) {
        Map<String, GpuIdleDecision.Readings> found = new HashMap<>();
        for (int from = 0; from < jobs.size(); from += BATCH) {
            List<Since> batch = jobs.subList(from, Math.min(jobs.size(), from + BATCH));
            List<Object> args = new ArrayList<>();
            args.add(threshold);
            for (Since j : batch) {
                args.add(j.jobId());
                args.add(j.arrayTaskId());
                args.add(Timestamp.from(j.since()));
            }
            // one range of the (job, task, time) index per job
            jdbc.query("SELECT job_id, array_task_id, "
                    + "MAX(CASE WHEN utilization IS NULL OR utilization >= ? THEN sampled_at END), MIN(sampled_at) "
                    + "FROM gpu_samples WHERE "
                    + String.join(" OR ", java.util.Collections.nCopies(batch.size(),
                            "(job_id = ? AND array_task_id = ? AND sampled_at >= ?)"))
                    + " GROUP BY job_id, array_task_id", (ResultSet rs) -> {
                        Timestamp busy = rs.getTimestamp(3);
                        Timestamp first = rs.getTimestamp(4);
                        found.put(rs.getLong(1) + ":" + rs.getInt(2), new GpuIdleDecision.Readings(
                                busy == null ? null : busy.toInstant(), first == null ? null : first.toInstant()));
                    }, args.toArray());
        }
        return found;
    }

    /** One job's (or array task's) allocated-but-idle and all GPU-seconds of a window. */
    public record IdleUse(long job, int arrayTaskId, String jobId, double idleGpuSeconds, double gpuSeconds) {
    }

    /**
     * Allocated-but-idle GPU time in [{@code from}, {@code to}) per job, the most idle first: GPU-seconds
     * of readings below the idle threshold, and all its readings' GPU-seconds. Who each job is charged to
     * is the jobs feature's to say (this feature is read by it, so it does not read it back).
     */
    public List<IdleUse> allocatedIdle(Instant from, Instant to) {
        return jdbc.query("SELECT job_id, array_task_id, "
                + "COALESCE(SUM(CASE WHEN utilization < ? THEN seconds END), 0) AS idle, SUM(seconds) "
                + "FROM gpu_samples WHERE sampled_at >= ? AND sampled_at < ? "
                + "GROUP BY job_id, array_task_id ORDER BY idle DESC, job_id, array_task_id", (rs, n) -> {
                    long job = rs.getLong(1);
                    int task = rs.getInt(2);
                    return new IdleUse(job, task, task == NO_TASK ? Long.toString(job) : job + "_" + task,
                            rs.getDouble(3), rs.getDouble(4));
                }, idleThreshold, Timestamp.from(from), Timestamp.from(to));
    }

    private static GpuUsageSeries.Point point(ResultSet rs, Instant time) throws SQLException {
        Double util = nullableDouble(rs, 4);
        return new GpuUsageSeries.Point(time, rs.getString(2), rs.getInt(3),
                util == null ? null : Math.round(util * 10) / 10.0, nullableLong(rs, 5), nullableLong(rs, 6),
                nullableDouble(rs, 7));
    }

    /** {job, task} of a display id ({@code 42}, {@code 42_7}), or null when it is none. */
    static long[] parse(String displayId) {
        Matcher m = displayId == null ? null : DISPLAY_ID.matcher(displayId);
        if (m == null || !m.matches()) {
            return null;
        }
        return new long[] {Long.parseLong(m.group(1)), m.group(2) == null ? NO_TASK : Long.parseLong(m.group(2))};
    }

    private static Double nullableDouble(ResultSet rs, int column) throws SQLException {
        double v = rs.getDouble(column);
        return rs.wasNull() ? null : v;
    }

    private static Long nullableLong(ResultSet rs, int column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }
}
