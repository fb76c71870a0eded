package io.gantry.jobs;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/**
 * What jobs held and when, for fair share, the utilization rollups and reports, and the GPU ledger:
 * the questions they asked of the {@code jobs} table in their own SQL, asked here, where the table is
 * owned. Each query is the one those features tuned (see BENCHMARKS.md, "Utilization reports"); rows
 * are handed over one at a time, in the caller's transaction, never collected into a list.
 */
@Service
public class JobUsage {

    private final JdbcTemplate jdbc;

    JobUsage(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Every job that held something in ({@code from}, {@code to}): started before {@code to}, still
     * running or ended after {@code from}. With its QOS and partition, for fair share's usage factors and billing.
     */
    public void ranBetween(Instant from, Instant to, Consumer<JobRun> each) {
        jdbc.query("""
                SELECT account, user_name, qos, allocation, start_time, end_time, partition FROM jobs
                 WHERE start_time IS NOT NULL AND allocation IS NOT NULL AND start_time < ?
                   AND (end_time IS NULL OR end_time > ?)""", rs -> {
            each.accept(new JobRun(rs.getString(1), rs.getString(2), rs.getString(3),
                    JobAllocation.totals(rs.getString(4)), instant(rs, 5), instant(rs, 6),
                    JobAllocation.sharedGpus(rs.getString(4)), rs.getString(7)));
        }, utc(to), utc(from));
    }

    /**
     * Like {@link #ranBetween} without the QOS, and also ended after {@code rolledUpTo}: the runs in a
     * report's window that the hourly rollups do not hold yet.
     */
    public void ranBetweenAfterRollup(Instant from, Instant to, Instant rolledUpTo, Consumer<JobRun> each) {
        jdbc.query("""
                SELECT account, user_name, allocation, start_time, end_time FROM jobs
                 WHERE start_time IS NOT NULL AND allocation IS NOT NULL AND start_time < ?
                   AND (end_time IS NULL OR end_time > ?) AND (end_time IS NULL OR end_time > ?)""", rs -> {
            each.accept(run(rs));
        }, utc(to), utc(rolledUpTo), utc(from));
    }

    /** The earliest end in ({@code after}, {@code upTo}], if any job ended then. */
    public Optional<Instant> firstEndBetween(Instant after, Instant upTo) {
        OffsetDateTime first = jdbc.queryForObject(
                "SELECT MIN(end_time) FROM jobs WHERE end_time > ? AND end_time <= ?", OffsetDateTime.class,
                utc(after), utc(upTo));
        return Optional.ofNullable(first).map(OffsetDateTime::toInstant);
    }

    /** Every job that ran and ended in ({@code after}, {@code upTo}], without the QOS: what a rollup adds. */
    public void endedBetween(Instant after, Instant upTo, Consumer<JobRun> each) {
        jdbc.query("""
                SELECT account, user_name, allocation, start_time, end_time FROM jobs
                 WHERE end_time > ? AND end_time <= ? AND start_time IS NOT NULL AND allocation IS NOT NULL""",
                rs -> {
                    each.accept(run(rs));
                }, utc(after), utc(upTo));
    }

    /** The rows (not job ids: an array task is a row of its own) of the jobs that hold what they were given. */
    public Set<Long> holdingRows() {
        Set<Long> rows = new HashSet<>();
        // A job an operator suspended keeps its GPUs; one suspended for its preemptor gave them to it.
        jdbc.query("SELECT id FROM jobs WHERE state IN ('RUNNING', 'COMPLETING')"
                + " OR (state = 'SUSPENDED' AND suspended_by IS NOT NULL)", rs -> {
            rows.add(rs.getLong(1));
        });
        return rows;
    }

    /** account, user_name, allocation, start_time, end_time. */
    private static JobRun run(ResultSet rs) throws SQLException {
        return new JobRun(rs.getString(1), rs.getString(2), null, JobAllocation.totals(rs.getString(3)),
                instant(rs, 4), instant(rs, 5));
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    private static OffsetDateTime utc(Instant at) {
        return OffsetDateTime.ofInstant(at, ZoneOffset.UTC);
    }
}
