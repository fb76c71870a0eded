package io.gantry.jobs;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The lines a request adds to its jobs' histories: collected while it changes the jobs, then inserted in one
 * batch. An array's every task gets a line, and the entity's identity key would insert them one by one.
 */
@Component
class JobEventLines {

    private final JdbcTemplate jdbc;

    JobEventLines(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** New, empty lines, for one request's transaction. */
    Lines lines() {
        return new Lines();
    }

    final class Lines {

        private final List<Object[]> rows = new ArrayList<>();

        void add(JobEntity job, Instant at, String type, String detail) {
            rows.add(new Object[] {job.id(), OffsetDateTime.ofInstant(at, ZoneOffset.UTC), type, detail});
        }

        /** Inserts the lines, in the caller's transaction. */
        void write() {
            if (!rows.isEmpty()) {
                jdbc.batchUpdate("INSERT INTO job_events (job_row, event_time, type, detail) VALUES (?, ?, ?, ?)", rows);
            }
        }
    }
}
