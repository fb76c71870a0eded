package io.gantry.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import io.gantry.support.TestDatabase;

/** V13 moves the scripts out of the jobs rows: every job that had a script or environment keeps it, once per job id. */
class JobScriptsMigrationIntegrationTests {

    private static final String DATABASE = "gantry_v13_it_" + ProcessHandle.current().pid();

    @AfterEach
    void drop() {
        TestDatabase.drop(DATABASE);
    }

    @Test
    void everyStoredJobKeepsItsScriptAndAnArrayKeepsOneCopy() {
        TestDatabase db = TestDatabase.isolated(DATABASE);
        DriverManagerDataSource source = new DriverManagerDataSource(db.url(), db.username(), db.password());
        JdbcTemplate jdbc = new JdbcTemplate(source);
        flyway(source).target("12").load().migrate();
        insert(jdbc, 1, -1, "#!/bin/bash\necho one\n", "A=1");
        for (int task = 0; task < 3; task++) {
            insert(jdbc, 2, task, "#!/bin/bash\necho array\n", null);
        }
        insert(jdbc, 3, -1, null, null);

        flyway(source).load().migrate();

        List<Map<String, Object>> scripts = jdbc.queryForList(
                "SELECT job_id, script, environment FROM job_scripts ORDER BY job_id");
        assertThat(scripts).containsExactly(
                Map.of("job_id", 1L, "script", "#!/bin/bash\necho one\n", "environment", "A=1"),
                nullEnvironment(2L, "#!/bin/bash\necho array\n"));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM jobs", Long.class)).isEqualTo(5);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM information_schema.columns WHERE table_name = 'jobs'"
                + " AND column_name IN ('script', 'environment')", Long.class)).isZero();
    }

    private static Map<String, Object> nullEnvironment(long jobId, String script) {
        Map<String, Object> row = new java.util.HashMap<>();
        row.put("job_id", jobId);
        row.put("script", script);
        row.put("environment", null);
        return row;
    }

    private static org.flywaydb.core.api.configuration.FluentConfiguration flyway(DriverManagerDataSource source) {
        return Flyway.configure().dataSource(source).locations("classpath:db/migration", "classpath:db/vendor/postgresql");
    }

    private static void insert(JdbcTemplate jdbc, long jobId, int task, String script, String environment) {
        jdbc.update("INSERT INTO jobs (job_id, array_task_id, name, user_name, partitions, state, reason, hold, priority,"
                + " submit_time, time_limit_seconds, min_nodes, tasks, cpus_per_task, memory_mb, gpus, gpus_per_node,"
                + " exclusive, nice, environment, script, requeue, requeue_count, cancel_requested, version)"
                + " VALUES (?, ?, 'job', 'alice', 'cpu', 'COMPLETED', 'None', 'NONE', 0, now(), 60, 1, 1, 1, 100, 0, 0,"
                + " false, 0, ?, ?, true, 0, false, 0)", jobId, task, environment, script);
    }
}
