package io.gantry.fleet;

import static io.gantry.support.FrozenProcesses.count;
import static io.gantry.support.FrozenProcesses.frozen;
import static io.gantry.support.FrozenProcesses.processState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.TestJvm;
import io.gantry.support.TimesTheHost;
import tools.jackson.databind.JsonNode;

/**
 * scontrol suspend and resume (issue 32) through the packaged controller, the packaged command line and a real
 * agent running a real script: an operator's {@code scontrol suspend} freezes the job's processes through its
 * cgroup freezer (they make no progress), the job shows SUSPENDED ({@code S} in squeue) and keeps its CPUs and
 * GPUs (a job that needs them waits), past its time limit counted from its start; a user is refused in Slurm's
 * words; {@code scontrol resume} thaws it and it runs on to COMPLETED, after which the waiting job runs.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminSuspendIntegrationTests {

    private static final String JOIN_TOKEN = "suspend-test-join-token-0123456789";
    private static final String DATABASE = "gantry_suspend_it_" + ProcessHandle.current().pid();
    /** The suspended job's time limit, shorter than it is kept suspended. */
    /** The job's time limit: long enough for the checks before the suspend on a busy machine. */
    private static final int LIMIT = 40;

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;

    @BeforeAll
    void startControllerAndAgent() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  cluster:
                    name: suspend-test
                    nodes:
                      - names: node1
                        cpus: 4
                        memory-mb: 4000
                        gpus: 2
                        gpu-type: test
                        simulated: false
                    partitions:
                      - name: batch
                        nodes: node1
                        default: true
                        default-time: "10:00"
                        default-mem-per-cpu: 100
                    switches:
                      - name: leaf1
                        nodes: node1
                    blocks:
                      - name: block1
                        nodes: node1
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    kill-wait: 2s
                    poll-wait: 1s
                """.formatted(JOIN_TOKEN) + ClusterYaml.adminRunsJobsAsTester());
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        cluster.startAgent(controller, JOIN_TOKEN, "node1", 4, 4000, "--gpus", "2", "--gpu-type", "test");
        api.awaitNodeState("node1", admin, Duration.ofSeconds(60), "IDLE");
    }

    @AfterAll
    void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void anOperatorSuspendsARunningJobThatKeepsItsGpusAndResumesItToTheEnd() throws Exception {
        Path work = Files.createDirectories(dir.resolve("suspend"));
        Path pidFile = work.resolve("pid");
        Path counter = work.resolve("counter");
        Path done = work.resolve("done");
        long job = api.submitJob(admin, Map.of("name", "counter", "workdir", work.toString(), "cpusPerTask", 2,
                "gpus", 2, "timeLimitSeconds", LIMIT, "script", """
                        #!/bin/bash
                        ( echo $BASHPID > %1$s; n=0
                          while [ ! -e %3$s ]; do n=$((n+1)); echo $n > %2$s.tmp; mv %2$s.tmp %2$s; sleep 0.1; done ) &
                        wait
                        """.formatted(pidFile, counter, done)));
        api.awaitJobState(job, admin, "RUNNING", Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> count(counter) > 3);
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        Instant started = Instant.parse(api.get("/api/v1/jobs/" + job, admin).json().get("startTime").asString());

        String user = api.createUser(admin, "ursula", "ursula-password-1");
        Cli refused = cli(user, "scontrol", "suspend", Long.toString(job));
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.stderr()).isEqualTo("Access/permission denied for job " + job + "\n");
        Response forbidden = api.send("POST", "/api/v1/jobs/" + job + "/suspend", user, null);
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(forbidden.isProblem()).isTrue();
        assertThat(forbidden.json().get("detail").asString()).startsWith("Access/permission denied");
        assertThat(state(job)).isEqualTo("RUNNING");

        Cli suspended = cli(admin, "scontrol", "suspend", Long.toString(job));
        assertThat(suspended.exit()).as(suspended.stderr()).isZero();
        assertThat(suspended.stdout() + suspended.stderr()).as("silent on success, as Slurm's").isEmpty();
        assertThat(state(job)).isEqualTo("SUSPENDED");
        assertThat(cli(admin, "squeue", "-h", "-o", "%i %t", "-j", Long.toString(job)).stdout())
                .isEqualTo(job + " S\n");
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> frozen(pid));
        // This kernel shows a task frozen by the v1 freezer as D; a stopped one (SIGSTOP) is T.
        assertThat(processState(pid)).as("the job's process is frozen").isIn("D", "T");
        long stopped = count(counter);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(200))
                .until(() -> count(counter) == stopped);

        // It keeps its GPUs: a job that needs one of them waits for Resources while it is suspended.
        JsonNode node = api.get("/api/v1/nodes/node1", admin).json();
        assertThat(node.get("allocGpus").asInt()).as("its GPUs stay allocated").isEqualTo(2);
        long waiting = api.submitJob(admin, Map.of("name", "wants-a-gpu", "workdir", work.toString(), "gpus", 1,
                "script", "#!/bin/bash\ntrue\n"));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> "Resources".equals(api.get("/api/v1/jobs/" + waiting, admin).json().get("reason").asString()));
        Cli again = cli(admin, "scontrol", "suspend", Long.toString(job));
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.stderr()).isEqualTo("Job is not running for job " + job + "\n");

        // Kept suspended past its time limit counted from its start: it is not timed out while frozen.
        await().atMost(Duration.ofSeconds(LIMIT + 30)).pollInterval(Duration.ofMillis(250))
                .until(() -> Instant.now().isAfter(started.plusSeconds(LIMIT + 2)));
        assertThat(state(job)).as("never resumed by the scheduler, nor timed out").isEqualTo("SUSPENDED");
        assertThat(state(waiting)).isEqualTo("PENDING");

        Cli resumed = cli(admin, "scontrol", "resume", Long.toString(job));
        assertThat(resumed.exit()).as(resumed.stderr()).isZero();
        assertThat(resumed.stdout() + resumed.stderr()).isEmpty();
        assertThat(state(job)).isEqualTo("RUNNING");
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> count(counter) > stopped + 3);
        assertThat(frozen(pid)).as("thawed").isFalse();
        Cli notSuspended = cli(admin, "scontrol", "resume", Long.toString(job));
        assertThat(notSuspended.stderr()).isEqualTo("Job is not suspended for job " + job + "\n");

        Files.writeString(done, "");
        api.awaitJobState(job, admin, "COMPLETED", Duration.ofSeconds(60));
        api.awaitJobState(waiting, admin, "COMPLETED", Duration.ofSeconds(60));
        String history = api.get("/api/v1/jobs/" + job + "/events", admin).body();
        assertThat(history).contains("suspended by admin (scontrol suspend)", "resumed by admin (scontrol resume");
    }

    private record Cli(int exit, String stdout, String stderr) {
    }

    /** A command as a user runs it: the packaged jar's, the controller from GANTRY_URL, the user's token. */
    private Cli cli(String token, String... args) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(TestJvm.gantry(args));
        builder.environment().put("GANTRY_URL", "http://127.0.0.1:" + controller.port());
        builder.environment().put("GANTRY_TOKEN", token);
        Process process = builder.start();
        process.getOutputStream().close();
        java.util.concurrent.CompletableFuture<byte[]> err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return process.getErrorStream().readAllBytes();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as(String.join(" ", args) + " ends").isTrue();
        return new Cli(process.exitValue(), stdout, new String(err.get(), StandardCharsets.UTF_8));
    }

    private String state(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json().get("state").asString();
    }
}
