package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.TestRegistry;
import io.gantry.support.TimesTheHost;
import io.gantry.support.UnixAccounts;
import tools.jackson.databind.JsonNode;

/**
 * OpenMPI's {@code mpirun} (Debian's openmpi-bin 4.1) inside a 2-node, 4-task batch job on two real
 * agents: its Slurm support reads the job's {@code SLURM_*} variables, starts one {@code orted} a node
 * through Gantry's {@code srun} with the options it always passes, and the orteds start the ranks.
 * Run as root, the tests create an ordinary user and run the jobs as that user, as a cluster would.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MpirunIntegrationTests {

    private static final String JOIN_TOKEN = "mpirun-test-join-token-0123456789";
    private static final String DATABASE = "gantry_mpirun_it_" + ProcessHandle.current().pid();
    private static final String PASSWORD = "mpirun-user-password-1";
    /** The ordinary user the jobs run as when the tests run as root (OpenMPI refuses root unless told). */
    private static final String USER = "g29mpi" + ProcessHandle.current().pid();
    /** Each rank's rank, size, the Allreduce sum of all ranks and its node; rank {@code argv[1]} exits 5 instead. */
    private static final String HELLO = """
            #include <mpi.h>
            #include <stdio.h>
            #include <stdlib.h>
            int main(int argc, char **argv) {
                int rank, size, sum = 0;
                MPI_Init(&argc, &argv);
                MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                MPI_Comm_size(MPI_COMM_WORLD, &size);
                MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                const char *node = getenv("SLURMD_NODENAME");
                printf("rank %d size %d sum %d node %s\\n", rank, size, sum, node ? node : "?");
                fflush(stdout);
                if (argc > 1 && rank == atoi(argv[1])) {
                    exit(5);
                }
                MPI_Finalize();
                return 0;
            }
            """;
    /**
     * The agents of both nodes run on this one host, where OpenMPI's shared-memory copy mechanism (CMA)
     * is not always allowed between the nodes' processes, so the ranks talk over TCP as they would
     * between real nodes.
     */
    private static final String SCRIPT = """
            #!/bin/bash
            export OMPI_MCA_btl=tcp,self
            mpirun.openmpi %s
            code=$?
            echo "mpirun exit $code"
            exit $code
            """;

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ApiClient api;
    private String admin;
    /** The jobs' owner: {@link #USER} when the tests run as root, else the user running them. */
    private String owner;
    private boolean userCreated;
    private Path home;
    private Path hello;

    @BeforeAll
    void startControllerAndAgents() throws Exception {
        // OpenMPI's own names: with MPICH installed too, plain mpicc and mpirun are whichever Debian's alternatives chose
        assumeTrue(onPath("mpicc.openmpi") && onPath("mpirun.openmpi"),
                "OpenMPI (Debian's openmpi-bin, libopenmpi-dev) is not installed");
        boolean root = "root".equals(System.getProperty("user.name"));
        if (root) {
            UnixAccounts.addUser("-m", "-s", "/bin/bash", USER);
            userCreated = true;
            home = Path.of(run("getent", "passwd", USER).split(":")[5]);
            // the temporary directory (the agents' work directories in it) is root's: let the user pass through it
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        } else {
            home = Files.createDirectories(dir.resolve("home"));
        }
        hello = home.resolve("hello");
        Files.writeString(home.resolve("hello.c"), HELLO);
        run("mpicc.openmpi", "-o", hello.toString(), home.resolve("hello.c").toString());

        cluster = OwnCluster.create(dir, DATABASE, ClusterYaml.twoGpuNodes("mpirun-test", 2, 0) + """
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    kill-wait: 2s
                """.formatted(JOIN_TOKEN) + ClusterYaml.adminRunsJobsAsTester());
        ControllerProcess controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        owner = root ? api.createUser(admin, USER, PASSWORD) : admin;
        if (root) {
            run("chown", "-R", USER + ":", home.toString());
        }
        for (String node : List.of("node1", "node2")) {
            cluster.startAgent(controller, JOIN_TOKEN, node, 2, 4000, "--gpus", "2", "--gpu-type", "test");
        }
        for (String node : List.of("node1", "node2")) {
            api.awaitNodeState(node, admin, Duration.ofSeconds(60), "IDLE");
        }
    }

    @AfterAll
    void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (userCreated) {
            UnixAccounts.removeUser(USER, true);
        }
    }

    @Test
    void mpirunRunsFourRanksOverBothNodesAndTheyAllreduce() throws Exception {
        Path work = work("allreduce");
        long id = api.submitJob(owner, Map.of("nodes", 2, "ntasksPerNode", 2, "workdir", work.toString(),
                "script", SCRIPT.formatted(hello)));
        JsonNode job = awaitEnd(id, work, "COMPLETED");
        String out = output(id, work);
        assertThat(job.get("exitCode").asInt()).as(out).isZero();

        List<String> ranks = out.lines().filter(l -> l.startsWith("rank ")).sorted().toList();
        // ranks 0+1+2+3 = 6; OpenMPI fills a node's slots first, as Slurm's block distribution does
        assertThat(ranks).as(out).containsExactly(
                "rank 0 size 4 sum 6 node node1",
                "rank 1 size 4 sum 6 node node1",
                "rank 2 size 4 sum 6 node node2",
                "rank 3 size 4 sum 6 node node2");
        assertThat(out).contains("mpirun exit 0");
        // mpirun started one orted a node as srun step 0, over the whole allocation
        assertThat(steps(id)).as(out).containsExactly("batch COMPLETED 0 node1 1", "0 COMPLETED 0 node[1-2] 2");
    }

    @Test
    void mpirunOnOneNodeOfTheAllocationStartsItsDaemonThereOnly() throws Exception {
        // fewer daemons than nodes: OpenMPI adds --nodes=1 --nodelist=node2 to its srun
        Path work = work("one-node");
        long id = api.submitJob(owner, Map.of("nodes", 2, "ntasksPerNode", 2, "workdir", work.toString(),
                "script", SCRIPT.formatted("-np 2 --host node2:2 " + hello)));
        awaitEnd(id, work, "COMPLETED");
        String out = output(id, work);
        assertThat(out.lines().filter(l -> l.startsWith("rank ")).sorted().toList()).as(out).containsExactly(
                "rank 0 size 2 sum 1 node node2",
                "rank 1 size 2 sum 1 node node2");
        assertThat(steps(id)).as(out).containsExactly("batch COMPLETED 0 node1 1", "0 COMPLETED 0 node2 1");
    }

    @Test
    void cancellingTheJobDuringMpirunLeavesNoRankOnEitherNode() throws Exception {
        Path work = work("cancel");
        String marker = "97" + (ProcessHandle.current().pid() % 1000) + "3";
        long id = api.submitJob(owner, Map.of("nodes", 2, "ntasksPerNode", 2, "workdir", work.toString(),
                "script", SCRIPT.formatted("sleep " + marker)));
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> sleepers(marker) == 4);
        } catch (Throwable e) {
            throw new AssertionError(output(id, work), e);
        }
        List<Long> orteds = orteds(id);
        assertThat(orteds).as("one orted a node").hasSize(2);
        assertThat(api.send("DELETE", "/api/v1/jobs/" + id, admin, null).status()).isBetween(200, 299);
        awaitEnd(id, work, "CANCELLED");
        await().atMost(Duration.ofSeconds(20)).until(() -> sleepers(marker) == 0
                && orteds.stream().noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)));
    }

    @Test
    void aRankThatExitsFiveMakesMpirunAndTheJobFailWithFive() throws Exception {
        Path work = work("fail");
        long id = api.submitJob(owner, Map.of("nodes", 2, "ntasksPerNode", 2, "workdir", work.toString(),
                "script", SCRIPT.formatted(hello + " 2")));
        JsonNode job = awaitEnd(id, work, "FAILED");
        String out = output(id, work);
        assertThat(job.get("exitCode").asInt()).as(out).isEqualTo(5);
        assertThat(out).contains("mpirun exit 5");

        // the daemons end cleanly when mpirun tells them to, as under Slurm: the batch step carries the 5
        assertThat(steps(id)).as(out).containsExactly("batch FAILED 5 node1 1", "0 COMPLETED 0 node[1-2] 2");
    }

    /**
     * The MPI hello in a container under {@code mpirun}, as pyxis users run it: OpenMPI passes
     * {@code plm_slurm_args} to the {@code srun} that starts its daemons, so each node's {@code orted},
     * and the ranks it forks, run in the image. The image carries OpenMPI (copied from this host's
     * packages, with the libraries they need) and the hello, which is nowhere on the host's path.
     */
    @Test
    void mpirunStartsItsDaemonsAndRanksInContainersOfAnImage() throws Exception {
        String missing = TestRegistry.missingTools();
        assumeTrue(missing.isEmpty(), missing);
        try (TestRegistry registry = TestRegistry.start(Files.createDirectories(dir.resolve("registry")))) {
            Map<Path, String> files = new java.util.LinkedHashMap<>();
            for (String path : List.of("/usr/lib/x86_64-linux-gnu/openmpi", "/usr/lib/x86_64-linux-gnu/pmix2",
                    "/usr/lib/x86_64-linux-gnu/hwloc", "/usr/share/openmpi", "/usr/share/pmix", "/etc/openmpi",
                    "/usr/bin/orted")) {
                if (Files.exists(Path.of(path))) {
                    files.put(Path.of(path), path);
                }
            }
            files.put(hello, "/opt/mpi/hello");
            registry.pushBusyboxImage("mpi:1", "mpi-image", files);
            Path work = work("container");
            long id = api.submitJob(owner, Map.of("nodes", 2, "ntasksPerNode", 2, "workdir", work.toString(),
                    "script", """
                            #!/bin/bash
                            export OMPI_MCA_btl=tcp,self
                            export OMPI_MCA_plm_slurm_args="--container-image=%s/mpi:1"
                            mpirun.openmpi /opt/mpi/hello
                            code=$?
                            echo "mpirun exit $code"
                            exit $code
                            """.formatted(registry.host())));
            JsonNode job = awaitEnd(id, work, "COMPLETED");
            String out = output(id, work);
            assertThat(job.get("exitCode").asInt()).as(out).isZero();
            assertThat(out.lines().filter(l -> l.startsWith("rank ")).sorted().toList()).as(out).containsExactly(
                    "rank 0 size 4 sum 6 node node1",
                    "rank 1 size 4 sum 6 node node1",
                    "rank 2 size 4 sum 6 node node2",
                    "rank 3 size 4 sum 6 node node2");
            assertThat(Path.of("/opt/mpi/hello")).as("the hello is in the image only").doesNotExist();
            // one orted a node as step 0 (the daemons' containers may still be going when mpirun, then the
            // batch script, ends: the job's end then stops them, so their step's end state is not asserted)
            List<String> steps = steps(id);
            assertThat(steps).as(out).hasSize(2).first().isEqualTo("batch COMPLETED 0 node1 1");
            assertThat(steps.get(1)).as(out).startsWith("0 ").endsWith(" node[1-2] 2");
            JsonNode step = api.get("/api/v1/jobs/" + id + "/steps", admin).json().get("items").get(1);
            assertThat(step.toString()).as("the daemons' step records its image").contains(registry.host() + "/mpi:1");
        }
    }

    /** A working directory of the jobs' owner, in its home. */
    private Path work(String name) throws IOException, InterruptedException {
        Path work = Files.createDirectories(home.resolve(name));
        if (userCreated) {
            run("chown", USER + ":", work.toString());
        }
        return work;
    }

    /** Runs {@code command}, fails unless it exits 0, returns its output. */
    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
        return output.strip();
    }

    /** Each step of job {@code id} as "id state exitCode nodelist tasks". */
    private List<String> steps(long id) {
        JsonNode steps = api.get("/api/v1/jobs/" + id + "/steps", admin).json();
        List<String> lines = new ArrayList<>();
        steps.get("items").forEach(s -> lines.add(s.get("stepId").asString() + " " + s.get("state").asString() + " "
                + (s.path("exitCode").isNumber() ? s.get("exitCode").asInt() : "-") + " "
                + s.get("nodelist").asString() + " " + s.get("tasks").asInt()));
        return lines;
    }

    /** How many {@code sleep <marker>} processes run on this machine (both nodes' agents run here). */
    private static long sleepers(String marker) throws IOException {
        return processes((cmd, env) -> cmd.equals("sleep " + marker)).size();
    }

    /** The OpenMPI daemons of job {@code id} of this test's cluster: {@code orted}, started by srun in that job. */
    private static List<Long> orteds(long id) throws IOException {
        return processes((cmd, env) -> cmd.startsWith("orted ") && env.contains("\0SLURM_JOB_ID=" + id + "\0")
                && env.contains("\0SLURM_CLUSTER_NAME=mpirun-test\0"));
    }

    private static List<Long> processes(BiPredicate<String, String> commandLineAndEnvironment) throws IOException {
        try (var procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().matches("\\d+")).filter(p -> {
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline"))).replace('\0', ' ').strip();
                    String env = "\0" + new String(Files.readAllBytes(p.resolve("environ")));
                    return commandLineAndEnvironment.test(cmd, env);
                } catch (IOException e) {
                    return false;
                }
            }).map(p -> Long.parseLong(p.getFileName().toString())).toList();
        }
    }

    private JsonNode awaitEnd(long id, Path work, String state) throws IOException {
        try {
            return api.awaitJobState(id, admin, state, Duration.ofSeconds(120));
        } catch (Throwable e) {
            throw new AssertionError("job " + id + " did not end " + state + ":\n" + output(id, work)
                    + "\nevents: " + api.get("/api/v1/jobs/" + id + "/events", admin).body(), e);
        }
    }

    private static String output(long id, Path work) throws IOException {
        Path out = work.resolve("gantry-" + id + ".out");
        return Files.exists(out) ? Files.readString(out) : "(no output)";
    }

    private static boolean onPath(String command) throws IOException, InterruptedException {
        Process which = new ProcessBuilder("sh", "-c", "command -v " + command).start();
        return which.waitFor(10, TimeUnit.SECONDS) && which.exitValue() == 0;
    }
}
