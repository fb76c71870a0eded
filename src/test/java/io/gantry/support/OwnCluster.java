package io.gantry.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A cluster of its own for a test class whose cluster differs from the one the other tests share:
 * database {@code database} on the test PostgreSQL (migrated, see {@link TestDatabase#migrated}), the cluster file
 * {@code dir/cluster.yml}, packaged controllers on both (each with its data directory under {@code dir})
 * and real agent processes (each working in {@code dir/agent-NAME}, logging to
 * {@code dir/agent-NAME/agent.log}). Closing it kills its agents and what their jobs left running, stops its
 * controllers and drops the database.
 */
public final class OwnCluster implements AutoCloseable {

    private static final String POOL_SIZE = "--spring.datasource.hikari.maximum-pool-size=";

    private final Path dir;
    private final String database;
    private final TestDatabase db;
    private final Path config;
    private final List<AgentProcess> agents = new ArrayList<>();
    private final List<ControllerProcess> controllers = new ArrayList<>();

    private OwnCluster(Path dir, String database, TestDatabase db, Path config) {
        this.dir = dir;
        this.database = database;
        this.db = db;
        this.config = config;
    }

    /** Creates database {@code database} and writes {@code clusterYaml} to {@code dir/cluster.yml}. */
    public static OwnCluster create(Path dir, String database, String clusterYaml) throws IOException {
        TestDatabase db = TestDatabase.migrated(database);
        Path config = dir.resolve("cluster.yml");
        Files.writeString(config, clusterYaml);
        return new OwnCluster(dir, database, db, config);
    }

    public TestDatabase db() {
        return db;
    }

    /**
     * A controller on this database and cluster file, not started yet, its data directory {@code dir/name}.
     * Its connection pool holds 6 connections, not Hikari's 10: test classes run side by side, each with
     * controllers of its own, on one PostgreSQL that allows 100 clients.
     */
    public ControllerProcess controller(String name, String... extraArgs) throws IOException {
        Path data = Files.createDirectories(dir.resolve(name));
        Stream<String> pool = Stream.of(extraArgs).anyMatch(a -> a.startsWith(POOL_SIZE)) ? Stream.empty()
                : Stream.of(POOL_SIZE + "6");
        ControllerProcess controller = new ControllerProcess(data, Stream.of(Stream.of(
                "--spring.profiles.active=postgres", "--spring.datasource.url=" + db.url(),
                "--spring.datasource.username=" + db.username(), "--spring.datasource.password=" + db.password(),
                "--spring.config.additional-location=file:" + config.toAbsolutePath()), pool, Stream.of(extraArgs))
                .flatMap(s -> s).toArray(String[]::new));
        controllers.add(controller);
        return controller;
    }

    /** {@link #controller} started: it answers {@code /actuator/health}. */
    public ControllerProcess startController(String name) throws IOException, InterruptedException {
        return controller(name).start();
    }

    /** A real agent process for node {@code name} joining {@code controller} (see {@link AgentProcess#start}). */
    public AgentProcess startAgent(ControllerProcess controller, String joinToken, String name, int cpus,
            long memoryMb, String... extraArgs) throws IOException {
        return startAgent("http://127.0.0.1:" + controller.port(), joinToken, name, cpus, memoryMb, extraArgs);
    }

    /** The same, for an agent that knows the controllers at {@code controllerUrls} (comma-separated). */
    public AgentProcess startAgent(String controllerUrls, String joinToken, String name, int cpus, long memoryMb,
            String... extraArgs) throws IOException {
        AgentProcess agent = AgentProcess.start(controllerUrls, joinToken, name, cpus, memoryMb,
                dir.resolve("agent-" + name), agentLog(name), extraArgs);
        agents.add(agent);
        return agent;
    }

    /** An agent for node {@code name} with {@code environment} added to its own (see {@link AgentProcess#start}). */
    public AgentProcess startAgent(ControllerProcess controller, java.util.Map<String, String> environment,
            String joinToken, String name, int cpus, long memoryMb, String... extraArgs) throws IOException {
        AgentProcess agent = AgentProcess.start("http://127.0.0.1:" + controller.port(), joinToken, name, cpus,
                memoryMb, dir.resolve("agent-" + name), agentLog(name), environment, extraArgs);
        agents.add(agent);
        return agent;
    }

    /** Where the agent for node {@code name} logs. */
    public Path agentLog(String name) {
        return dir.resolve("agent-" + name).resolve("agent.log");
    }

    @Override
    public void close() throws InterruptedException {
        for (AgentProcess agent : agents) {
            agent.closeWithItsJobs();
        }
        for (ControllerProcess controller : controllers) {
            controller.stop();
        }
        TestDatabase.drop(database);
    }
}
