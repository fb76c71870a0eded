package io.gantry.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import io.gantry.support.TestDatabase;

/**
 * A burst of submissions fills the jobs table faster than anyone takes statistics (this machine's
 * PostgreSQL runs without autovacuum). The leader's statistics keeper analyzes the tables that
 * changed, so that the generic plan of a job lookup walks the job id's index, not another.
 */
class StoreStatisticsIntegrationTests {

    private static final String DATABASE = "gantry_stats_it_" + ProcessHandle.current().pid();

    @AfterEach
    void drop() {
        TestDatabase.drop(DATABASE);
    }

    @Test
    void tablesThatGrewAreAnalyzedAndAJobLookupUsesTheJobIdIndex() {
        TestDatabase db = TestDatabase.isolated(DATABASE);
        SingleConnectionDataSource source = new SingleConnectionDataSource(db.url(), db.username(), db.password(), true);
        try {
            JdbcTemplate jdbc = new JdbcTemplate(source);
            Flyway.configure().dataSource(source).locations("classpath:db/migration", "classpath:db/vendor/postgresql")
                    .load().migrate();
            jdbc.update("INSERT INTO jobs (job_id, array_task_id, name, user_name, partitions, state, reason, hold,"
                    + " priority, submit_time, time_limit_seconds, min_nodes, tasks, cpus_per_task, memory_mb, gpus,"
                    + " gpus_per_node, exclusive, nice, requeue, requeue_count, cancel_requested, version)"
                    + " SELECT n, -1, 'burst', 'alice', 'cpu', 'PENDING', 'JobHeldUser', 'USER', 0, now(), 60, 1, 1,"
                    + " 1, 100, 0, 0, false, 0, true, 0, false, 0 FROM generate_series(1, 20000) n");
            // PostgreSQL publishes a backend's table counters within a second of its transaction.
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                    "SELECT n_mod_since_analyze FROM pg_stat_user_tables WHERE relname = 'jobs'", Long.class) >= 20000);

            StoreStatistics statistics = new StoreStatistics(source, new LeaderLock(source, 42), 1000);
            List<String> analyzed = statistics.analyzeStale();

            assertThat(analyzed).contains("\"public\".\"jobs\"");
            assertThat(analyzed).noneMatch(table -> table.contains("\"nodes\""));
            assertThat(jdbc.queryForObject("SELECT reltuples FROM pg_class WHERE relname = 'jobs'", Double.class))
                    .isEqualTo(20000.0);
            jdbc.execute("SET plan_cache_mode = force_generic_plan");
            jdbc.execute("PREPARE lookup(bigint) AS SELECT id FROM jobs WHERE job_id = $1");
            String plan = String.join("\n", jdbc.queryForList("EXPLAIN EXECUTE lookup(123)", String.class));
            assertThat(plan).contains("jobs_job_task");

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !statistics.analyzeStale().contains("\"public\".\"jobs\""));
        } finally {
            source.destroy();
        }
    }
}
