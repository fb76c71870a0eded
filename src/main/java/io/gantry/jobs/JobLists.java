package io.gantry.jobs;

import java.util.ArrayList;
import java.util.List;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

import io.gantry.api.PageRequest;

/**
 * One page of {@code GET /jobs}, filtered, sorted and cut in the store: the rows' ids in order and
 * how many match. With a million ended jobs the first page is an index read of one page of rows
 * (every sort key has an index that ends in the (job id, task id) tie-break, see V13), or, when a
 * filter leaves few rows, a sort of just those; the total is a count over the matching rows.
 *
 * <p>Measured on PostgreSQL 15 with 1,000,000 ended, 100,000 pending and 12,500 running rows
 * (EXPLAIN ANALYZE): the first unfiltered page in the queue order, or by any one key either way,
 * reads one page of index entries in under 1 ms; filtered by a state or a user, a few ms (their
 * matches sorted) or under 1 ms through the per-user queue-order index. Counts: by user or state
 * under 10 ms; unfiltered 60 ms (a parallel index-only scan of the primary key), the main cost of an
 * unfiltered page: end to end, GET /jobs answered its first page in 55-65 ms (p50), 80-120 ms at
 * worst of 30. Filters without an index of their own ({@code name}, {@code partition},
 * {@code account}) scan the table: about 0.1-0.3 s at a million rows.
 */
@Repository
class JobLists {

    /** The ids of one page's rows, in order, and how many rows match in all. */
    record Page(List<Long> rows, long total) {
    }

