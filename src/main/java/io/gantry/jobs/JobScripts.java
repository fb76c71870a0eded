package io.gantry.jobs;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The batch script and environment of each job id, stored once in {@code job_scripts} however many
 * tasks its array has. Only what shows or runs one job reads them (the single-job view, the launch
 * a node's agent is sent); lists and the scheduler never do, so a queue of 1 MB-script arrays costs
 * them nothing.
 */
@Repository
class JobScripts {

    /** What a job runs: its script and its environment as {@link EnvironmentText} encodes it. */
    record Script(String script, String environment) {

        static final Script NONE = new Script(null, null);
    }

    /** Chunks of ids in one IN list: well below the bind-parameter limits of PostgreSQL and H2. */
    private static final int CHUNK = 1000;

    private final JdbcClient jdbc;

    JobScripts(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Stores a new job's script and environment; nothing when it has neither. Runs in the caller's transaction. */
    void insert(long jobId, String script, String environment) {
        if (script == null && environment == null) {
            return;
        }
        jdbc.sql("INSERT INTO job_scripts (job_id, script, environment) VALUES (?, ?, ?)")
                .params(jobId, script, environment).update();
    }

    Script find(long jobId) {
        Optional<Script> found = jdbc.sql("SELECT script, environment FROM job_scripts WHERE job_id = ?")
                .param(jobId)
                .query((rs, n) -> new Script(rs.getString(1), rs.getString(2)))
                .optional();
        return found.orElse(Script.NONE);
    }

    /** The scripts of these job ids; an id without one is absent from the map. */
    Map<Long, Script> find(Collection<Long> jobIds) {
        Map<Long, Script> found = new HashMap<>();
        List<Long> ids = jobIds.stream().distinct().toList();
        for (int from = 0; from < ids.size(); from += CHUNK) {
            List<Long> chunk = ids.subList(from, Math.min(from + CHUNK, ids.size()));
            jdbc.sql("SELECT job_id, script, environment FROM job_scripts WHERE job_id IN (:ids)")
                    .param("ids", chunk)
                    .query(rs -> {
                        found.put(rs.getLong(1), new Script(rs.getString(2), rs.getString(3)));
                    });
        }
        return found;
    }
}
