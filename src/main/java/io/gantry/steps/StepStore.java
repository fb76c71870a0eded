package io.gantry.steps;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Component;

import io.gantry.jobs.ContainerJson;
import io.gantry.jobs.JobState;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/** The {@code job_steps} table: the steps feature is its only reader and writer. */
@Component
class StepStore {

    private static final String COLUMNS = "job_row, step_id, job_id, name, argv, nodelist, node_count, task_count, "
            + "cpus_per_task, layout, resources, overlap, state, exit_code, start_time, end_time, container_spec, "
            + "container_image_digest";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final NamedParameterJdbcTemplate jdbc;

    StepStore(DataSource dataSource) {
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
    }

    /** The next free step id of a job: one past the highest it ever had. */
    int nextId(long jobRow) {
        Integer max = jdbc.queryForObject("SELECT MAX(step_id) FROM job_steps WHERE job_row = :row",
                new MapSqlParameterSource("row", jobRow), Integer.class);
        return max == null ? 0 : max + 1;
    }

    void insert(StepRecord s) {
        jdbc.update("INSERT INTO job_steps (" + COLUMNS + ") VALUES (:row, :step, :jobId, :name, :argv, :nodelist, "
                + ":nodeCount, :taskCount, :cpus, :layout, :resources, :overlap, :state, :exitCode, :start, :end, :container, "
                + ":digest)",
                new MapSqlParameterSource()
                        .addValue("row", s.jobRow()).addValue("step", s.stepId()).addValue("jobId", s.jobId())
                        .addValue("name", s.name()).addValue("argv", JSON.writeValueAsString(s.argv()))
                        .addValue("nodelist", String.join(",", s.nodes())).addValue("nodeCount", s.nodes().size())
                        .addValue("taskCount", s.tasks()).addValue("cpus", s.cpusPerTask())
                        .addValue("layout", s.layout().stream().map(String::valueOf).reduce((a, b) -> a + "," + b)
                                .orElse(""))
                        .addValue("resources", s.resources()).addValue("overlap", s.overlap())
                        .addValue("state", s.state().name()).addValue("exitCode", s.exitCode())
                        .addValue("start", timestamp(s.startTime())).addValue("end", timestamp(s.endTime()))
                        .addValue("container", ContainerJson.write(s.container()))
                        .addValue("digest", s.containerImageDigest()));
    }

    /** Ends a running step; false when it had ended already. */
    boolean end(long jobRow, int stepId, JobState state, Integer exitCode, Instant at) {
        return jdbc.update("UPDATE job_steps SET state = :state, exit_code = :exitCode, end_time = :end "
                + "WHERE job_row = :row AND step_id = :step AND state = 'RUNNING'", new MapSqlParameterSource()
                .addValue("state", state.name()).addValue("exitCode", exitCode).addValue("end", timestamp(at))
                .addValue("row", jobRow).addValue("step", stepId)) == 1;
    }

    /**
     * Records the digest a step's image resolved to, as the first of its nodes reported it (the others
     * pulled the same reference; a registry that moved a tag between them is the rare case this hides).
     */
    boolean recordImage(long jobRow, int stepId, String digest) {
        return jdbc.update("UPDATE job_steps SET container_image_digest = :digest WHERE job_row = :row "
                + "AND step_id = :step AND container_image_digest IS NULL", new MapSqlParameterSource()
                .addValue("digest", digest).addValue("row", jobRow).addValue("step", stepId)) == 1;
    }

    List<StepRecord> ofJob(long jobRow) {
        return jdbc.query("SELECT " + COLUMNS + " FROM job_steps WHERE job_row = :row ORDER BY step_id",
                new MapSqlParameterSource("row", jobRow), StepStore::record);
    }

    List<StepRecord> ofJobs(Collection<Long> jobRows) {
        if (jobRows.isEmpty()) {
            return List.of();
        }
        List<StepRecord> found = new ArrayList<>();
        List<Long> rows = List.copyOf(jobRows);
        for (int from = 0; from < rows.size(); from += 1000) {
            found.addAll(jdbc.query("SELECT " + COLUMNS + " FROM job_steps WHERE job_row IN (:rows) "
                    + "ORDER BY job_row, step_id", new MapSqlParameterSource("rows",
                            rows.subList(from, Math.min(rows.size(), from + 1000))), StepStore::record));
        }
        return found;
    }

    List<StepRecord> running(long jobRow) {
        return jdbc.query("SELECT " + COLUMNS + " FROM job_steps WHERE job_row = :row AND state = 'RUNNING' "
                + "ORDER BY step_id", new MapSqlParameterSource("row", jobRow), StepStore::record);
    }

    private static StepRecord record(ResultSet rs, int n) throws SQLException {
        String layout = rs.getString("layout");
        String nodelist = rs.getString("nodelist");
        java.time.OffsetDateTime end = rs.getObject("end_time", java.time.OffsetDateTime.class);
        int exit = rs.getInt("exit_code");
        Integer exitCode = rs.wasNull() ? null : exit;
        return new StepRecord(rs.getLong("job_row"), rs.getString("job_id"), rs.getInt("step_id"), rs.getString("name"),
                JSON.readValue(rs.getString("argv"), new TypeReference<List<String>>() {
                }),
                nodelist.isEmpty() ? List.of() : Arrays.asList(nodelist.split(",")), rs.getInt("task_count"),
                rs.getInt("cpus_per_task"),
                layout.isEmpty() ? List.of() : Arrays.stream(layout.split(",")).map(Integer::valueOf).toList(),
                rs.getString("resources"), rs.getBoolean("overlap"), JobState.valueOf(rs.getString("state")), exitCode,
                rs.getObject("start_time", java.time.OffsetDateTime.class).toInstant(), end == null ? null : end.toInstant(),
                ContainerJson.read(rs.getString("container_spec")), rs.getString("container_image_digest"));
    }

    private static java.time.OffsetDateTime timestamp(Instant at) {
        return at == null ? null : at.atOffset(java.time.ZoneOffset.UTC);
    }
}
