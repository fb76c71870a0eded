package io.gantry.support;

/**
 * What integration test classes share, as JUnit resource locks: failsafe runs three classes at once
 * (pom.xml), and a class that holds one of these runs alone among those that hold it too.
 * <ul>
 * <li>{@link #SHARED_CONTEXT}: the Spring context and database every {@link GantryIntegrationTest}
 * class shares. Its classes read and change one cluster (nodes drained, partitions, QOS, queues
 * counted), so they take turns; {@link GantryIntegrationTest} holds it for them.</li>
 * <li>{@link #HOST}: this machine as a node: real agent processes, Unix users, MPI, containers, tmux,
 * Prometheus and workflow tools. Each class that uses it holds it, so they take turns. They need not
 * for correctness (each test agent puts its jobs' cgroups under a root of its own, {@link AgentProcess};
 * Unix users are made one at a time, {@link UnixAccounts}; each class names its users, databases,
 * ports and sockets apart), but side by side they kept both cores at 100 % and timing-sensitive
 * classes failed now and then.</li>
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
