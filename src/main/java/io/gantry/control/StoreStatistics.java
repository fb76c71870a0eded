package io.gantry.control;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Keeps PostgreSQL's planner statistics of the store's tables fresh, whether or not autovacuum does.
 *
 * <p>Every statement of the request and scheduling paths is a prepared statement, and after a few
 * executions PostgreSQL plans it once, generically, from the table's statistics. A table filled
 * faster than statistics are taken (a burst of 100,000 submissions; autovacuum off, as on the
 * machine this was found on, or a minute behind) keeps the statistics of an empty table, and with
 * them the generic plan of {@code WHERE job_id = ?} walked a whole index led by another column:
 * 2 ms a lookup at 100,000 jobs, the store's CPU at 2 ms per submission and the submission rate
 * down to a third. Analyzed, the same lookup costs 0.05 ms.
 *
 * <p>So the leader checks, every {@code gantry.control.analyze-period}, which tables changed by more
 * than a tenth (and at least {@code gantry.control.analyze-min-changes} rows) since they were last
 * analyzed, and analyzes them. It gives up on a table whose lock another ANALYZE (autovacuum's)
 * holds rather than wait. The embedded store is left alone.
 */
@Component
public class StoreStatistics {

    private static final Logger log = LoggerFactory.getLogger(StoreStatistics.class);

    /**
     * Tables of this schema whose rows changed by more than a tenth since their last ANALYZE (or
     * that were never analyzed: {@code reltuples} is -1 then).
     */
    private static final String STALE = "SELECT s.schemaname, s.relname FROM pg_stat_user_tables s"
            + " JOIN pg_class c ON c.oid = s.relid"
            + " WHERE s.schemaname = current_schema() AND s.n_mod_since_analyze >= ?"
            + " AND s.n_mod_since_analyze > 0.1 * GREATEST(c.reltuples, 0)";

    private final DataSource dataSource;
    private final LeaderLock leader;
    private final long minChanges;
    private volatile Boolean postgres;

    public StoreStatistics(DataSource dataSource, LeaderLock leader,
            @Value("${gantry.control.analyze-min-changes:1000}") long minChanges) {
        this.dataSource = dataSource;
        this.leader = leader;
        this.minChanges = minChanges;
    }

    @Scheduled(fixedDelayString = "${gantry.control.analyze-period:10s}",
            initialDelayString = "${gantry.control.analyze-period:10s}")
    void analyzeOnLeader() {
        if (leader.heldNow()) {
            analyzeStale();
        }
    }

    /** Analyzes the tables that changed enough since their last ANALYZE; returns their names. */
    public List<String> analyzeStale() {
        List<String> analyzed = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            if (!onPostgres(c)) {
                return analyzed;
            }
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(true);
            try {
                List<String> stale = new ArrayList<>();
                try (var query = c.prepareStatement(STALE)) {
                    query.setLong(1, minChanges);
                    try (ResultSet r = query.executeQuery()) {
                        while (r.next()) {
                            stale.add(quoted(r.getString(1)) + "." + quoted(r.getString(2)));
                        }
                    }
                }
                try (Statement s = c.createStatement()) {
                    s.execute("SET lock_timeout = '1s'");
                    for (String table : stale) {
                        long began = System.nanoTime();
                        try {
                            s.execute("ANALYZE " + table);
                            analyzed.add(table);
                            log.debug("Analyzed {} in {} ms", table, (System.nanoTime() - began) / 1_000_000);
                        } catch (SQLException busy) {
                            log.debug("Did not analyze {} now: {}", table, busy.getMessage());
                        }
                    }
                    s.execute("RESET lock_timeout");
                }
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            log.warn("Could not refresh the store's statistics: {}", e.getMessage());
        }
        return analyzed;
    }

    private boolean onPostgres(Connection c) throws SQLException {
        Boolean known = postgres;
        if (known == null) {
            known = "PostgreSQL".equals(c.getMetaData().getDatabaseProductName());
            postgres = known;
        }
        return known;
    }

    private static String quoted(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
