package io.gantry.support;

import java.util.Map;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.DelegatingPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistrar;

/**
 * Points the {@code postgres} profile's datasource at {@link TestDatabase}, and hashes passwords at BCrypt's
 * least cost.
 */
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

    /**
     * The controller's encoder ({@code {bcrypt}} hashes, which it reads whatever their cost) at cost 4 instead of
     * 10: the tests in this context create ~600 users and sign in ~450 times, and at cost 10 each hash took
     * ~0.1 CPU-s of the tests' JVM, a tenth of the integration tests' CPU (BENCHMARKS, session 28). The cost is
     * what makes a stolen hash slow to crack; what the tests check (who signs in, with which password) is the
     * same at any cost. The packaged controllers the other tests start keep cost 10.
     */
    @Bean
    @Primary
    PasswordEncoder quickPasswordEncoder() {
        return new DelegatingPasswordEncoder("bcrypt", Map.of("bcrypt", new BCryptPasswordEncoder(4)));
    }
}
