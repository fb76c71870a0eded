package io.gantry.jobs;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/**
 * One user's work read from the store, an array as one row. Every read is bounded by the user or by
 * time, never by how many jobs the store holds; arrays are folded in SQL (GROUP BY job id), so an array
 * of 100,000 tasks is one group, not 100,000 rows sent to the controller.
 *
 * <p>Plans on PostgreSQL with 100,000 jobs of 50 users (EXPLAIN ANALYZE): the active jobs, a BitmapAnd
 * of {@code jobs_user_end} (the user) and {@code jobs_state}, about 10 ms; the newest ended, a backward
 * scan of {@code jobs_user_end} stopping after {@value #RECENT_READ} rows, under 20 ms cold; the failures
 * of 24 hours and the GPU-hours of 30 days, range scans of {@code jobs_user_end}, about 1 ms.
 */
@Service
public class MyJobs {

    static final int RECENT_ROWS = 20;
    /** At most this many active rows and failure rows. */
    static final int MAX_ROWS = 200;
    /** Ended rows read (newest first) to find {@link #RECENT_ROWS} distinct jobs and arrays among them. */
    private static final int RECENT_READ = 500;

    private static final List<String> ACTIVE = List.of("RUNNING", "COMPLETING", "SUSPENDED", "PENDING");
    private static final List<String> RUNNING = List.of("RUNNING", "COMPLETING");
    private static final List<String> FAILED = List.of("FAILED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL");
    private static final String ROW_COLUMNS = "id, job_id, array_task_id, name, partition, state, reason, submit_time,"
            + " start_time, end_time, exit_code, allocated_nodes";

    private final JdbcClient jdbc;
    private final Clock clock;

