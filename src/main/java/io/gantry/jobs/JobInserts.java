package io.gantry.jobs;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

import org.springframework.jdbc.core.BatchPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Writes a submission's rows — the job or every task of its array, and a SUBMITTED event for each —
 * in a few JDBC statements of the caller's transaction. Through JPA each row and each event was an
 * INSERT of its own waiting for its identity value: 20,000 round trips for a 10,000-task array. Here
 * the rows go as one batch (the PostgreSQL driver folds it into multi-row INSERTs) and the events
 * as one INSERT ... SELECT, so nothing needs the rows' generated ids back.
 *
 * <p>The row's values come from a {@link JobEntity} built by its constructor, which stays the one
 * place that decides what a new job looks like; this class only maps its fields to columns.
 */
@Repository
class JobInserts {

    private static final String INSERT_JOB = "INSERT INTO jobs (job_id, array_task_id, array_spec, array_max_running,"
            + " name, user_name, account, partitions, qos, state, reason, hold, priority, submit_time, eligible_time,"
            + " begin_time, time_limit_seconds, min_nodes, max_nodes, tasks, cpus_per_task, ntasks_per_node, memory_mb,"
            + " gpus, gpus_per_node, gpu_type, constraints, exclusive, nodelist, exclude, dependency, nice, workdir,"
            + " stdout_path, stderr_path, requeue, requeue_count, reservation, comment,"
            + " simulated_run_seconds, simulated_exit_code, cancel_requested, version, umask, signal_spec,"
            + " default_memory_mb, switches_spec, time_min_seconds,"
            + " segment_size, exclusive_mode, shards, container_spec"
            + JobOptionColumns.NAMES.stream().map(name -> ", " + name).collect(java.util.stream.Collectors.joining())
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
            + " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"
            + ", ?".repeat(JobOptionColumns.NAMES.size()) + ")";

    private static final String INSERT_EVENTS = "INSERT INTO job_events (job_row, event_time, type, detail)"
            + " SELECT id, ?, ?, ? FROM jobs WHERE job_id = ?";

    private final JdbcTemplate jdbc;

