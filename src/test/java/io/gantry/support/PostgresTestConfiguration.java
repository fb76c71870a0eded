package io.gantry.support;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistrar;

/** Points the {@code postgres} profile's datasource at {@link TestDatabase}. */
@TestConfiguration(proxyBeanMethods = false)
public class PostgresTestConfiguration {

    @Bean
    DynamicPropertyRegistrar testDatabaseProperties() {
        return registry -> {
            TestDatabase db = TestDatabase.get();
            registry.add("spring.datasource.url", db::url);
            registry.add("spring.datasource.username", db::username);
            registry.add("spring.datasource.password", db::password);
        };
    }
}
