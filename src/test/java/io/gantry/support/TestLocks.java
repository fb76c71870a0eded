package io.gantry.support;

/**
 * What integration test classes share, as JUnit resource locks: failsafe runs several classes at once
 * (pom.xml), and a class that holds one of these in {@code READ_WRITE} mode (the default) runs alone
 * among those that hold it too.
 * <ul>
 * <li>{@link #SHARED_CONTEXT}: the Spring context and database every {@link GantryIntegrationTest}
 * class shares. Its classes read and change one cluster (nodes drained, partitions, QOS, queues
 * counted), so they take turns; {@link GantryIntegrationTest} holds it for them.</li>
 * <li>{@link #HOST}: this machine as a node: real agent processes, Unix users, MPI, containers, tmux,
 * Prometheus and workflow tools. The classes that use it hold it in {@code READ} mode, so they run side
 * by side: each agent puts its jobs' cgroups under a root of its own ({@link AgentProcess}), Unix
 * users are made one at a time ({@link UnixAccounts}), and every class names its users, ports, tmux
 * sockets and registries apart. {@link HostFirst} starts them first: they are the longest. A class
 * that needs the machine to itself would hold it in {@code READ_WRITE} mode.</li>
 * </ul>
 * A class with neither (a packaged controller on a data directory or database of its own, a Spring
 * context of its own) runs beside either. A class that reads the JVM's own output
 * ({@code OutputCaptureExtension}) is {@code @Isolated}: it runs alone.
 */
public final class TestLocks {

    /** The shared Spring context and its database. */
    public static final String SHARED_CONTEXT = "gantry.shared-context";

    /** This machine as a node: agents, cgroups, Unix users and the node-side tools (held to read, see above). */
    public static final String HOST = "gantry.host";

    private TestLocks() {
    }
}
