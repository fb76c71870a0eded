package io.gantry.scheduling;

import javax.sql.DataSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.gantry.control.LeaderLock;

/** The one leader lock of this controller, on the key {@code gantry.scheduler.advisory-lock-key} names. */
@Configuration(proxyBeanMethods = false)
class LeadershipConfiguration {

    /** Released by the scheduler worker when it stops, as before; no inferred close on top of that. */
    @Bean(destroyMethod = "")
    LeaderLock leaderLock(DataSource dataSource, SchedulerProperties properties) {
        return new LeaderLock(dataSource, properties.advisoryLockKey());
    }
}
