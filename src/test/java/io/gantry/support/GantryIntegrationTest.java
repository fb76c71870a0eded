package io.gantry.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.parallel.ResourceLock;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.ActiveProfiles;

/**
 * The whole controller on a random port against real PostgreSQL. Every test class that uses
 * exactly this annotation shares one Spring context, so keep extra configuration off it. Those
 * classes take turns ({@link TestLocks#SHARED_CONTEXT}); others run beside them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("postgres")
@Import(PostgresTestConfiguration.class)
@ResourceLock(TestLocks.SHARED_CONTEXT)
public @interface GantryIntegrationTest {
}