    MyJobs(JdbcClient jdbc, Clock clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /** One snapshot for all the lists, so a job that ends in between is not in two of them or none. */
    @Transactional(readOnly = true, isolation = Isolation.REPEATABLE_READ)
    public MyWork of(String user, List<MyWork.FairShare> fairShare) {
        Instant now = clock.instant();
        Instant since = now.minus(Duration.ofHours(24));

        // Active: one group per (job, state); an array's rows become one row led by its most advanced state.
        Map<Long, Group> active = new LinkedHashMap<>();
        jdbc.sql("SELECT job_id, state, count(*) AS n, min(id) AS row_id, max(array_task_id) AS task FROM jobs"
                        + " WHERE user_name = :user AND state IN (:states) GROUP BY job_id, state")
                .param("user", user).param("states", ACTIVE)
                .query((rs, i) -> {
                    Group g = active.computeIfAbsent(rs.getLong("job_id"), k -> new Group());
                    JobState state = JobState.valueOf(rs.getString("state"));
                    g.array |= rs.getInt("task") != JobIds.NO_TASK;
                    g.listed += rs.getLong("n");
                    if (g.state == null || rank(state) < rank(g.state)) {
                        g.state = state;
                        g.rowId = rs.getLong("row_id");
                    }
                    return null;
                }).list();

        // Ended: newest first, each job or array once, skipping arrays still active.
        Map<Long, Group> recent = new LinkedHashMap<>();
        jdbc.sql("SELECT id, job_id, array_task_id, state FROM jobs WHERE user_name = :user AND end_time IS NOT NULL"
                        + " ORDER BY end_time DESC FETCH FIRST " + RECENT_READ + " ROWS ONLY")
                .param("user", user)
                .query((rs, i) -> {
                    long jobId = rs.getLong("job_id");
                    JobState state = JobState.valueOf(rs.getString("state"));
                    if (!state.isFinished() || active.containsKey(jobId)) {
                        return null;
                    }
                    Group g = recent.get(jobId);
                    if (g == null && recent.size() < RECENT_ROWS) {
                        g = new Group();
                        g.state = state;
                        g.rowId = rs.getLong("id");
                        g.array = rs.getInt("array_task_id") != JobIds.NO_TASK;
                        recent.put(jobId, g);
                    }
                    return null;
                }).list();

        // Failures of the last 24 hours, grouped by job: an array that failed 75 tasks is one row saying 75.
        Map<Long, Group> failures = new LinkedHashMap<>();
        jdbc.sql("SELECT job_id, count(*) AS n, max(end_time) AS last_end, max(id) AS row_id, max(array_task_id) AS task"
                        + " FROM jobs WHERE user_name = :user AND end_time >= :since AND state IN (:states)"
                        + " GROUP BY job_id ORDER BY last_end DESC, job_id DESC FETCH FIRST " + MAX_ROWS + " ROWS ONLY")
                .param("user", user).param("since", Timestamp.from(since)).param("states", FAILED)
                .query((rs, i) -> {
                    Group g = new Group();
                    g.rowId = rs.getLong("row_id");
                    g.listed = rs.getLong("n");
                    g.array = rs.getInt("task") != JobIds.NO_TASK;
                    failures.put(rs.getLong("job_id"), g);
                    return null;
                }).list();

        List<Map.Entry<Long, Group>> activeRows = active.entrySet().stream()
                .sorted(Comparator.comparingInt((Map.Entry<Long, Group> e) -> rank(e.getValue().state) < rank(JobState.PENDING) ? 0 : 1)
                        .thenComparing(Map.Entry::getKey))
                .limit(MAX_ROWS).toList();

        List<Long> rowIds = new ArrayList<>();
        List<Long> arrays = new ArrayList<>();
        for (Map<Long, Group> groups : List.of(active, recent, failures)) {
            groups.forEach((jobId, g) -> {
                rowIds.add(g.rowId);
                if (g.array && !arrays.contains(jobId)) {
                    arrays.add(jobId);
                }
            });
        }
        Map<Long, Detail> details = details(rowIds);
        Map<Long, Map<JobState, Long>> counts = arrayCounts(user, arrays);

        List<MyWork.Row> activeList = activeRows.stream().map(e -> row(e.getKey(), e.getValue(), details, counts)).toList();
        List<MyWork.Row> recentList = recent.entrySet().stream().map(e -> {
            Group g = e.getValue();
            if (g.array) {
                g.listed = counts.getOrDefault(e.getKey(), Map.of()).entrySet().stream()
                        .filter(c -> c.getKey().isFinished()).mapToLong(Map.Entry::getValue).sum();
            } else {
                g.listed = 1;
            }
            return row(e.getKey(), g, details, counts);
        }).toList();
        List<MyWork.Row> failureList = failures.entrySet().stream().map(e -> row(e.getKey(), e.getValue(), details, counts)).toList();

        double[] gpuHours = gpuHours(user, now);
        return new MyWork(user, activeList, recentList, failureList, since, gpuHours[0], gpuHours[1], fairShare);
    }

    /** Running first, then completing, suspended, pending. */
    private static int rank(JobState state) {
        return switch (state) {
            case RUNNING -> 0;
            case COMPLETING -> 1;
            case SUSPENDED -> 2;
            case PENDING -> 3;
            default -> 4;
        };
    }

    private static final class Group {
        JobState state;
        long rowId;
        long listed;
        boolean array;
    }

    private record Detail(long jobId, int taskId, String name, String partition, JobState state, String reason,
            Instant submit, Instant start, Instant end, Integer exitCode, String nodes) {
    }

    private MyWork.Row row(long jobId, Group g, Map<Long, Detail> details, Map<Long, Map<JobState, Long>> counts) {
        Detail d = details.get(g.rowId);
        if (g.array) {
            Map<JobState, Long> byState = counts.getOrDefault(jobId, Map.of());
            long tasks = byState.values().stream().mapToLong(Long::longValue).sum();
            List<ArraySummary.StateCount> states = byState.entrySet().stream()
                    .map(c -> new ArraySummary.StateCount(c.getKey(), c.getValue())).toList();
            return new MyWork.Row(Long.toString(jobId), jobId, true, d.name(), d.partition(), g.state == null ? d.state() : g.state,
                    d.reason(), d.submit(), d.start(), d.end(), d.exitCode(), d.nodes(), tasks, g.listed, states);
        }
        String id = d.taskId() == JobIds.NO_TASK ? Long.toString(jobId) : jobId + "_" + d.taskId();
        return new MyWork.Row(id, jobId, false, d.name(), d.partition(), d.state(), d.reason(), d.submit(), d.start(),
                d.end(), d.exitCode(), d.nodes(), 1, g.listed == 0 ? 1 : g.listed,
                List.of(new ArraySummary.StateCount(d.state(), 1)));
    }

    private Map<Long, Detail> details(List<Long> rowIds) {
        Map<Long, Detail> out = new HashMap<>();
        if (rowIds.isEmpty()) {
            return out;
        }
        jdbc.sql("SELECT " + ROW_COLUMNS + " FROM jobs WHERE id IN (:ids)").param("ids", rowIds)
                .query((rs, i) -> {
                    int exit = rs.getInt("exit_code");
                    Integer exitCode = rs.wasNull() ? null : exit;
                    out.put(rs.getLong("id"), new Detail(rs.getLong("job_id"), rs.getInt("array_task_id"), rs.getString("name"),
                            rs.getString("partition"), JobState.valueOf(rs.getString("state")), rs.getString("reason"),
                            instant(rs, "submit_time"), instant(rs, "start_time"), instant(rs, "end_time"), exitCode,
                            rs.getString("allocated_nodes")));
                    return null;
                }).list();
        return out;
    }

    /** Each array's tasks by state, in the store: one group per (array, state). */
    private Map<Long, Map<JobState, Long>> arrayCounts(String user, List<Long> arrays) {
        Map<Long, Map<JobState, Long>> out = new HashMap<>();
        if (arrays.isEmpty()) {
            return out;
        }
        jdbc.sql("SELECT job_id, state, count(*) AS n FROM jobs WHERE user_name = :user AND job_id IN (:ids)"
                        + " AND array_task_id <> " + JobIds.NO_TASK + " GROUP BY job_id, state")
                .param("user", user).param("ids", arrays)
                .query((rs, i) -> out.computeIfAbsent(rs.getLong("job_id"), k -> new TreeMap<>())
                        .put(JobState.valueOf(rs.getString("state")), rs.getLong("n"))).list();
        return out;
    }

    /**
     * GPU-hours in the last 7 and 30 days: whole GPUs held times the part of the run inside each window,
     * for the jobs that ended in the window and those running now.
     */
    private double[] gpuHours(String user, Instant now) {
        Instant week = now.minus(Duration.ofDays(7));
        Instant month = now.minus(Duration.ofDays(30));
        double[] seconds = new double[2];
        org.springframework.jdbc.core.RowMapper<Object> add = (rs, i) -> {
            long gpus = JobAllocation.totals(rs.getString("allocation")).gpus();
            Instant start = instant(rs, "start_time");
            if (gpus == 0 || start == null) {
                return null;
            }
            Instant end = instant(rs, "end_time");
            Instant until = end == null || end.isAfter(now) ? now : end;
            seconds[0] += gpus * Math.max(0, Duration.between(start.isBefore(week) ? week : start, until).toSeconds());
            seconds[1] += gpus * Math.max(0, Duration.between(start.isBefore(month) ? month : start, until).toSeconds());
            return null;
        };
        jdbc.sql("SELECT start_time, end_time, allocation FROM jobs WHERE user_name = :user AND end_time >= :since"
                        + " AND start_time IS NOT NULL AND allocation IS NOT NULL")
                .param("user", user).param("since", Timestamp.from(month)).query(add).list();
        jdbc.sql("SELECT start_time, end_time, allocation FROM jobs WHERE user_name = :user AND state IN (:states)"
                        + " AND allocation IS NOT NULL")
                .param("user", user).param("states", RUNNING).query(add).list();
        return new double[] {seconds[0] / 3600.0, seconds[1] / 3600.0};
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }
}
