package io.gantry.support;

import java.io.IOException;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.parallel.ResourceLock;

import tools.jackson.databind.JsonNode;

/**
 * The cluster that the classes running steps on this machine share (srun inside and outside a job, salloc and
 * {@code srun --pty}, sstat, containers, Slurm's environment): a controller on a migrated database, with
 * partition {@code batch} of {@code node1} and {@code node2} (two CPUs, 4000 MB, two GPUs of type {@code test}
 * each, 500 MB a CPU by default, a kill wait of 2 s, the bootstrap admin's jobs run as whoever runs the tests),
 * each node a real agent on this machine. Each of those classes started a cluster like it of its own: a
 * controller's start is ~5 CPU-seconds on a machine whose integration tests are bound by CPU.
 * <p>
 * A class marked {@link Use} gets it as a parameter of its {@code @BeforeAll} (the first such class starts it;
 * it stops when the tests end), holds {@link TestLocks#TWO_NODES} so that the classes take turns, and calls
 * {@link #release} in its {@code @AfterAll} to leave it as it found it: no job queued or running, both nodes
 * idle. Each class names its own users and works in directories of its own.
 */
public final class TwoNodes implements AutoCloseable {

    /** The cluster's name (Slurm's {@code SLURM_CLUSTER_NAME}). */
    public static final String CLUSTER = "two-nodes";
    private static final String JOIN_TOKEN = "two-nodes-test-join-token-0123456789";
    private static final List<String> NODES = List.of("node1", "node2");
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    private final Path dir;
    private final OwnCluster cluster;
    private final ControllerProcess controller;
    private final Map<String, AgentProcess> agents = new LinkedHashMap<>();
    private final ApiClient api;
    private final String admin;

    /** A class that uses the shared two-node cluster: see {@link TwoNodes}. */
    @Documented
    @Target(ElementType.TYPE)
    @Retention(RetentionPolicy.RUNTIME)
    @OnTheNode
    @ResourceLock(TestLocks.TWO_NODES)
    @ExtendWith(Resolver.class)
    public @interface Use {
    }

    private TwoNodes(Path dir) throws IOException, InterruptedException {
        this.dir = dir;
        // jobs run as the classes' own users, who must reach their scripts under the agents' work directories
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        cluster = OwnCluster.create(dir, "gantry_two_nodes_it_" + ProcessHandle.current().pid(),
                ClusterYaml.twoGpuNodes(CLUSTER, 2, 500) + """
                          agents:
                            join-token: %s
                            default-partitions: [batch]
                            kill-wait: 2s
                        """.formatted(JOIN_TOKEN) + ClusterYaml.adminRunsJobsAsTester());
        try {
            controller = cluster.startController("controller");
            api = controller.api();
            admin = api.adminToken();
            for (String node : NODES) {
                startAgent(node);
            }
            for (String node : NODES) {
                api.awaitNodeState(node, admin, PATIENCE, "IDLE");
            }
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    public ControllerProcess controller() {
        return controller;
    }

    public ApiClient api() {
        return api;
    }

    /** The bootstrap admin's token. */
    public String admin() {
        return admin;
    }

    /** Where node {@code name}'s agent logs (every agent it has had on this cluster, one after another). */
    public Path agentLog(String name) {
        return cluster.agentLog(name);
    }

    /** Kills node {@code name}'s agent (SIGKILL: its jobs run on in their own sessions). */
    public void killAgent(String name) throws InterruptedException {
        agents.get(name).close();
    }

    /** Starts node {@code name}'s agent again, on the same work directory (it adopts the jobs it finds there). */
    public void startAgent(String name) throws IOException {
        agents.put(name, cluster.startAgent(controller, JOIN_TOKEN, name, 2, 4000, "--gpus", "2", "--gpu-type", "test"));
    }

    /**
     * Leaves the cluster as the next class expects it: every job still queued or running cancelled, an agent a
     * class killed started again, and both nodes idle.
     */
    public void release() throws IOException {
        for (Map.Entry<String, AgentProcess> agent : agents.entrySet()) {
            if (!agent.getValue().isAlive()) {
                startAgent(agent.getKey());
            }
        }
        for (long id : liveJobs()) {
            api.send("DELETE", "/api/v1/jobs/" + id, admin, null);
        }
        org.awaitility.Awaitility.await("no job left on the two nodes").atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(250)).until(() -> liveJobs().isEmpty());
        for (String node : NODES) {
            api.awaitNodeState(node, admin, PATIENCE, "IDLE");
        }
    }

    private List<Long> liveJobs() {
        ApiClient.Response jobs = api.get("/api/v1/jobs?size=1000&state=PENDING,RUNNING,COMPLETING,SUSPENDED", admin);
        if (jobs.status() != 200) {
            throw new AssertionError("listing the jobs left was answered " + jobs);
        }
        List<Long> ids = new ArrayList<>();
        for (JsonNode job : jobs.json().get("items")) {
            ids.add(job.get("jobId").asLong());
        }
        return ids;
    }

    @Override
    public void close() throws Exception {
        cluster.close();
        try (Stream<Path> tree = Files.walk(dir)) {
            for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Gives a {@link Use} class's {@code @BeforeAll} the cluster, started by the first class that asks. */
    public static final class Resolver implements ParameterResolver {

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == TwoNodes.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            // the root's store: it closes the cluster once every class has run
            return context.getRoot().getStore(ExtensionContext.Namespace.create(TwoNodes.class))
                    .computeIfAbsent(TwoNodes.class, k -> start(), TwoNodes.class);
        }

        private static TwoNodes start() {
            try {
                return new TwoNodes(Files.createTempDirectory("gantry-two-nodes"));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
