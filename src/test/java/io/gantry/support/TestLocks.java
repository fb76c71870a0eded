package io.gantry.support;

/**
 * What integration test classes share, as JUnit resource locks: failsafe runs five classes at once
 * (pom.xml), and a class that holds {@link #SHARED_CONTEXT} runs alone among those that hold it too.
 * <ul>
 * <li>{@link #SHARED_CONTEXT}: the Spring context and database every {@link GantryIntegrationTest}
 * class shares. Its classes read and change one cluster (nodes drained, partitions, QOS, queues
 * counted), so they take turns; {@link GantryIntegrationTest} holds it for them.</li>
 * <li>{@link #HOST}: this machine as a node, for the classes that time it ({@link TimesTheHost}): real agents
 * whose heartbeats, samplers, time limits, grace times, freezes or suspend timers a test counts or races
 * (suspend, GPU use and idle policy, power saving, preemption grace, signals before a limit, out-of-memory,
 * health checks, a killed agent, failover, a large step's heartbeats, mpirun's cancel, the output path-swap
 * race whose busy loop takes a core). Their tests take turns ({@link HostTurn}): side by side, on two cores
 * kept 100 % busy, they failed now and then. A class sets up while the one before it runs its tests; it holds
 * {@code HOST.1} or {@code HOST.2} ({@link HostTurn.Pairs}) from its set-up to its end, so that at most two
 * such classes are in the lanes.</li>
 * <li>{@link #NODE}, held to read ({@link OnTheNode}): this machine as a node, for the classes that only use
 * it (MPI, containers, srun, sstat, the Slurm environment, tmux, workflow tools, the command corpus, the
 * dashboard's live output) and wait on generous conditions. They run beside any class: each test agent puts
 * its jobs' cgroups under a root of its own ({@link AgentProcess}), Unix users are made one at a time ({@link UnixAccounts}), and each
 * class names its users, databases, ports and sockets apart. Nothing holds it to write; it is there so that
 * {@link HostFirst} starts them early, and so that a reader sees what they use.</li>
 * <li>{@link #TWO_NODES}: the controller and two agents that the classes running steps on this machine share
 * ({@link TwoNodes}), taken to write: one class at a time, each leaving no job behind.</li>
 * <li>{@link #QUIET}: the machine's spare CPU, held to write by the class that times what a user waits for (a
 * 100,000-task array's page in a browser, within a second) and to read by every class that keeps the cores
 * busy for a minute or more: the node's classes, those marked {@link StartEarly} and the output path-swap
 * race. So the timed class runs beside short ones and the {@code HOST} classes' timers, not beside MPI,
 * browsers or fuzzing.</li>
 * </ul>
 * A class with none of these (a packaged controller on a data directory or database of its own, a Spring
 * context of its own) runs beside any. A class that reads the JVM's own output
 * ({@code OutputCaptureExtension}) is {@code @Isolated}: JUnit runs it alone, after all the others.
 */
public final class TestLocks {

    /** The shared Spring context and its database. */
    public static final String SHARED_CONTEXT = "gantry.shared-context";

    /** This machine as a node, for a class that times it: such classes' tests take turns (see above). */
    public static final String HOST = "gantry.host";

    /** This machine as a node, for a class that only uses it: held to read, beside any class (see above). */
    public static final String NODE = "gantry.node";

    /** The cluster of two real agents that the step classes share ({@link TwoNodes}): one class at a time. */
    public static final String TWO_NODES = "gantry.two-nodes";

    /** The machine's spare CPU: written by a class that times a user's wait, read by the busy ones (see above). */
    public static final String QUIET = "gantry.quiet";

    private TestLocks() {
    }
}