    JobInserts(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** The next job id; nextval works on PostgreSQL and on H2 in PostgreSQL mode. */
    @Transactional(propagation = Propagation.MANDATORY)
    long nextJobId() {
        return nextJobIds(1).get(0);
    }

    /** The next {@code count} job ids in ascending order, in one round trip (a group commit needs one per submission). */
    @Transactional(propagation = Propagation.MANDATORY)
    List<Long> nextJobIds(int count) {
        List<Long> ids = new java.util.ArrayList<>(jdbc.queryForList(
                "SELECT nextval('job_ids') FROM generate_series(1, ?)", Long.class, count));
        ids.sort(null);
        return ids;
    }

    /** Whether a job id is in the store: a commit whose answer was lost may have happened all the same. */
    boolean stored(long jobId) {
        return Boolean.TRUE.equals(
                jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM jobs WHERE job_id = ?)", Boolean.class, jobId));
    }

    /** A submission's SUBMITTED event, written for each of its job id's rows. */
    record Submitted(long jobId, Instant at, String detail) {
    }

    /**
     * Inserts the rows of several submissions in one batch, then a SUBMITTED event for every row
     * of each of them (one INSERT ... SELECT per job id, sent as one batch).
     */
    @Transactional(propagation = Propagation.MANDATORY)
    void insertAll(List<JobEntity> rows, List<Submitted> submitted) {
        List<Object[]> scriptRows = new java.util.ArrayList<>();
        JobEntity previous = null;
        for (JobEntity row : rows) {
            // The rows of one submission come together; its script and environment are stored once.
            if ((previous == null || previous.jobId() != row.jobId())
                    && (row.submittedScript() != null || row.submittedEnvironment() != null)) {
                scriptRows.add(new Object[] {row.jobId(), row.submittedScript(), row.submittedEnvironment()});
            }
            previous = row;
        }
        if (!scriptRows.isEmpty()) {
            jdbc.batchUpdate("INSERT INTO job_scripts (job_id, script, environment) VALUES (?, ?, ?)", scriptRows);
        }
        if (rows.size() == 1) {
            jdbc.update(INSERT_JOB, ps -> bind(ps, rows.get(0)));
        } else {
            jdbc.batchUpdate(INSERT_JOB, new BatchPreparedStatementSetter() {
                @Override
                public void setValues(PreparedStatement ps, int i) throws SQLException {
                    bind(ps, rows.get(i));
                }

                @Override
                public int getBatchSize() {
                    return rows.size();
                }
            });
        }
        if (submitted.size() == 1) {
            Submitted s = submitted.get(0);
            jdbc.update(INSERT_EVENTS, timestamp(s.at()), "SUBMITTED", s.detail(), s.jobId());
        } else {
            jdbc.batchUpdate(INSERT_EVENTS, submitted, submitted.size(), (ps, s) -> {
                ps.setObject(1, timestamp(s.at()));
                ps.setString(2, "SUBMITTED");
                ps.setString(3, s.detail());
                ps.setLong(4, s.jobId());
            });
        }
    }

    private static void bind(PreparedStatement ps, JobEntity job) throws SQLException {
        int i = 0;
        ps.setLong(++i, job.jobId());
        ps.setInt(++i, job.arrayTaskId());
        ps.setString(++i, job.arraySpec());
        setInteger(ps, ++i, job.arrayMaxRunning());
        ps.setString(++i, job.name());
        ps.setString(++i, job.user());
        ps.setString(++i, job.account());
        ps.setString(++i, String.join(",", job.partitions()));
        ps.setString(++i, job.qos());
        ps.setString(++i, job.state().name());
        ps.setString(++i, job.reason());
        ps.setString(++i, job.hold().name());
        ps.setLong(++i, job.priority());
        setTimestamp(ps, ++i, job.submitTime());
        setTimestamp(ps, ++i, job.eligibleTime());
        setTimestamp(ps, ++i, job.beginTime());
        ps.setLong(++i, job.timeLimitSeconds());
        ps.setInt(++i, job.minNodes());
        setInteger(ps, ++i, job.maxNodes());
        ps.setInt(++i, job.tasks());
        ps.setInt(++i, job.cpusPerTask());
        setInteger(ps, ++i, job.ntasksPerNode());
        ps.setLong(++i, job.memoryMb());
        ps.setInt(++i, job.gpus());
        ps.setInt(++i, job.gpusPerNode());
        ps.setString(++i, job.gpuType());
        ps.setString(++i, job.constraints());
        ps.setBoolean(++i, job.exclusive());
        ps.setString(++i, job.nodelist());
        ps.setString(++i, job.exclude());
        ps.setString(++i, job.dependency());
        ps.setInt(++i, job.nice());
        ps.setString(++i, job.workdir());
        ps.setString(++i, job.stdout());
        ps.setString(++i, job.stderr());
        ps.setBoolean(++i, job.requeue());
        ps.setInt(++i, job.requeueCount());
        ps.setString(++i, job.reservation());
        ps.setString(++i, job.comment());
        if (job.simulatedRunSeconds() == null) {
            ps.setNull(++i, Types.BIGINT);
        } else {
            ps.setLong(++i, job.simulatedRunSeconds());
        }
        setInteger(ps, ++i, job.simulatedExitCode());
        ps.setBoolean(++i, job.cancelRequested());
        ps.setLong(++i, job.version());
        ps.setString(++i, job.umask());
        ps.setString(++i, job.signal());
        if (job.defaultMemoryMb() == null) {
            ps.setNull(++i, Types.BIGINT);
        } else {
            ps.setLong(++i, job.defaultMemoryMb());
        }
        ps.setString(++i, job.switches());
        if (job.timeMinSeconds() == null) {
            ps.setNull(++i, Types.BIGINT);
        } else {
            ps.setLong(++i, job.timeMinSeconds());
        }
        setInteger(ps, ++i, job.segment());
        ps.setString(++i, job.exclusiveMode());
        setInteger(ps, ++i, job.shards());
        ps.setString(++i, job.containerSpec());
        JobOptionColumns.bind(ps, i, job.options());
    }

    private static void setInteger(PreparedStatement ps, int index, Integer value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.INTEGER);
        } else {
            ps.setInt(index, value);
        }
    }

    private static void setTimestamp(PreparedStatement ps, int index, Instant value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setObject(index, timestamp(value));
        }
    }

    private static OffsetDateTime timestamp(Instant instant) {
        return instant == null ? null : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }
}