    /** Up to this many matching rows a filtered page is sorted from all of them (see {@link #find}). */
    private static final long SORT_MATCHES_UP_TO = 50_000;
    /** What any order reads: the columns of {@link JobSort#orderBy()} and the row id. */
    private static final String SORT_COLUMNS = "id, job_id, array_task_id, state, priority, submit_time, start_time,"
            + " expected_start_time, end_time, user_name";

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
        if (filter.nameContains() != null) {
            // Escaped: a '%' or '_' typed in the search box is a character of the name, not a wildcard.
            where.add("LOWER(name) LIKE :nameContains ESCAPE '\\'");
            params.put("nameContains", "%" + likeLiteral(filter.nameContains().toLowerCase(java.util.Locale.ROOT)) + "%");
        }
        if (filter.arrayJobId() != null) {
            where.add("job_id = :arrayJobId AND array_task_id <> " + JobIds.NO_TASK);
            params.put("arrayJobId", filter.arrayJobId());
        }
        if (filter.exitCode() != null) {
            where.add("exit_code = :exitCode");
            params.put("exitCode", filter.exitCode());
        }
        if (filter.node() != null) {
            // the allocation names each node it holds, as "node:cpus:...;node:..."
            where.add("(';' || allocation) LIKE :nodeLike ESCAPE '\\'");
            params.put("nodeLike", "%;" + likeLiteral(filter.node()) + ":%");
        }
        String whereClause = where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where);

        params.put("offset", page.offset());
        params.put("size", page.size());
        long total = total(whereClause, params);
        if (page.offset() >= total) {
            return new Page(List.of(), total);
        }
        // Few matching rows: read them all through the filter's index and sort them (the subquery's
        // OFFSET 0 keeps PostgreSQL from planning them with the page's LIMIT). Left to itself it
        // expects matches to be spread evenly and walks the order's index until it has a page:
        // ?state=RUNNING,COMPLETING with 12,500 running jobs behind 1,000,000 ended ones read the
        // whole id index (160-220 ms) instead of sorting 12,500 rows (a few ms).
        String from = !where.isEmpty() && total <= SORT_MATCHES_UP_TO
                ? "(SELECT " + SORT_COLUMNS + " FROM jobs" + whereClause + " OFFSET 0 ROWS) matching"
                : "jobs" + whereClause;
        List<Long> rows = jdbc.sql("SELECT id FROM " + from + " ORDER BY " + sort.orderBy()
                        + " OFFSET :offset ROWS FETCH NEXT :size ROWS ONLY")
                .params(params).query(Long.class).list();
        return new Page(rows, total);
    }

    /**
     * An array's tasks summed up in the store, for its page at any size: how many in each state and
     * with each exit code, their task ids as ranges, and what the first task says of all. Empty when
     * {@code jobId} has no task (visible to {@code owner}, when not null).
     */
    java.util.Optional<ArraySummary> arraySummary(long jobId, String owner) {
        String where = " WHERE job_id = :id AND array_task_id <> " + JobIds.NO_TASK + (owner == null ? "" : " AND user_name = :owner");
        java.util.Map<String, Object> params = new java.util.HashMap<>();
        params.put("id", jobId);
        if (owner != null) {
            params.put("owner", owner);
        }
        List<ArraySummary.StateCount> states = new ArrayList<>();
        java.util.Map<Integer, Long> exits = new java.util.TreeMap<>();
        long[] total = {0};
        long[] bounds = {Long.MAX_VALUE, Long.MIN_VALUE};
        jdbc.sql("SELECT state, exit_code, count(*) AS n, min(array_task_id) AS lo, max(array_task_id) AS hi FROM jobs"
                        + where + " GROUP BY state, exit_code").params(params)
                .query((rs, i) -> {
                    JobState state = JobState.valueOf(rs.getString("state"));
                    long n = rs.getLong("n");
                    bounds[0] = Math.min(bounds[0], rs.getLong("lo"));
                    bounds[1] = Math.max(bounds[1], rs.getLong("hi"));
                    int code = rs.getInt("exit_code");
                    if (!rs.wasNull() && state.isFinished()) {
                        exits.merge(code, n, Long::sum);
                    }
                    total[0] += n;
                    return new ArraySummary.StateCount(state, n);
                }).list().stream()
                .collect(java.util.stream.Collectors.groupingBy(ArraySummary.StateCount::state, java.util.TreeMap::new,
                        java.util.stream.Collectors.summingLong(ArraySummary.StateCount::tasks)))
                .forEach((state, n) -> states.add(new ArraySummary.StateCount(state, n)));
        if (total[0] == 0) {
            return java.util.Optional.empty();
        }
        // as many tasks as ids from the lowest to the highest: one range; else consecutive task ids share
        // (id - its rank), and each such group is one range
        List<String> ranges = total[0] == bounds[1] - bounds[0] + 1
                ? List.of(bounds[0] == bounds[1] ? Long.toString(bounds[0]) : bounds[0] + "-" + bounds[1])
                : jdbc.sql("SELECT min(t) AS lo, max(t) AS hi FROM (SELECT array_task_id AS t, array_task_id"
                        + " - ROW_NUMBER() OVER (ORDER BY array_task_id) AS g FROM jobs" + where + ") runs GROUP BY g ORDER BY lo")
                .params(params).query((rs, i) -> {
                    long lo = rs.getLong("lo");
                    long hi = rs.getLong("hi");
                    return lo == hi ? Long.toString(lo) : lo + "-" + hi;
                }).list();
        var first = jdbc.sql("SELECT name, user_name, account, partition FROM jobs" + where
                        + " ORDER BY array_task_id FETCH FIRST 1 ROWS ONLY").params(params)
                .query((rs, i) -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)}).single();
        return java.util.Optional.of(new ArraySummary(jobId, first[0], first[1], first[2], first[3], total[0],
                String.join(",", ranges), states,
                exits.entrySet().stream().map(e -> new ArraySummary.ExitCodeCount(e.getKey(), e.getValue())).toList()));
    }

    /**
     * How many rows match. A count that is cheap is made for each request. One that took long (the
     * whole table of a million ended jobs: 60 ms and more) is kept and served for up to
     * {@value #STALE_MILLIS} ms, refreshed in the background once it is a second old, so that no
     * request waits for it; the total may then lag the store by a second or two, as a follower's
     * answers may lag the leader's.
     */
    private long total(String whereClause, java.util.Map<String, Object> params) {
        String sql = "SELECT count(*) FROM jobs" + whereClause;
        String key = sql + params.entrySet().stream().filter(e -> !e.getKey().equals("offset") && !e.getKey().equals("size"))
                .sorted(java.util.Map.Entry.comparingByKey()).toList();
        long now = System.nanoTime();
        Count kept = counts.get(key);
        if (kept != null && now - kept.at() < STALE_MILLIS * 1_000_000L) {
            if (now - kept.at() > 1_000_000_000L && refreshing.add(key)) {
                java.util.Map<String, Object> copy = new java.util.HashMap<>(params);
                refresher.execute(() -> {
                    try {
                        count(key, sql, copy);
                    } catch (RuntimeException e) {
                        counts.remove(key);
                    } finally {
                        refreshing.remove(key);
                    }
                });
            }
            return kept.total();
        }
        return count(key, sql, params);
    }

    private long count(String key, String sql, java.util.Map<String, Object> params) {
        long begin = System.nanoTime();
        long total = jdbc.sql(sql).params(params).query(Long.class).single();
        long end = System.nanoTime();
        if (end - begin >= SLOW_COUNT_NANOS) {
            if (counts.size() > 1000) {
                counts.clear();
            }
            counts.put(key, new Count(total, end));
        } else {
            counts.remove(key);
        }
        return total;
    }

    private record Count(long total, long at) {
    }

    private static final long STALE_MILLIS = 3000;
    private static final long SLOW_COUNT_NANOS = 20_000_000L;
    private final java.util.concurrent.ConcurrentHashMap<String, Count> counts = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Set<String> refreshing = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.ExecutorService refresher = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "gantry-list-counts");
        t.setDaemon(true);
        return t;
    });

    private static String likeLiteral(String text) {
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }
}
