package io.gantry.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import io.gantry.support.TestDatabase;

/**
 * A controller whose scheduler stopped gives the lock up for good: its other leader-only tasks (node
 * health, fair share, rollups) ask {@link LeaderLock#isLeader()} too, and if one of them took the lock
 * back, the running controller could never lead and every forwarded write would be answered 503.
 */
class LeaderLockIntegrationTests {

    private final long key = 7_000_000_000L + ProcessHandle.current().pid();
    private final TestDatabase db = TestDatabase.get();
    private final LeaderLock stopping = new LeaderLock(source(), key);
    private final LeaderLock standby = new LeaderLock(source(), key);

    @AfterEach
    void release() {
        stopping.close();
        standby.close();
    }

    @Test
    void aResignedControllerDoesNotTakeTheLockBackUntilItResumes() {
        assertThat(stopping.isLeader()).isTrue();
        assertThat(standby.isLeader()).as("one leader at a time").isFalse();

        stopping.resign();

        assertThat(stopping.isLeader()).as("resigned: asks no more").isFalse();
        assertThat(standby.isLeader()).as("the standby takes over").isTrue();
        standby.close();
        assertThat(stopping.isLeader()).as("still resigned though the lock is free").isFalse();
        assertThat(stopping.heldNow()).isFalse();

        stopping.resume();

        assertThat(stopping.isLeader()).as("contends again after resuming").isTrue();
        assertThat(standby.isLeader()).isFalse();
    }

    /**
     * A pooled connection's close ends no session: a lock taken on one and given up by closing it stayed
     * on an idle connection in the pool, and no controller could lead again until the pool closed.
     */
    @Test
    void aLockTakenThroughAPoolIsFreeOnceGivenUp() {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(db.url());
        config.setUsername(db.username());
        config.setPassword(db.password());
        config.setMaximumPoolSize(2);
        try (com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(config)) {
            LeaderLock pooled = new LeaderLock(pool, key);
            assertThat(pooled.isLeader()).isTrue();
            assertThat(standby.isLeader()).isFalse();

            pooled.resign();

            assertThat(standby.isLeader()).as("the pool is still open, the lock is not held by it").isTrue();
            standby.close();
            pooled.resume();
            assertThat(pooled.isLeader()).as("and this process can lead again, on any of its connections").isTrue();
            pooled.close();
        }
    }

    private DriverManagerDataSource source() {
        return new DriverManagerDataSource(db.url(), db.username(), db.password());
    }
}
