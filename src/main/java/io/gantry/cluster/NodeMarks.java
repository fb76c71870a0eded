package io.gantry.cluster;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import io.gantry.engine.Hostlist;

/**
 * What a node's state alone does not say, read from the store for the node views: the reservation it
 * is in now (an IDLE node inside one takes no ordinary job), a maintenance (MAINT) reservation that
 * starts on it soon, and how many of the jobs that ended on it lately failed (a "black-hole" node that
 * fails every task it is given is seen here at once, not job by job).
 *
 * <p>It reads the reservations table by SQL rather than through its service, and the jobs that ended
 * through {@link EndedJobs}: those packages depend on this one. Both reads are index range scans:
 * reservations by their end ({@code reservations_end}, only those not yet over), jobs by their end
 * ({@code jobs_end}, only the last {@value #FAILURE_WINDOW_MINUTES} minutes), so their cost follows what
 * is current, not how many jobs the store holds.
 */
@Component
public class NodeMarks {

    /** The recent window for failures, in minutes. */
    static final int FAILURE_WINDOW_MINUTES = 10;
    /** A node is marked failing from this many failed jobs in the window... */
    static final int FAILING_AT_LEAST = 5;
    /** ...when they are at least half of the jobs that ended on it then. */
    static final double FAILING_SHARE = 0.5;
    /** How far ahead a maintenance reservation is announced on its nodes. */
    static final Duration MAINTENANCE_AHEAD = Duration.ofHours(24);

    /** The marks of every node that has any; a node without marks is not in the maps. */
    record Marks(Map<String, String> reservation, Map<String, Upcoming> maintenance, Map<String, ClusterViews.NodeFailures> failures) {

        static final Marks NONE = new Marks(Map.of(), Map.of(), Map.of());
    }

    record Upcoming(String name, Instant start) {
    }

    /**
     * How many jobs ended on each node since a time, and how many of them failed (FAILED or NODE_FAIL): the
     * jobs feature answers, since it owns the jobs table (and depends on this package, not this on it).
     */
    public interface EndedJobs {

        Map<String, Ended> since(Instant since);
    }

    /** Jobs (array tasks each count) that ended on a node, and how many of them failed. */
    public record Ended(int failed, int ended) {
    }

    private final JdbcClient jdbc;
    private final Clock clock;
    private final EndedJobs endedJobs;

    NodeMarks(JdbcClient jdbc, Clock clock, EndedJobs endedJobs) {
        this.jdbc = jdbc;
        this.clock = clock;
        this.endedJobs = endedJobs;
    }

    Marks read() {
        Instant now = clock.instant();
        Map<String, String> reservation = new HashMap<>();
        Map<String, Upcoming> maintenance = new HashMap<>();
        jdbc.sql("SELECT name, nodes, start_time, flags FROM reservations WHERE end_time > :now AND start_time <= :ahead"
                        + " ORDER BY start_time, name")
                .param("now", java.sql.Timestamp.from(now)).param("ahead", java.sql.Timestamp.from(now.plus(MAINTENANCE_AHEAD)))
                .query((rs, i) -> {
                    String name = rs.getString("name");
                    Instant start = rs.getTimestamp("start_time").toInstant();
                    boolean maint = List.of(rs.getString("flags").split(",")).contains("MAINT");
                    for (String node : Hostlist.parse(rs.getString("nodes")).hosts()) {
                        if (!start.isAfter(now)) {
                            reservation.merge(node, name, (a, b) -> a.compareTo(b) <= 0 ? a : b);
                        } else if (maint) {
                            maintenance.putIfAbsent(node, new Upcoming(name, start)); // the earliest, by the order
                        }
                    }
                    return null;
                }).list();
        Map<String, ClusterViews.NodeFailures> failures = new HashMap<>();
        endedJobs.since(now.minus(Duration.ofMinutes(FAILURE_WINDOW_MINUTES))).forEach((node, c) -> failures.put(node,
                new ClusterViews.NodeFailures(c.failed(), c.ended(), FAILURE_WINDOW_MINUTES,
                        c.failed() >= FAILING_AT_LEAST && c.failed() >= FAILING_SHARE * c.ended())));
        return new Marks(reservation, maintenance, failures);
    }
}
