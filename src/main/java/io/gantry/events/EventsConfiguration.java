package io.gantry.events;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import io.gantry.jobs.JobOwners;
import io.gantry.jobs.JobsProperties;

/** Picks how events travel: through PostgreSQL to every controller, or in process on the embedded store. */
@Configuration(proxyBeanMethods = false)
class EventsConfiguration {

    /** Events learn their job's owner only when private jobs need it to choose their streams. */
    @Bean
    EventRelay eventRelay(DataSource dataSource, EventStreams streams, EventsProperties properties,
            JobsProperties jobs, JobOwners jobOwners) throws SQLException {
        boolean postgres;
        try (Connection c = dataSource.getConnection()) {
            postgres = c.getMetaData().getDatabaseProductName().toLowerCase().contains("postgres");
        }
        EventRelay.Owners owners = jobs.privateJobs() ? jobOwners::of : EventRelay.Owners.NONE;
        return postgres ? new PostgresEventRelay(dataSource, streams, properties, owners)
                : new LocalEventRelay(new JdbcTemplate(dataSource), streams, properties, owners);
    }
}
