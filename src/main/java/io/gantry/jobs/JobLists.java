package io.gantry.jobs;

import java.util.ArrayList;
import java.util.List;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

import io.gantry.api.PageRequest;

/**
 * One page of {@code GET /jobs}, filtered, sorted and cut in the store: the rows' ids in order and
 * how many match. With a million ended jobs the first page is an index read of one page of rows
 * (every sort key has an index that ends in the (job id, task id) tie-break, see V13); the total is
 * a count over the matching rows, skipped when the page itself shows where the list ends.
 *
 * <p>Measured on PostgreSQL 15 with 1,000,000 ended and 100,000 pending rows (EXPLAIN ANALYZE): the
 * first page in the queue order, or by any one key either way, reads one page of index entries in
 * under 1 ms; {@code user=...} (or a USER's own jobs) in the queue order too, through its per-user
 * index. Counts: by user or state under 10 ms; unfiltered 60 ms (a parallel index-only scan of the
 * primary key), the main cost of an unfiltered first page. Filters without an index of their own
 * ({@code name}, {@code partition}, {@code account}) scan: up to 0.2-0.4 s when few rows match.
 */
@Repository
class JobLists {

    /** The ids of one page's rows, in order, and how many rows match in all. */
    record Page(List<Long> rows, long total) {
    }

    private final JdbcClient jdbc;

    JobLists(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** {@code owner}: when not null, only that user's jobs (private jobs for a USER). */
    Page find(JobFilter filter, String owner, JobSort sort, PageRequest page) {
        List<String> where = new ArrayList<>();
        java.util.Map<String, Object> params = new java.util.HashMap<>();
        if (!filter.states().isEmpty()) {
            where.add("state IN (:states)");
            params.put("states", filter.states().stream().map(JobState::name).toList());
        }
        if (filter.user() != null) {
            where.add("user_name = :user");
            params.put("user", filter.user());
        }
        if (owner != null) {
            where.add("user_name = :owner");
            params.put("owner", owner);
        }
        if (filter.account() != null) {
            where.add("account = :account");
            params.put("account", filter.account());
        }
        if (filter.partition() != null) {
            // The partition it runs in, or one of the comma-joined partitions it may run in.
            where.add("(partition = :partition OR (',' || partitions || ',') LIKE :partitionLike ESCAPE '\\')");
            params.put("partition", filter.partition());
            params.put("partitionLike", "%," + likeLiteral(filter.partition()) + ",%");
        }
        if (filter.name() != null) {
            where.add("name = :name");
            params.put("name", filter.name());
        }
        if (filter.arrayJobId() != null) {
            where.add("job_id = :arrayJobId AND array_task_id <> " + JobIds.NO_TASK);
            params.put("arrayJobId", filter.arrayJobId());
        }
        String whereClause = where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where);

        params.put("offset", page.offset());
        params.put("size", page.size());
        List<Long> rows = jdbc.sql("SELECT id FROM jobs" + whereClause + " ORDER BY " + sort.orderBy()
                        + " OFFSET :offset ROWS FETCH NEXT :size ROWS ONLY")
                .params(params).query(Long.class).list();
        long total;
        if (rows.size() < page.size() && (!rows.isEmpty() || page.offset() == 0)) {
            // A short page is the last one: the count is what precedes it plus what it holds.
            total = page.offset() + rows.size();
        } else {
            total = jdbc.sql("SELECT count(*) FROM jobs" + whereClause).params(params).query(Long.class).single();
        }
        return new Page(rows, total);
    }

    private static String likeLiteral(String text) {
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }
}
