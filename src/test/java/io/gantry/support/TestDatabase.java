package io.gantry.support;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The PostgreSQL that integration tests run on: {@code TEST_DATABASE_URL} (+ {@code _USER},
 * {@code _PASSWORD}) when set, else a Testcontainers container when a Docker engine answers, else
 * an embedded PostgreSQL of the tests' own ({@link EmbeddedPostgres}), so README's test command
 * works on a machine with only a JDK. When none can be had, tests fail loudly, never skip.
 */
public record TestDatabase(String url, String username, String password) {

    private static TestDatabase instance;
    private static String template;

    public static synchronized TestDatabase get() {
        if (instance == null) {
            instance = locate();
        }
        return instance;
    }

    /**
     * A new, empty database of its own on the same server, for a controller whose cluster differs
     * from the one the other tests share (the store follows a controller's configuration).
     */
    public static TestDatabase isolated(String name) {
        TestDatabase shared = get();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(shared.url(), shared.username(),
                shared.password()); java.sql.Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + name);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("Cannot create database " + name + " next to " + shared.url(), e);
        }
        return shared.named(name);
    }

    /**
     * A new database of its own like {@link #isolated}, already migrated to this build's schema: a copy of a
     * template that this JVM migrates once ({@code CREATE DATABASE ... TEMPLATE}), so that a controller started
     * on it finds its schema in place instead of running every migration again. For the tests whose subject is
     * not the migration itself; those take {@link #isolated}.
     */
    public static TestDatabase migrated(String name) {
        TestDatabase shared = get();
        String template = template();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(shared.url(), shared.username(),
                shared.password()); java.sql.Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + name + " TEMPLATE " + template);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("Cannot create database " + name + " from " + template, e);
        }
        return shared.named(name);
    }

    /**
     * The migrated template's name, made and migrated by the first caller in this JVM and dropped when the JVM
     * ends. Nothing but the migration ever connects to it: PostgreSQL copies a template only while no session
     * is on it.
     */
    private static synchronized String template() {
        if (template == null) {
            String name = "gantry_template_" + ProcessHandle.current().pid();
            TestDatabase db = isolated(name);
            org.flywaydb.core.Flyway.configure().dataSource(db.url(), db.username(), db.password())
                    .locations("classpath:db/migration", "classpath:db/vendor/postgresql").load().migrate();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> drop(name), "drop-" + name));
            template = name;
        }
        return template;
    }

    /** The same server and credentials, database {@code name}. */
    private TestDatabase named(String name) {
        return new TestDatabase(url.replaceFirst("(jdbc:postgresql://[^/]+/)[^?]*", "$1" + name), username, password);
    }

    /** Drops a database {@link #isolated} or {@link #migrated} made. */
    public static void drop(String name) {
        TestDatabase shared = get();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(shared.url(), shared.username(),
                shared.password()); java.sql.Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("Cannot drop database " + name, e);
        }
    }

    private static TestDatabase locate() {
        String url = System.getenv("TEST_DATABASE_URL");
        if (url != null && !url.isBlank()) {
            return new TestDatabase(url, env("TEST_DATABASE_USER", "postgres"), env("TEST_DATABASE_PASSWORD", ""));
        }
        if (dockerAnswers()) {
            PostgreSQLContainer container = new PostgreSQLContainer("postgres:16-alpine");
            container.start();
            return new TestDatabase(container.getJdbcUrl(), container.getUsername(), container.getPassword());
        }
        return EmbeddedPostgres.start();
    }

    private static boolean dockerAnswers() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }
}
