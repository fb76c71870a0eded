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
 * it (private jobs), without reading whole job rows.
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
}
