package io.gantry.scheduling;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Only one controller schedules at a time. On PostgreSQL the leader holds a session-level
 * advisory lock on a connection of its own for as long as it lives; if that connection dies the
 * lock is released and another controller takes over. The embedded H2 store serves one process,
 * which is always the leader.
 */
@Component
public class LeaderLock {

    private static final Logger log = LoggerFactory.getLogger(LeaderLock.class);

    private final DataSource dataSource;
    private final long key;
    private Connection held;
    private Boolean postgres;

    LeaderLock(DataSource dataSource, SchedulerProperties properties) {
        this.dataSource = dataSource;
        this.key = properties.advisoryLockKey();
    }

    /** Whether this process is the leader now; tries to become it if not. */
    public synchronized boolean isLeader() {
        try {
            if (postgres == null) {
                try (Connection c = dataSource.getConnection()) {
                    postgres = c.getMetaData().getDatabaseProductName().toLowerCase().contains("postgres");
                }
            }
            if (!postgres) {
                return true;
            }
            if (held != null && held.isValid(2)) {
                return true;
            }
            close();
            Connection c = dataSource.getConnection();
            try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT pg_try_advisory_lock(" + key + ")")) {
                if (r.next() && r.getBoolean(1)) {
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

    synchronized boolean heldNow() {
        return Boolean.FALSE.equals(postgres) || held != null;
    }

    synchronized void close() {
        if (held != null) {
            try {
                held.close();
            } catch (SQLException ignored) {
                // the lock goes with the session either way
            }
            held = null;
        }
    }
}
