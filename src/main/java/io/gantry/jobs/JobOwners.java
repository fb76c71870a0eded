package io.gantry.jobs;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * Who owns which job id: what live views need to keep a job's events from users who may not see
 * it (private jobs), and reports their grouping by user, account and partition, without reading whole
 * job rows.
 */
@Repository
public class JobOwners {

    /** Ids in one IN list: well below the bind-parameter limits of PostgreSQL and H2. */
    private static final int CHUNK = 1000;

    private final JdbcClient jdbc;

    JobOwners(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The owner of each of these job ids that exists (an array's tasks share theirs). */
    @Transactional(readOnly = true)
    public Map<Long, String> of(Collection<Long> jobIds) {
        Map<Long, String> owners = new HashMap<>();
        List<Long> ids = jobIds.stream().distinct().toList();
        for (int from = 0; from < ids.size(); from += CHUNK) {
            jdbc.sql("SELECT DISTINCT job_id, user_name FROM jobs WHERE job_id IN (:ids)")
                    .param("ids", ids.subList(from, Math.min(from + CHUNK, ids.size())))
                    .query(rs -> {
                        owners.put(rs.getLong(1), rs.getString(2));
                    });
        }
        return owners;
    }

    /** Who a job (or an array task) is charged to: its user, account and partition. */
    public record Charged(String user, String account, String partition) {
    }

    /**
     * The user, account and partition of every job and array task of these job ids that exists, keyed by
     * {@code jobId + ":" + arrayTaskId} (-1 for a job that is not an array task): what reports of other
     * features group their figures by.
     */
    @Transactional(readOnly = true)
    public Map<String, Charged> charged(Collection<Long> jobIds) {
        Map<String, Charged> found = new HashMap<>();
        List<Long> ids = jobIds.stream().distinct().toList();
        for (int from = 0; from < ids.size(); from += CHUNK) {
            jdbc.sql("SELECT job_id, array_task_id, user_name, account, partition FROM jobs WHERE job_id IN (:ids)")
                    .param("ids", ids.subList(from, Math.min(from + CHUNK, ids.size())))
                    .query(rs -> {
                        found.put(rs.getLong(1) + ":" + rs.getInt(2),
                                new Charged(rs.getString(3), rs.getString(4), rs.getString(5)));
                    });
        }
        return found;
    }
}
