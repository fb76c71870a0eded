package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;
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

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OnTheNode;
import io.gantry.support.OwnCluster;
import io.gantry.support.UnixAccounts;
import tools.jackson.databind.JsonNode;

/**
 * Debian's MPICH 4.0 (mpich, libmpich-dev) in a 2-node, 4-task batch job on two real agents: started
 * directly by {@code srun --mpi=pmi2} (each node's agent serves PMI to its ranks, the fences go through the
 * controller), and by MPICH's own {@code mpiexec} (hydra), which finds the allocation in the job's
 * {@code SLURM_*} variables and starts its proxies with {@code srun}. Run as root, the tests create an
 * ordinary user and run the jobs as that user, as a cluster would.
 */
@OnTheNode
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MpichIntegrationTests {

    private static final String JOIN_TOKEN = "mpich-test-join-token-0123456789";
    private static final String DATABASE = "gantry_mpich_it_" + ProcessHandle.current().pid();
    private static final String PASSWORD = "mpich-user-password-1";
    private static final String USER = "g29mch" + ProcessHandle.current().pid();
    /**
     * Each rank's rank, size, the Allreduce sum of all ranks and its node; then rank {@code argv[1]} exits 5
     * without MPI_Finalize (or calls MPI_Abort with 5 when {@code argv[2]} is "abort"), after the collective
     * so that every rank is past MPI_Init.
     */
    private static final String HELLO = """
            #include <mpi.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            int main(int argc, char **argv) {
                int rank, size, sum = 0;
                MPI_Init(&argc, &argv);
                MPI_Comm_rank(MPI_COMM_WORLD, &rank);
                MPI_Comm_size(MPI_COMM_WORLD, &size);
                const char *node = getenv("SLURMD_NODENAME");
                MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                printf("rank %d size %d sum %d node %s\\n", rank, size, sum, node ? node : "?");
                fflush(stdout);
                if (argc > 1 && rank == atoi(argv[1])) {
                    printf("rank %d fails\\n", rank);
                    fflush(stdout);
                    if (argc > 2 && strcmp(argv[2], "abort") == 0) {
                        MPI_Abort(MPI_COMM_WORLD, 5);
                    }
                    exit(5);
                }
                MPI_Finalize();
                return 0;
            }
            """;
    private static final String SCRIPT = """
            #!/bin/bash
            %s
            code=$?
            echo "launcher exit $code"
            exit $code
            """;

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ApiClient api;
    private String admin;
    private String owner;
    private boolean userCreated;
    private Path home;
    private Path hello;

    @BeforeAll
    void startControllerAndAgents() throws Exception {
        // MPICH's own names: with OpenMPI installed too, plain mpicc and mpiexec are whichever Debian's alternatives chose
        assumeTrue(onPath("mpicc.mpich") && onPath("mpiexec.hydra"),
                "MPICH (Debian's mpich, libmpich-dev) is not installed");
        boolean root = "root".equals(System.getProperty("user.name"));
        if (root) {
            UnixAccounts.addUser("-m", "-s", "/bin/bash", USER);
            userCreated = true;
            home = Path.of(run("getent", "passwd", USER).split(":")[5]);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        } else {
            home = Files.createDirectories(dir.resolve("home"));
        }
        hello = home.resolve("hello");
        Files.writeString(home.resolve("hello.c"), HELLO);
        run("mpicc.mpich", "-o", hello.toString(), home.resolve("hello.c").toString());

        cluster = OwnCluster.create(dir, DATABASE, ClusterYaml.twoGpuNodes("mpich-test", 2, 0) + """
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    kill-wait: 2s
                  # Slurm's MpiDefault=pmi2: an srun without --mpi starts MPICH programs directly (hydra's too)
                  steps:
                    mpi-default: pmi2
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
    void srunWithPmi2StartsFourRanksOverBothNodesAndTheyAllreduce() throws Exception {
        Path work = work("pmi2");
        long id = api.submitJob(owner, Map.of("nodes", 2, "ntasksPerNode", 2, "workdir", work.toString(),
                "script", SCRIPT.formatted("srun --mpi=pmi2 -n4 " + hello)));
        JsonNode job = awaitEnd(id, work, "COMPLETED");
        String out = output(id, work);
        assertThat(job.get("exitCode").asInt()).as(out).isZero();
        assertThat(ranks(out)).as(out).containsExactly(
                "rank 0 size 4 sum 6 node node1",
                "rank 1 size 4 sum 6 node node1",
                "rank 2 size 4 sum 6 node node2",
                "rank 3 size 4 sum 6 node node2");
        assertThat(out).contains("launcher exit 0");
        assertThat(steps(id)).as(out).containsExactly("batch COMPLETED 0 node1 1", "0 COMPLETED 0 node[1-2] 4");
    }

    @Test
    void mpiexecStartsItsProxiesWithSrunAndTheRanksAllreduce() throws Exception {
        Path work = work("hydra");
        long id = api.submitJob(owner, Map.of("nodes", 2, "ntasksPerNode", 2, "workdir", work.toString(),
                // hydra passes mpiexec's environment on to every rank: without the batch node's name in it, each
                // rank keeps the one its node's proxy got from srun
                "script", SCRIPT.formatted("env -u SLURMD_NODENAME mpiexec.hydra -n 4 " + hello)));
        JsonNode job = awaitEnd(id, work, "COMPLETED");
        String out = output(id, work);
        assertThat(job.get("exitCode").asInt()).as(out).isZero();
        // hydra fills each node's slots (SLURM_TASKS_PER_NODE) in order, as Slurm's block distribution does
        assertThat(ranks(out)).as(out).containsExactly(
                "rank 0 size 4 sum 6 node node1",
                "rank 1 size 4 sum 6 node node1",
                "rank 2 size 4 sum 6 node node2",
                "rank 3 size 4 sum 6 node node2");
        // one proxy a node, started as srun step 0 over the whole allocation
        assertThat(steps(id)).as(out).containsExactly("batch COMPLETED 0 node1 1", "0 COMPLETED 0 node[1-2] 2");
    }

    @Test
    void aRankThatExitsFiveMakesSrunTheStepAndTheJobFailWithFive() throws Exception {
        Path work = work("fail");
        long id = api.submitJob(owner, Map.of("nodes", 2, "ntasksPerNode", 2, "workdir", work.toString(),
                "script", SCRIPT.formatted("srun --mpi=pmi2 -n4 " + hello + " 2")));
        JsonNode job = awaitEnd(id, work, "FAILED");
        String out = output(id, work);
        assertThat(job.get("exitCode").asInt()).as(out).isEqualTo(5);
        assertThat(out).contains("rank 2 fails", "launcher exit 5");
        assertThat(steps(id)).as(out).containsExactly("batch FAILED 5 node1 1", "0 FAILED 5 node[1-2] 4");
    }

    @Test
    void aRankThatAbortsWithFiveMakesSrunTheStepAndTheJobFailWithFive() throws Exception {
        Path work = work("abort");
        long id = api.submitJob(owner, Map.of("nodes", 2, "ntasksPerNode", 2, "workdir", work.toString(),
                "script", SCRIPT.formatted("srun --mpi=pmi2 -n4 " + hello + " 1 abort")));
        JsonNode job = awaitEnd(id, work, "FAILED");
        String out = output(id, work);
        assertThat(job.get("exitCode").asInt()).as(out).isEqualTo(5);
        assertThat(out).contains("rank 1 fails", "launcher exit 5");
        assertThat(steps(id)).as(out).containsExactly("batch FAILED 5 node1 1", "0 FAILED 5 node[1-2] 4");
    }

    @Test
    void srunListsTheMpiTypesRefusesPmixAndTakesTheConfiguredDefault() throws Exception {
        Path work = work("list");
        long id = api.submitJob(owner, Map.of("nodes", 1, "workdir", work.toString(), "script", SCRIPT.formatted(
                "srun --mpi=list; srun --mpi=pmix true; echo \"pmix exit $?\"; "
                        + "srun --mpi=none printenv SLURM_MPI_TYPE; echo \"none exit $?\"; "
                        + "srun printenv SLURM_MPI_TYPE PMI_RANK PMI_SIZE")));
        awaitEnd(id, work, "COMPLETED");
        String out = output(id, work);
        assertThat(out).as(out).contains("MPI plugin types are...\n\tnone\n\tpmi2\n")
                .contains("srun: error: --mpi=pmix is not supported: Gantry serves PMI to MPICH programs with "
                        + "--mpi=pmi2; start OpenMPI programs with mpirun inside the allocation")
                .contains("pmix exit 1")
                // none: no SLURM_MPI_TYPE (printenv exits 1), as in Slurm
                .contains("none exit 1")
                // no --mpi: the configured default, pmi2, with a PMI server for the task
                .contains("pmi2\n0\n1\n");
    }

    private static List<String> ranks(String out) {
        return out.lines().filter(l -> l.startsWith("rank ")).sorted().toList();
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
