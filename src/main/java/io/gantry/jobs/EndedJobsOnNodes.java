package io.gantry.jobs;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import io.gantry.cluster.NodeMarks;

/**
 * The jobs that ended on each node lately, for the node views' failure marks ({@link NodeMarks}): one range
 * scan of {@code jobs_end}, each row counted on every node of its allocation.
 */
@Component
class EndedJobsOnNodes implements NodeMarks.EndedJobs {

    private final JdbcClient jdbc;

    EndedJobsOnNodes(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public Map<String, NodeMarks.Ended> since(Instant since) {
        Map<String, int[]> counts = new HashMap<>();
        jdbc.sql("SELECT state, allocation FROM jobs WHERE end_time >= :since AND allocation IS NOT NULL")
                .param("since", Timestamp.from(since))
                .query((rs, i) -> {
                    String state = rs.getString("state");
                    boolean failed = JobState.FAILED.name().equals(state) || JobState.NODE_FAIL.name().equals(state);
                    java.util.List<JobAllocation> allocation = JobAllocation.decode(rs.getString("allocation"));
                    for (String node : allocation == null ? java.util.List.<String>of()
                            : allocation.stream().map(JobAllocation::node).distinct().toList()) {
                        int[] c = counts.computeIfAbsent(node, k -> new int[2]);
                        c[1]++;
                        if (failed) {
                            c[0]++;
                        }
                    }
                    return null;
                }).list();
        Map<String, NodeMarks.Ended> ended = new HashMap<>();
        counts.forEach((node, c) -> ended.put(node, new NodeMarks.Ended(c[0], c[1])));
        return ended;
    }
}
