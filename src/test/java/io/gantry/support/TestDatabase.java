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
        String url = shared.url().replaceFirst("(jdbc:postgresql://[^/]+/)[^?]*", "$1" + name);
        return new TestDatabase(url, shared.username(), shared.password());
    }

    /** Drops a database {@link #isolated} made. */
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
