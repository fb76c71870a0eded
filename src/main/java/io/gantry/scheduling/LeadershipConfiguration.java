package io.gantry.scheduling;

import java.util.Properties;

import javax.sql.DataSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import com.zaxxer.hikari.HikariDataSource;

import io.gantry.control.LeaderLock;

/** The one leader lock of this controller, on the key {@code gantry.scheduler.advisory-lock-key} names. */
@Configuration(proxyBeanMethods = false)
class LeadershipConfiguration {

    /**
     * Released by the scheduler worker when it stops, as before; no inferred close on top of that. The
     * lock's connection is a connection of its own, outside the pool: the lock lives as long as its
     * session, and closing a pooled connection ends no session.
     */
    @Bean(destroyMethod = "")
    LeaderLock leaderLock(DataSource dataSource, SchedulerProperties properties) {
        return new LeaderLock(unpooled(dataSource), properties.advisoryLockKey());
    }

    private static DataSource unpooled(DataSource dataSource) {
        if (!(dataSource instanceof HikariDataSource pool) || pool.getJdbcUrl() == null) {
            return dataSource;
        }
        DriverManagerDataSource own = new DriverManagerDataSource(pool.getJdbcUrl(), pool.getUsername(),
                pool.getPassword());
        Properties settings = new Properties();
        settings.putAll(pool.getDataSourceProperties());
        own.setConnectionProperties(settings);
        if (pool.getDriverClassName() != null) {
            own.setDriverClassName(pool.getDriverClassName());
        }
        return own;
    }
}
