package io.gantry.support;

/**
 * What integration test classes share, as JUnit resource locks: failsafe runs two classes at once
 * (pom.xml), and a class that holds one of these runs alone among those that hold it too.
 * <ul>
 * <li>{@link #SHARED_CONTEXT}: the Spring context and database every {@link GantryIntegrationTest}
 * class shares. Its classes read and change one cluster (nodes drained, partitions, QOS, queues
 * counted), so they take turns; {@link GantryIntegrationTest} holds it for them.</li>
 * <li>{@link #HOST}: this machine as a node: real agent processes (their cgroups are named by node
 * and job id, which every cluster of its own repeats), Unix users made with {@code useradd}, the
 * test registry, MPI, tmux, Prometheus and workflow tools. Every class that starts an agent or
 * touches one of these holds it.</li>
 * </ul>
 * A class with neither (a packaged controller on a data directory or database of its own, a Spring
 * context of its own) runs beside either. A class that reads the JVM's own output
 * ({@code OutputCaptureExtension}) is {@code @Isolated}: it runs alone.
 */
public final class TestLocks {

    /** The shared Spring context and its database. */
    public static final String SHARED_CONTEXT = "gantry.shared-context";

    /** This machine as a node: agents, cgroups, Unix users and the node-side tools. */
    public static final String HOST = "gantry.host";

    private TestLocks() {
    }
}
