package io.gantry.fleet;

import static io.gantry.support.FrozenProcesses.count;
import static io.gantry.support.FrozenProcesses.frozen;
import static io.gantry.support.FrozenProcesses.processState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

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
import io.gantry.support.SlurmReference;
import io.gantry.support.TimesTheHost;
import tools.jackson.databind.JsonNode;

/**
 * QOS preemption with the victim QOS's GraceTime (issue 32), through the packaged controller and a real
 * agent running a real script: the victim is warned with SIGTERM as its grace starts, writes its
 * checkpoint in its trap, keeps running through its grace, and is killed when the grace is over, ending
 * PREEMPTED; the preemptor waits for it and then runs on the node it freed. The victim's history says
 * by which job and why.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PreemptionGraceIntegrationTests {

    private static final String JOIN_TOKEN = "preempt-test-join-token-0123456789";
    /** The suspended job's time limit, shorter than it is kept suspended. */
    private static final int SUSPENDED_LIMIT = 15;
    private static final String DATABASE = "gantry_preempt_it_" + ProcessHandle.current().pid();
    private static final long GRACE = 5;
    /** The kill wait of the cluster file (SIGKILL that long after the signal). */
    private static final long KILL_WAIT = 2;

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;

    @BeforeAll
    void startControllerAndAgent() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE,
                ClusterYaml.oneRealAndOneSimulatedNode("preempt-test", 4, 4000, JOIN_TOKEN, "poll-wait: 1s"));
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        cluster.startAgent(controller, JOIN_TOKEN, "node1", 4, 4000);
        api.awaitNodeState("node1", admin, Duration.ofSeconds(60), "IDLE");
    }

    @AfterAll
    void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aPreemptedJobCheckpointsInItsGraceTimeThenEndsPreemptedAndThePreemptorRunsAfterIt() throws Exception {
        created(api.send("POST", "/api/v1/qos", admin, Map.of("name", "scavenger", "priority", 0,
                "graceSeconds", GRACE)));
        created(api.send("POST", "/api/v1/qos", admin, Map.of("name", "urgent", "priority", 100,
                "preempt", List.of("scavenger"), "preemptMode", "CANCEL")));

        Path work = Files.createDirectories(dir.resolve("grace"));
        Path ready = work.resolve("ready");
        Path checkpoint = work.resolve("checkpoint");
        Path preemptorRan = work.resolve("preemptor-ran");
        // The training step traps SIGTERM, saves its state and goes on: only the kill after the grace stops it
        // (which it traps too: the first line is the warning's).
        long victim = api.submitJob(admin, Map.of("name", "train", "workdir", work.toString(), "cpusPerTask", 4,
                "qos", "scavenger", "script", """
                        #!/bin/bash
                        ( trap 'date +%%s.%%N >> %2$s' TERM; echo ready > %1$s
                          while true; do sleep 0.1; done ) &
                        wait
                        """.formatted(ready, checkpoint)));
        api.awaitJobState(victim, admin, "RUNNING", Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> Files.exists(ready));

        long preemptor = api.submitJob(admin, Map.of("name", "urgent", "workdir", work.toString(), "cpusPerTask", 4,
                "qos", "urgent", "script", "#!/bin/bash\ndate +%s.%N > " + preemptorRan + "\n"));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> Files.exists(checkpoint) && Files.size(checkpoint) > 0);
        Instant warned = Instant.now();
        assertThat(state(preemptor)).as("the preemptor waits for its victim's grace").isEqualTo("PENDING");

        // Through its grace the victim keeps its node and runs on; the preemptor still waits.
        await().during(Duration.ofSeconds(GRACE - 2)).atMost(Duration.ofSeconds(GRACE))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> state(victim).equals("RUNNING") && state(preemptor).equals("PENDING"));

        await().atMost(Duration.ofSeconds(GRACE + KILL_WAIT + 10)).pollInterval(Duration.ofMillis(200))
                .until(() -> state(victim).equals("PREEMPTED"));
        assertThat(Duration.between(warned, Instant.now())).as("ended within its grace plus the kill wait")
                .isLessThan(Duration.ofSeconds(GRACE + KILL_WAIT + 10));
        // The reference Slurm's victim, under the same QOS (scripts/record-slurm-limits-fixtures.sh grace), wrote
        // its checkpoint and ended the same way.
        assertThat(SlurmReference.output("grace", "test -f")).containsExactly("saved");
        assertThat(SlurmReference.output("grace", "sacct -n -X -P -j {J1}").get(0)).startsWith(state(victim) + "|");

        api.awaitJobState(preemptor, admin, "COMPLETED", Duration.ofSeconds(60));
        assertThat(Files.exists(preemptorRan)).as("the preemptor ran on the freed node").isTrue();
        JsonNode v = api.get("/api/v1/jobs/" + victim, admin).json();
        JsonNode p = api.get("/api/v1/jobs/" + preemptor, admin).json();
        assertThat(Instant.parse(p.get("startTime").asString()))
                .as("the preemptor started once the victim's grace was over")
                .isAfterOrEqualTo(Instant.parse(v.get("endTime").asString()));
        assertThat(Double.parseDouble(Files.readString(preemptorRan).strip())
                - Double.parseDouble(Files.readAllLines(checkpoint).get(0).strip()))
                .as("the preemptor ran a grace time after the victim was warned").isGreaterThanOrEqualTo(GRACE - 1);

        String history = api.get("/api/v1/jobs/" + victim + "/events", admin).body();
        assertThat(history).contains("preempted by job " + preemptor + " (QOS urgent may preempt QOS scavenger)",
                "grace time of " + GRACE + " s", "SIGTERM sent to its processes but the batch shell", "PREEMPTED");
    }

    /**
     * PreemptMode SUSPEND: the victim's processes are frozen through the job's cgroup freezer while its
     * preemptor runs on what it held (they make no progress: the counter they write stops), and thawed
     * when the preemptor ends, after which the victim runs on to its end.
     */
    @Test
    void aSuspendedJobIsFrozenWhileItsPreemptorRunsAndGoesOnAfterIt() throws Exception {
        created(api.send("POST", "/api/v1/qos", admin, Map.of("name", "batchlow", "priority", 0, "graceSeconds", 30)));
        created(api.send("POST", "/api/v1/qos", admin, Map.of("name", "interactive", "priority", 100,
                "preempt", List.of("batchlow"), "preemptMode", "SUSPEND")));

        Path work = Files.createDirectories(dir.resolve("suspend"));
        Path pidFile = work.resolve("pid");
        Path counter = work.resolve("counter");
        Path done = work.resolve("done");
        Path release = work.resolve("release");
        long victim = api.submitJob(admin, Map.of("name", "counter", "workdir", work.toString(), "cpusPerTask", 4,
                "qos", "batchlow", "timeLimitSeconds", SUSPENDED_LIMIT, "script", """
                        #!/bin/bash
                        ( echo $BASHPID > %1$s; n=0
                          while [ ! -e %3$s ]; do n=$((n+1)); echo $n > %2$s.tmp; mv %2$s.tmp %2$s; sleep 0.1; done ) &
                        wait
                        """.formatted(pidFile, counter, done)));
        api.awaitJobState(victim, admin, "RUNNING", Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> count(counter) > 3);
        long pid = Long.parseLong(Files.readString(pidFile).strip());

        long preemptor = api.submitJob(admin, Map.of("name", "interactive", "workdir", work.toString(),
                "cpusPerTask", 4, "qos", "interactive",
                "script", "#!/bin/bash\nwhile [ ! -e " + release + " ]; do sleep 0.1; done\n"));
        api.awaitJobState(preemptor, admin, "RUNNING", Duration.ofSeconds(60));
        assertThat(state(victim)).as("suspended at once, whatever its QOS's grace time").isEqualTo("SUSPENDED");
        assertThat(squeue("-h", "-o", "%i %t", "-j", victim + "," + preemptor)).as("squeue's compact states")
                .isEqualTo(preemptor + " R\n" + victim + " S\n");
        // The reference Slurm's (scripts/record-slurm-limits-fixtures.sh suspend) shows the same states and
        // reasons, its victim's processes stopped (T).
        assertThat(squeue("-h", "-o", "%i %T %r", "-j", victim + "," + preemptor))
                .isEqualTo(String.join("\n", SlurmReference.output("suspend", "squeue -h -j {J1},{J2}"))
                        .replace("{J1}", Long.toString(victim)).replace("{J2}", Long.toString(preemptor)) + "\n");
        assertThat(SlurmReference.output("suspend", "ps -o stat=")).containsExactly("T");
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> frozen(pid));
        // This kernel shows a task frozen by the v1 freezer as D; a stopped one (SIGSTOP) is T.
        assertThat(processState(pid)).as("the victim's process is frozen").isIn("D", "T");
        long stopped = count(counter);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).pollInterval(Duration.ofMillis(200))
                .until(() -> count(counter) == stopped);
        assertThat(state(preemptor)).isEqualTo("RUNNING");

        // Kept suspended past its time limit counted from its start: the time it was suspended does not
        // count (as Slurm extends its end), so it resumes and runs on instead of timing out while frozen.
        Instant started = Instant.parse(api.get("/api/v1/jobs/" + victim, admin).json().get("startTime").asString());
        await().atMost(Duration.ofSeconds(SUSPENDED_LIMIT + 30)).pollInterval(Duration.ofMillis(250))
                .until(() -> Instant.now().isAfter(started.plusSeconds(SUSPENDED_LIMIT + 2)));
        assertThat(state(victim)).as("suspended past its time limit from its start").isEqualTo("SUSPENDED");
        Files.writeString(release, "");
        api.awaitJobState(preemptor, admin, "COMPLETED", Duration.ofSeconds(60));
        api.awaitJobState(victim, admin, "RUNNING", Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> count(counter) > stopped + 3);
        assertThat(frozen(pid)).as("thawed").isFalse();

        Files.writeString(done, "");
        api.awaitJobState(victim, admin, "COMPLETED", Duration.ofSeconds(60));
        assertThat(Instant.parse(api.get("/api/v1/jobs/" + victim, admin).json().get("endTime").asString()))
                .as("it ended past its time limit from its start, yet COMPLETED").isAfter(started.plusSeconds(SUSPENDED_LIMIT));
        String history = api.get("/api/v1/jobs/" + victim + "/events", admin).body();
        assertThat(history).contains("SUSPENDED", "preempted by job " + preemptor
                + " (QOS interactive may preempt QOS batchlow); suspended until what it held is free again",
                "RESUMED");
    }

    /** squeue as a user runs it: the packaged jar's command, the controller from GANTRY_URL; its output. */
    private String squeue(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin",
                "java").toString(), "-jar", ControllerProcess.JAR.toAbsolutePath().toString(), "squeue"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("GANTRY_URL", "http://127.0.0.1:" + controller.port());
        builder.environment().put("GANTRY_TOKEN", admin);
        Process process = builder.start();
        String stdout = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(process.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)).as("squeue ends").isTrue();
        assertThat(process.exitValue()).isZero();
        return stdout;
    }

    private String state(long id) {
        return api.get("/api/v1/jobs/" + id, admin).json().get("state").asString();
    }

    private static void created(Response r) {
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }
}
