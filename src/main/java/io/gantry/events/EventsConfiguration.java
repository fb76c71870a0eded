package io.gantry.events;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/** Picks how events travel: through PostgreSQL to every controller, or in process on the embedded store. */
@Configuration(proxyBeanMethods = false)
class EventsConfiguration {

    @Bean
    EventRelay eventRelay(DataSource dataSource, EventStreams streams, EventsProperties properties) throws SQLException {
        boolean postgres;
        try (Connection c = dataSource.getConnection()) {
            postgres = c.getMetaData().getDatabaseProductName().toLowerCase().contains("postgres");
        }
        return postgres ? new PostgresEventRelay(dataSource, streams, properties)
                : new LocalEventRelay(new JdbcTemplate(dataSource), streams, properties);
    }
}
