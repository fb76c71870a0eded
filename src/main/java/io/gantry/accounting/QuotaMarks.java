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
 * started on borrowed GPUs, where its current run borrows now, and when a reclaim stopped it; sacct
 * reads the marker back, a new leader where running jobs borrow.
 */
@Component
public class QuotaMarks {

    /**
     * A job's marker: when it first borrowed, and when and for which job a reclaim stopped it (or
     * nulls); {@code borrowingNow} per GPU key the account its current run borrows at (empty: it does
     * not borrow now), null when not known; {@code grace} the reclaim whose grace time it is in, or null.
     */
    public record Mark(Instant borrowedAt, Instant reclaimedAt, String reclaimedFor, Map<String, String> borrowingNow,
            Grace grace) {

        public Mark(Instant borrowedAt, Instant reclaimedAt, String reclaimedFor) {
            this(borrowedAt, reclaimedAt, reclaimedFor, null, null);
        }
    }

    /**
     * A reclaim that chose the job {@code from} and stops it {@code until} (the end of its QOS's grace
     * time, it was warned as the grace started): {@code mode} REQUEUE or CANCEL, {@code detail} the
     * history's words, {@code forJob} the owner's job it makes room for.
     */
    public record Grace(Instant from, Instant until, String mode, String detail, String forJob) {
    }

    /** A job (array task; -1 when none) as the marker keys it. */
    public record Key(long jobId, int arrayTaskId) {
    }

    private static final int CHUNK = 1000;

    private final JdbcTemplate jdbc;

    QuotaMarks(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Where these jobs borrow now (per GPU key, the account; an empty map: no longer); a job with no
     * marker yet gets one, first borrowed {@code at}. One batch per cycle with changes.
     */
    public void borrowingNow(Map<Key, Map<String, String>> changes, Instant at) {
        if (changes.isEmpty()) {
            return;
        }
        List<Key> keys = List.copyOf(changes.keySet());
        List<Object[]> updates = keys.stream()
                .map(k -> new Object[] {encode(changes.get(k)), k.jobId(), k.arrayTaskId()}).toList();
        int[][] counts = jdbc.batchUpdate("UPDATE quota_jobs SET borrowing_now = ? WHERE job_id = ? AND array_task_id = ?",
                updates, updates.size(), (ps, row) -> {
                    ps.setString(1, (String) row[0]);
                    ps.setLong(2, (Long) row[1]);
                    ps.setInt(3, (Integer) row[2]);
                });
        List<Object[]> inserts = new java.util.ArrayList<>();
        int i = 0;
        for (int[] batch : counts) {
            for (int n : batch) {
                Key k = keys.get(i++);
                if (n == 0 && !changes.get(k).isEmpty()) {
                    inserts.add(new Object[] {k.jobId(), k.arrayTaskId(), Timestamp.from(at), encode(changes.get(k))});
                }
            }
        }
        if (!inserts.isEmpty()) {
            jdbc.batchUpdate("INSERT INTO quota_jobs (job_id, array_task_id, borrowed_at, borrowing_now) "
                    + "VALUES (?, ?, ?, ?)", inserts);
        }
    }

    /** "=research,h100=root": GPU keys and account names have neither ',' nor '='. */
    static String encode(Map<String, String> levels) {
        return new java.util.TreeMap<>(levels).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(java.util.stream.Collectors.joining(","));
    }

    static Map<String, String> decode(String text) {
        if (text == null) {
            return null;
        }
        Map<String, String> out = new HashMap<>();
        for (String part : text.split(",")) {
            int eq = part.indexOf('=');
            if (eq >= 0) {
                out.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        return out;
    }

    /**
     * A reclaim chose the job and gave it its grace time: written in the transaction of the decision,
     * so that a new leader stops it at the same deadline and neither warns it again nor chooses others
     * for the same need.
     */
    public void graceStarted(Key job, Grace grace) {
        int updated = jdbc.update("UPDATE quota_jobs SET grace_from = ?, grace_until = ?, grace_mode = ?, "
                + "grace_detail = ?, grace_for = ? WHERE job_id = ? AND array_task_id = ?",
                Timestamp.from(grace.from()), Timestamp.from(grace.until()), grace.mode(), grace.detail(),
                grace.forJob(), job.jobId(), job.arrayTaskId());
        if (updated == 0) {
            // A reclaim only chooses borrowing jobs: its marker is normally there already.
            jdbc.update("INSERT INTO quota_jobs (job_id, array_task_id, borrowed_at, grace_from, grace_until, "
                    + "grace_mode, grace_detail, grace_for) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", job.jobId(),
                    job.arrayTaskId(), Timestamp.from(grace.from()), Timestamp.from(grace.from()),
                    Timestamp.from(grace.until()), grace.mode(), grace.detail(), grace.forJob());
        }
    }

    /** A reclaim stopped the job for {@code forJob} (the owner's job id as users write it). */
    public void reclaimed(Key job, Instant at, String forJob) {
        // Its run is over: it borrows nothing now (a requeued job's next run writes its own), and its
        // grace time, if it had one, is over.
        int updated = jdbc.update("UPDATE quota_jobs SET reclaimed_at = ?, reclaimed_for = ?, borrowing_now = '', "
                + "grace_from = NULL, grace_until = NULL, grace_mode = NULL, grace_detail = NULL, grace_for = NULL "
                + "WHERE job_id = ? AND array_task_id = ?", Timestamp.from(at), forJob, job.jobId(), job.arrayTaskId());
        if (updated == 0) {
            jdbc.update("INSERT INTO quota_jobs (job_id, array_task_id, borrowed_at, reclaimed_at, reclaimed_for, "
                    + "borrowing_now) VALUES (?, ?, ?, ?, ?, '')", job.jobId(), job.arrayTaskId(), Timestamp.from(at),
                    Timestamp.from(at), forJob);
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
            jdbc.query("SELECT job_id, array_task_id, borrowed_at, reclaimed_at, reclaimed_for, borrowing_now, "
                    + "grace_from, grace_until, grace_mode, grace_detail, grace_for "
                    + "FROM quota_jobs WHERE job_id IN (" + in + ")", rs -> {
                        Timestamp reclaimed = rs.getTimestamp(4);
                        Timestamp graceFrom = rs.getTimestamp(7);
                        Timestamp graceUntil = rs.getTimestamp(8);
                        Grace grace = graceFrom == null || graceUntil == null ? null
                                : new Grace(graceFrom.toInstant(), graceUntil.toInstant(), rs.getString(9),
                                        rs.getString(10), rs.getString(11));
                        out.put(new Key(rs.getLong(1), rs.getInt(2)), new Mark(rs.getTimestamp(3).toInstant(),
                                reclaimed == null ? null : reclaimed.toInstant(), rs.getString(5),
                                decode(rs.getString(6)), grace));
                    }, chunk.toArray());
        }
        return out;
    }
}
