package io.gantry.accounting;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The borrowed marker of jobs (issue 16) in {@code quota_jobs}: the scheduler writes that a job
 * started on borrowed GPUs and when a reclaim stopped it; sacct reads it back.
 */
@Component
public class QuotaMarks {

    /** A job's marker: when it first borrowed, and when and for which job a reclaim stopped it (or nulls). */
    public record Mark(Instant borrowedAt, Instant reclaimedAt, String reclaimedFor) {
    }

    /** A job (array task; -1 when none) as the marker keys it. */
    public record Key(long jobId, int arrayTaskId) {
    }

    private static final int CHUNK = 1000;

    private final JdbcTemplate jdbc;

    QuotaMarks(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Marks jobs that start now on borrowed GPUs; a job marked before keeps its first time. */
    public void borrowed(Collection<Key> jobs, Instant at) {
        // Written by the scheduler alone (the leader), so a look first is enough; plain SQL for H2 and PostgreSQL.
        Map<Key, Mark> known = of(jobs);
        List<Object[]> rows = jobs.stream().distinct().filter(k -> !known.containsKey(k))
                .map(k -> new Object[] {k.jobId(), k.arrayTaskId(), Timestamp.from(at)}).toList();
        if (!rows.isEmpty()) {
            // One batch for a cycle's starts, not a round trip per job on the scheduler's path.
            jdbc.batchUpdate("INSERT INTO quota_jobs (job_id, array_task_id, borrowed_at) VALUES (?, ?, ?)", rows);
        }
    }

    /** A reclaim stopped the job for {@code forJob} (the owner's job id as users write it). */
    public void reclaimed(Key job, Instant at, String forJob) {
        int updated = jdbc.update("UPDATE quota_jobs SET reclaimed_at = ?, reclaimed_for = ? WHERE job_id = ? "
                + "AND array_task_id = ?", Timestamp.from(at), forJob, job.jobId(), job.arrayTaskId());
        if (updated == 0) {
            jdbc.update("INSERT INTO quota_jobs (job_id, array_task_id, borrowed_at, reclaimed_at, reclaimed_for) "
                    + "VALUES (?, ?, ?, ?, ?)", job.jobId(), job.arrayTaskId(), Timestamp.from(at), Timestamp.from(at),
                    forJob);
        }
    }

    /** The markers of these jobs; jobs that never borrowed are absent. */
    public Map<Key, Mark> of(Collection<Key> jobs) {
        Map<Key, Mark> out = new HashMap<>();
        if (jobs.isEmpty()) {
            return out;
        }
        List<Long> ids = jobs.stream().map(Key::jobId).distinct().toList();
        // In chunks: a driver takes at most 32,767 parameters in one statement.
        for (int from = 0; from < ids.size(); from += CHUNK) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + CHUNK));
            String in = String.join(",", java.util.Collections.nCopies(chunk.size(), "?"));
            jdbc.query("SELECT job_id, array_task_id, borrowed_at, reclaimed_at, reclaimed_for FROM quota_jobs "
                    + "WHERE job_id IN (" + in + ")", rs -> {
                        Timestamp reclaimed = rs.getTimestamp(4);
                        out.put(new Key(rs.getLong(1), rs.getInt(2)), new Mark(rs.getTimestamp(3).toInstant(),
                                reclaimed == null ? null : reclaimed.toInstant(), rs.getString(5)));
                    }, chunk.toArray());
        }
        return out;
    }
}
