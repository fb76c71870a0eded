package io.gantry.support;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * A Spring context with a database of its own, for a test class whose controller is configured
 * differently from the shared one: alone on its database it leads (schedules, keeps the priority
 * board) instead of following the shared context, which holds the shared database's leader lock.
 * Register it from the class's {@code @DynamicPropertySource} and mark the class {@code @DirtiesContext},
 * so its context closes after it; the database is dropped when the test JVM ends.
 */
public final class OwnDatabase {

    private OwnDatabase() {
    }

    /** Creates database {@code name}, migrated ({@link TestDatabase#migrated}), and points the context at it. */
    public static void register(DynamicPropertyRegistry registry, String name) {
        TestDatabase db = TestDatabase.migrated(name);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> TestDatabase.drop(name), "drop-" + name));
        registry.add("spring.datasource.url", db::url);
        registry.add("spring.datasource.username", db::username);
        registry.add("spring.datasource.password", db::password);
    }
}
