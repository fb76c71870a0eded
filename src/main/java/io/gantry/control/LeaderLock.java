package io.gantry.control;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
/**
 * Only one controller schedules at a time. On PostgreSQL the leader holds a session-level
 * advisory lock on a connection of its own for as long as it lives; if that connection dies the
 * lock is released and another controller takes over. The embedded H2 store serves one process,
 * which is always the leader.
 *
 * <p>Scheduling, fair-share accrual, utilization rollups and node health all run on the leader only,
 * so the lock lives apart from all of them and knows nothing of their domain; the scheduler's
 * configuration supplies the key (see {@code io.gantry.scheduling.LeadershipConfiguration}).
 */
public class LeaderLock {

    private static final Logger log = LoggerFactory.getLogger(LeaderLock.class);

    private final DataSource dataSource;
    private final long key;
    private volatile Connection held;
    private volatile Boolean postgres;
    /** Set while the scheduler is stopped: nothing in this process may take the lock then. */
    private volatile boolean resigned;
    /** When a standby was last reported (0: never): once a minute is enough to be seen. */
    private long lastStandbyWarning;

    /** {@code key}: the advisory lock every controller of one cluster contends for. */
    public LeaderLock(DataSource dataSource, long key) {
        this.dataSource = dataSource;
        this.key = key;
    }

    /** Whether this process is the leader now; tries to become it if not. */
    public synchronized boolean isLeader() {
        try {
            if (!detectStore()) {
                return true;
            }
            if (resigned) {
                return false;
            }
            if (held != null && held.isValid(2)) {
                return true;
            }
            close();
            Connection c = dataSource.getConnection();
            // Never on a standby: a hot standby grants advisory locks too, its own, apart from the primary's, so
            // a controller whose URL let it reach a standby (a multi-host URL without targetServerType=primary)
            // would lead beside the one on the primary, and fail every write. CASE, unlike AND, is evaluated
            // in order: the lock is not even taken there.
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(
                    "SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery() THEN false ELSE pg_try_advisory_lock("
                            + key + ") END")) {
                r.next();
                if (r.getBoolean(1)) {
                    warnStandby();
                } else if (r.getBoolean(2)) {
                    held = c;
                    log.info("This controller is now the scheduling leader");
                    return true;
                }
            }
            c.close();
            return false;
        } catch (SQLException e) {
            log.warn("Could not check scheduling leadership: {}", e.getMessage());
            close();
            return false;
        }
    }

    private void warnStandby() {
        long now = System.nanoTime();
        if (lastStandbyWarning == 0 || now - lastStandbyWarning > TimeUnit.MINUTES.toNanos(1)) {
            lastStandbyWarning = now;
            log.warn("The store this controller reached is a standby (read-only), so it does not lead from there: "
                    + "a JDBC URL naming several hosts needs targetServerType=primary");
        }
    }

    /**
     * Whether this process holds the lock now, without trying to take it. Not synchronized: every
     * API write and agent call asks it, and must not wait while {@link #isLeader()} checks the lock's
     * connection over the network.
     */
    public boolean heldNow() {
        Boolean onPostgres = postgres;
        if (onPostgres == null) {
            onPostgres = detectStore();
        }
        return !onPostgres || held != null;
    }

    /** Whether the store is PostgreSQL (else the embedded store, whose one process always leads); asked once. */
    private synchronized boolean detectStore() {
        if (postgres == null) {
            try (Connection c = dataSource.getConnection()) {
                postgres = c.getMetaData().getDatabaseProductName().toLowerCase().contains("postgres");
            } catch (SQLException e) {
                log.warn("Could not tell which store this is: {}", e.getMessage());
                return true;
            }
        }
        return postgres;
    }

    /**
     * Gives the lock up and keeps this process from taking it again until {@link #resume()}: when the
     * scheduler stops (shutdown, or a test context paused), the periodic leader-only tasks that also ask
     * {@link #isLeader()} must not take the lock back, or no controller would schedule and followers
     * would forward their writes to a leader that does not lead.
     */
    public synchronized void resign() {
        resigned = true;
        close();
    }

    /** Lets this process contend for the lock again, after {@link #resign()}. */
    public synchronized void resume() {
        resigned = false;
    }

    /**
     * Gives the lock up now; the next {@link #isLeader()} may take it again. The lock is unlocked before
     * its connection is closed: a pooled connection's close only hands it back to the pool, session and
     * lock alive, and the lock would then sit on an idle connection that nobody asks for again, so that
     * neither this controller nor any other could ever lead.
     */
    public synchronized void close() {
        if (held != null) {
            try (Statement s = held.createStatement()) {
                s.setQueryTimeout(2);
                s.execute("SELECT pg_advisory_unlock(" + key + ")");
            } catch (SQLException ignored) {
                // a broken connection: its session, and the lock with it, is gone or going
            }
            try {
                held.close();
            } catch (SQLException ignored) {
                // the lock goes with the session either way
            }
            held = null;
        }
    }
}
