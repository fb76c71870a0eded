package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ControllerProcess;
import io.gantry.support.TestRegistry;
import io.gantry.support.TwoNodes;
import io.gantry.support.UnixAccounts;
import tools.jackson.databind.JsonNode;

/**
 * Containers end to end, as a user of pyxis on Slurm works: an image built in the test (Debian's static
 * busybox and a marker file) pushed to a real registry on 127.0.0.1, and {@code sbatch} and {@code srun}
 * typed with pyxis's flags against the packaged controller and two real agents. The batch script runs
 * inside the image as its owner (root inside only with --container-remap-root), with a bind mount and a
 * working directory; a 2-node srun runs ranks 0-3 inside on both nodes; a named container keeps a file
 * from one step for the next; a second job on the node does not pull again; an image that is not there
 * fails its job within 30 s with the registry's answer.
 */
@TwoNodes.Use
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PyxisIntegrationTests {

    private static final String PASSWORD = "container-password";
    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    static Path dir;

    private final String alice = "g30ca" + ProcessHandle.current().pid() % 100000;
    private TwoNodes nodes;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private String token;
    private Path shared;
    private Path bin;
    private TestRegistry registry;
    private String image;
    private boolean userCreated;

    @BeforeAll
    void start(TwoNodes nodes) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "runs jobs as another Unix user: needs root");
        assumeTrue(TestRegistry.missingTools().isEmpty(), "containers need " + TestRegistry.missingTools() + ": "
                + TestRegistry.APT);
        UnixAccounts.addUser("-m", "-s", "/bin/bash", alice);
        userCreated = true;
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        shared = Files.createDirectories(dir.resolve("shared"));
        run("chmod", "1777", shared.toString());
        registry = TestRegistry.start(Files.createDirectories(dir.resolve("registry")));
        image = registry.host() + "/test:1";
        registry.pushBusyboxImage("test:1", "marker-from-the-image");
        bin = dir.resolve("bin");
        run(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                ControllerProcess.JAR.toAbsolutePath().toString(), "cli", "install", "--prefix", bin.toString(),
                "--no-cds");
        this.nodes = nodes;
        controller = nodes.controller();
        api = nodes.api();
        admin = nodes.admin();
        api.createUser(admin, alice, PASSWORD);
        token = api.token(alice, PASSWORD);
    }

    @AfterAll
    void stop() throws Exception {
        if (nodes != null) {
            nodes.release();
        }
        if (registry != null) {
            registry.close();
        }
        if (userCreated) {
            UnixAccounts.removeUser(alice, true);
        }
    }

    @Test
    void sbatchWithAContainerImageRunsItsScriptInsideAsItsOwnerWithAMountAndAWorkdir() throws Exception {
        Path data = Files.createDirectories(shared.resolve("data"));
        Files.writeString(data.resolve("input.txt"), "from-the-host\n");
        run("chown", "-R", alice, data.toString());
        long id = sbatch("--container-image=" + image, "--container-mounts=" + data + ":/data",
                "--container-workdir=/data", "-w", "node1", "--output=" + shared.resolve("inside-%j.out"),
                "--wrap", "cat /marker; id -u; pwd; cat input.txt; echo $SLURM_JOB_ID");
        JsonNode job = api.awaitJobState(id, admin, "COMPLETED", WAIT);
        String out = Files.readString(shared.resolve("inside-" + id + ".out"));
        String uid = output("id", "-u", alice).strip();
        assertThat(out).contains("marker-from-the-image").contains("\n" + uid + "\n").contains("/data\n")
                .contains("from-the-host").contains(Long.toString(id));
        assertThat(job.get("container").get("image").asString()).isEqualTo(image);
        assertThat(job.get("containerImageDigest").asString()).startsWith("sha256:");

        long remapped = sbatch("--container-image=" + image, "--container-remap-root", "-w", "node1",
                "--output=" + shared.resolve("root-%j.out"), "--wrap", "id -u");
        api.awaitJobState(remapped, admin, "COMPLETED", WAIT);
        assertThat(Files.readString(shared.resolve("root-" + remapped + ".out")).strip()).isEqualTo("0");
        // the second job of the image on node1 found it in the node's cache
        JsonNode events = api.get("/api/v1/jobs/" + remapped + "/events", admin).json();
        assertThat(events.toString()).containsIgnoringCase("cache");

        // an image no node has: the job's history says when the pull began and how long it took
        registry.pushBusyboxImage("fresh:1", "marker-of-a-fresh-image");
        long fresh = sbatch("--container-image=" + registry.host() + "/fresh:1", "-w", "node1",
                "--output=" + shared.resolve("fresh-%j.out"), "--wrap", "cat /marker");
        api.awaitJobState(fresh, admin, "COMPLETED", WAIT);
        List<String> history = new java.util.ArrayList<>();
        api.get("/api/v1/jobs/" + fresh + "/events", admin).json().forEach(e -> history.add(e.path("detail").asString()));
        assertThat(history).as(history.toString())
                .anySatisfy(d -> assertThat(d).contains("/fresh:1 (sha256:").endsWith("being pulled on node1"))
                .anySatisfy(d -> assertThat(d).contains("/fresh:1 (sha256:").contains("pulled on node1 in"));
    }

    @Test
    void srunWithAContainerImageRunsRanksZeroToThreeInsideOnBothNodesAndANamedContainerKeepsItsFiles()
            throws Exception {
        long id = sbatch("-N2", "--ntasks-per-node=2", "--output=" + shared.resolve("ranks-%j.out"), "--wrap",
                "srun --container-image=" + image + " sh -c 'echo rank=$SLURM_PROCID node=$SLURMD_NODENAME "
                        + "$(cat /marker)'; "
                        + "srun -N1 -n1 --container-image=" + image + " --container-name=keep sh -c "
                        + "'echo kept > /kept-file'; "
                        + "srun -N1 -n1 --container-name=keep cat /kept-file");
        JsonNode ended = awaitEnd(id);
        String out = Files.readString(shared.resolve("ranks-" + id + ".out"));
        assertThat(ended.get("state").asString()).as(out).isEqualTo("COMPLETED");
        for (int rank = 0; rank < 4; rank++) {
            assertThat(out).contains("rank=" + rank + " node=node" + (rank < 2 ? 1 : 2) + " marker-from-the-image");
        }
        assertThat(out).contains("kept\n");
    }

    @Test
    void aNamedContainerOnANodeBesidesTheBatchHostLastsTheJobAndGoesWithIt() throws Exception {
        long id = sbatch("-N2", "--ntasks-per-node=1", "--output=" + shared.resolve("other-%j.out"), "--wrap",
                "for n in node1 node2; do [ $n != $SLURMD_NODENAME ] && other=$n; done; echo other=$other; "
                        + "srun -N1 -n1 -w $other --container-image=" + image + " --container-name=far sh -c "
                        + "'echo far-kept > /kept-file'; "
                        + "srun -N1 -n1 -w $other --container-name=far cat /kept-file");
        JsonNode ended = awaitEnd(id);
        String out = Files.readString(shared.resolve("other-" + id + ".out"));
        assertThat(ended.get("state").asString()).as(out).isEqualTo("COMPLETED");
        assertThat(out).as("the second step found the first one's file there").contains("far-kept\n");
        String other = out.lines().filter(l -> l.startsWith("other=")).findFirst().orElseThrow().substring(6);
        Path containers = dir.resolve("agent-" + other).resolve("containers/run").resolve(Long.toString(id));
        // the controller tells the node the job is over; its containers go after the kill wait (2 s)
        org.awaitility.Awaitility.await("the job's containers on " + other + " are removed")
                .atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(containers));
    }

    /** Not about containers: this class has two root agents and an ordinary user, which the check needs. */
    @Test
    void aStepsTasksRunAsTheJobsOwnerOnEveryNodeWhateverSlurmJobUserTheCallerSets() throws Exception {
        long id = sbatch("-N2", "--ntasks-per-node=1", "--output=" + shared.resolve("who-%j.out"), "--wrap",
                "SLURM_JOB_USER=root srun -N2 -n2 sh -c 'echo who=$SLURMD_NODENAME:$(id -u)'");
        JsonNode ended = awaitEnd(id);
        String out = Files.readString(shared.resolve("who-" + id + ".out"));
        assertThat(ended.get("state").asString()).as(out).isEqualTo("COMPLETED");
        String uid = output("id", "-u", alice).strip();
        assertThat(out.lines().filter(l -> l.startsWith("who=")).sorted().toList()).as(out)
                .containsExactly("who=node1:" + uid, "who=node2:" + uid);
    }

    @Test
    void anImageThatIsNotThereFailsItsJobWithinThirtySecondsWithTheRegistrysAnswer() throws Exception {
        Instant started = Instant.now();
        long id = sbatch("--container-image=" + registry.host() + "/no-such-image:1", "--wrap", "true");
        JsonNode failed = api.awaitJobState(id, admin, "FAILED", Duration.ofSeconds(30));
        assertThat(Duration.between(started, Instant.now())).isLessThan(Duration.ofSeconds(30));
        String said = failed.toString() + api.get("/api/v1/jobs/" + id + "/events", admin).body();
        assertThat(said).contains("no-such-image").containsIgnoringCase("manifest unknown");
    }

    /** The job once it has ended, whichever way. */
    private JsonNode awaitEnd(long id) {
        JsonNode[] last = new JsonNode[1];
        org.awaitility.Awaitility.await("job " + id + " ends").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    last[0] = api.get("/api/v1/jobs/" + id, admin).json();
                    return List.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY")
                            .contains(last[0].get("state").asString());
                });
        return last[0];
    }

    /** sbatch as alice on a login node: the installed command, her login in the environment. */
    private long sbatch(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("runuser", "-u", alice, "--", "env",
                "GANTRY_URL=http://127.0.0.1:" + controller.port(), "GANTRY_TOKEN=" + token,
                "HOME=/home/" + alice, "PATH=" + bin + ":/usr/bin:/bin", bin.resolve("sbatch").toString(),
                "--parsable", "-D", shared.toString()));
        command.addAll(List.of(args));
        String out = output(command.toArray(String[]::new)).strip();
        return Long.parseLong(out.split(";")[0]);
    }

    private static String output(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
        return output;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        output(command);
    }
}
