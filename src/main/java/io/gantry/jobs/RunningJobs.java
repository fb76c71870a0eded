package io.gantry.jobs;

import java.time.Instant;
import java.util.List;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * The running jobs of one partition, with what a periodic check of them needs (when each started, its
 * QOS), read through the state index without loading job rows: the GPU idle policy reads them every few
 * seconds.
 */
@Repository
public class RunningJobs {

    private final JdbcClient jdbc;

    RunningJobs(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** One running job: its row, job id and array task (-1 for none), start and QOS. */
    public record Running(long row, long jobId, int arrayTaskId, Instant startTime, String qos) {

        /** As users name it: {@code 42}, or {@code 42_7} for an array task. */
        public String displayId() {
            return arrayTaskId < 0 ? Long.toString(jobId) : jobId + "_" + arrayTaskId;
        }
    }

    @Transactional(readOnly = true)
    public List<Running> in(String partition) {
        return jdbc.sql("SELECT id, job_id, array_task_id, start_time, qos FROM jobs "
                + "WHERE state = 'RUNNING' AND partition = :partition")
                .param("partition", partition)
                .query((rs, n) -> new Running(rs.getLong(1), rs.getLong(2), rs.getInt(3),
                        rs.getTimestamp(4) == null ? null : rs.getTimestamp(4).toInstant(), rs.getString(5)))
                .list();
    }
}
