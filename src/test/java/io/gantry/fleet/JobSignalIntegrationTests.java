package io.gantry.fleet;

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
import io.gantry.support.TimesTheHost;
import tools.jackson.databind.JsonNode;

/**
 * Signals to a running batch job (scancel --signal, issue 18) through the packaged controller and a
 * real agent process running a real bash script that traps them: the batch shell alone, or the whole
 * batch step with what it started; each one recorded in the job's history. A signal that is not one,
 * a job that does not run (or runs on a simulated node) and someone else's job are refused with a
 * problem that says why. sbatch --test-only's estimate comes from the same controller and stores nothing.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobSignalIntegrationTests {

    private static final String JOIN_TOKEN = "signal-test-join-token-0123456789";
    private static final String PASSWORD = "signal-test-password";
    private static final String DATABASE = "gantry_signal_it_" + ProcessHandle.current().pid();

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private String bob;

    @BeforeAll
    void startControllerAndAgent() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE,
                ClusterYaml.oneRealAndOneSimulatedNode("signal-test", 4, 4000, JOIN_TOKEN, "poll-wait: 1s"));
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        bob = api.createUser(admin, "bob", PASSWORD);

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
    void aRunningScriptGetsTheSignalItTrapsOnItsShellAloneOrWithWhatItStarted() throws Exception {
        Path work = Files.createDirectories(dir.resolve("trap"));
        Path ready = work.resolve("ready");
        Path trapped = work.resolve("trapped");
        Path stop = work.resolve("stop");
        long id = submit(admin, Map.of("name", "trapper", "workdir", work.toString(), "cpusPerTask", 1, "script", """
                #!/bin/bash
                trap 'echo shell-usr1 >> %2$s' USR1
                trap 'echo shell-usr2 >> %2$s' USR2
                ( trap 'echo child-usr2 >> %2$s' USR2; trap 'echo child-usr1 >> %2$s' USR1; echo ready > %1$s
                  while [ ! -e %3$s ]; do sleep 0.1; done ) &
                while [ ! -e %3$s ]; do sleep 0.1; done
                wait
                """.formatted(ready, trapped, stop)));
        awaitState(id, "RUNNING");
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> Files.exists(ready));
        // the child writes it once its traps are set, and the shell set its own before starting the child

        // scancel -b --signal=USR1: the batch shell alone, not the child it started.
        Response batch = api.send("POST", "/api/v1/jobs/" + id + "/signal?signal=SIGUSR1&batch=true", admin, null);
        assertThat(batch.status()).as(batch.body()).isEqualTo(202);
        assertThat(batch.json().get("signal").asString()).isEqualTo("USR1");
        assertThat(batch.json().get("scope").asString()).isEqualTo("BATCH");
        assertThat(batch.json().get("nodes").toString()).isEqualTo("[\"node1\"]");
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> lines(trapped).contains("shell-usr1"));
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> lines(trapped).equals(List.of("shell-usr1")));
        assertThat(lines(trapped)).as("the child was not signalled").containsExactly("shell-usr1");

        // scancel --full --signal=USR2 (the API's default): the shell and the child.
        Response full = api.send("POST", "/api/v1/jobs/" + id + "/signal?signal=12", admin, null);
        assertThat(full.status()).as(full.body()).isEqualTo(202);
        assertThat(full.json().get("scope").asString()).isEqualTo("JOB");
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> lines(trapped).containsAll(List.of("shell-usr2", "child-usr2")));
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> lines(trapped).size() == 3);
        assertThat(lines(trapped)).as("each process got it once").hasSize(3);

        JsonNode job = api.get("/api/v1/jobs/" + id, admin).json();
        assertThat(job.get("state").asString()).as("a signal it traps does not end it").isEqualTo("RUNNING");
        String history = api.get("/api/v1/jobs/" + id + "/events", admin).body();
        assertThat(history).contains("SIGNALLED", "SIGUSR1 sent by admin to the batch shell",
                "SIGUSR2 sent by admin to the batch step and its srun steps");

        // Someone else's job, a word that is no signal, or both scopes at once: refused.
        Response others = api.send("POST", "/api/v1/jobs/" + id + "/signal?signal=USR1", bob, null);
        assertThat(others.status()).as(others.body()).isEqualTo(403);
        Response notASignal = api.send("POST", "/api/v1/jobs/" + id + "/signal?signal=SIGFOO", admin, null);
        assertProblem(notASignal, 400, "'SIGFOO' is not a signal");
        assertThat(notASignal.body()).contains("\"field\":\"signal\"");
        assertProblem(api.send("POST", "/api/v1/jobs/" + id + "/signal?signal=99", admin, null), 400, "1 to 64");
        assertProblem(api.send("POST", "/api/v1/jobs/" + id + "/signal?signal=USR1&batch=true&stepsOnly=true", admin,
                null), 400, "exclude each other");
        assertProblem(api.send("POST", "/api/v1/jobs/" + id + "/signal", admin, null), 400, "signal");
        assertThat(lines(trapped)).as("nothing refused reached it").hasSize(3);

        Files.writeString(stop, "");
        awaitState(id, "COMPLETED");
        assertProblem(api.send("POST", "/api/v1/jobs/" + id + "/signal?signal=USR1", admin, null), 409,
                "is COMPLETED: only a running job can be signalled");
    }

    /**
     * The command line's side of the relay: scancel from the packaged jar, against a real srun step of a
     * real script. {@code scancel --signal=USR1 ID.STEP} reaches the step's task, {@code scancel ID.STEP}
     * kills that step alone (the script goes on, as in Slurm), an unknown step answers as scancel 22.05
     * does, and {@code scancel -b ID} kills the batch shell, which ends the job.
     */
    @Test
    void scancelSignalsAndCancelsOneSrunStepAndMinusBKillsTheBatchShell() throws Exception {
        Path work = Files.createDirectories(dir.resolve("steps"));
        Path ready = work.resolve("ready");
        Path trapped = work.resolve("trapped");
        Path stop = work.resolve("stop");
        long id = submit(admin, Map.of("name", "stepper", "workdir", work.toString(), "cpusPerTask", 1, "script", """
                #!/bin/bash
                srun bash -c 'trap "echo step-usr1 >> %2$s" USR1; echo ready > %1$s; while [ ! -e %3$s ]; do sleep 0.1; done'
                echo "srun-ended $?" >> %2$s
                while [ ! -e %3$s ]; do sleep 0.1; done
                """.formatted(ready, trapped, stop)));
        awaitState(id, "RUNNING");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> Files.exists(ready));
        String step = null;
        for (JsonNode s : api.get("/api/v1/jobs/" + id + "/steps", admin).json().get("items")) {
            if (!s.get("stepId").asString().equals("batch")) {
                step = s.get("stepId").asString();
            }
        }
        assertThat(step).as("the srun step is listed").isNotNull();

        Cli signal = scancel("--signal=USR1", id + "." + step);
        assertThat(signal.exit()).as(signal.stderr()).isZero();
        assertThat(signal.stderr()).isEmpty();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> lines(trapped).contains("step-usr1"));

        Cli unknown = scancel(id + ".7");
        assertThat(unknown.exit()).isEqualTo(225);
        assertThat(unknown.stderr()).isEqualTo("scancel: error: Kill job error on job step id " + id
                + ": Invalid job id specified\n");

        Cli cancel = scancel(id + "." + step);
        assertThat(cancel.exit()).as(cancel.stderr()).isZero();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> lines(trapped).stream().anyMatch(l -> l.startsWith("srun-ended ")));
        assertThat(lines(trapped)).as("srun saw its step killed").doesNotContain("srun-ended 0");
        String cancelledStep = step;
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
            for (JsonNode s : api.get("/api/v1/jobs/" + id + "/steps", admin).json().get("items")) {
                if (s.get("stepId").asString().equals(cancelledStep)) {
                    return "CANCELLED".equals(s.get("state").asString());
                }
            }
            return false;
        });
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(200))
                .until(() -> "RUNNING".equals(api.get("/api/v1/jobs/" + id, admin).json().get("state").asString()));

        Cli batch = scancel("-b", Long.toString(id));
        assertThat(batch.exit()).as(batch.stderr()).isZero();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> !"RUNNING".equals(api.get("/api/v1/jobs/" + id, admin).json().get("state").asString()));
        assertThat(Files.exists(stop)).as("the script did not end by itself").isFalse();
        assertThat(api.get("/api/v1/jobs/" + id + "/events", admin).body())
                .contains("SIGKILL sent by admin to the batch shell");
    }

    private record Cli(int exit, String stderr) {
    }

    /** scancel as a user runs it: the packaged jar's command, the controller from GANTRY_URL. */
    private Cli scancel(String... args) throws Exception {
        List<String> command = io.gantry.support.TestJvm.gantry("scancel");
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("GANTRY_URL", "http://127.0.0.1:" + controller.port());
        builder.environment().put("GANTRY_TOKEN", admin);
        Process process = builder.start();
        String stderr = new String(process.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(process.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)).as("scancel ends").isTrue();
        return new Cli(process.exitValue(), stderr);
    }

    @Test
    void aPendingJobAJobOnSimulatedNodesOrOneThatDoesNotExistIsNotSignalled() {
        long held = submit(admin, Map.of("hold", true, "script", "#!/bin/bash\ntrue\n"));
        assertProblem(api.send("POST", "/api/v1/jobs/" + held + "/signal?signal=USR1", admin, null), 409,
                "is PENDING: only a running job can be signalled; cancel it instead");
        long simulated = submit(admin, Map.of("partition", "sim", "script", "#!/bin/bash\ntrue\n",
                "simulatedRunSeconds", 60));
        awaitState(simulated, "RUNNING");
        assertProblem(api.send("POST", "/api/v1/jobs/" + simulated + "/signal?signal=USR1", admin, null), 409,
                "simulated nodes only");
        assertThat(api.get("/api/v1/jobs/" + simulated + "/events", admin).body()).doesNotContain("SIGNALLED");
        assertProblem(api.send("POST", "/api/v1/jobs/999999/signal?signal=USR1", admin, null), 404, "999999");
        api.send("DELETE", "/api/v1/jobs/" + held, admin, null);
        api.send("DELETE", "/api/v1/jobs/" + simulated, admin, null);
    }

    @Test
    void testOnlyEstimatesWhereAndWhenAJobWouldStartAndStoresNothing() {
        long before = submit(admin, Map.of("hold", true, "script", "#!/bin/bash\ntrue\n"));
        Map<String, Object> job = Map.of("script", "#!/bin/bash\n#SBATCH -n 2\n#SBATCH --mail-type=END\nhostname\n");
        Response trial = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> api.send("POST", "/api/v1/jobs/test", admin, job), r -> r.status() != 503);
        assertThat(trial.status()).as(trial.body()).isEqualTo(200);
        JsonNode estimate = trial.json();
        assertThat(estimate.get("jobId").asLong()).isZero();
        assertThat(estimate.get("reason").isNull()).as(trial.body()).isTrue();
        assertThat(estimate.get("nodes").asString()).isEqualTo("node1");
        assertThat(estimate.get("partition").asString()).isEqualTo("batch");
        assertThat(estimate.get("processors").asLong()).isEqualTo(2);
        assertThat(Duration.between(Instant.now(), Instant.parse(estimate.get("startTime").asString())).abs())
                .as("an idle node: it would start now").isLessThan(Duration.ofMinutes(1));
        assertThat(estimate.get("warnings").toString()).contains("--mail-type");

        Response bad = api.send("POST", "/api/v1/jobs/test", admin, Map.of("partition", "nope",
                "script", "#!/bin/bash\ntrue\n"));
        assertProblem(bad, 400, "nope");

        long after = submit(admin, Map.of("hold", true, "script", "#!/bin/bash\ntrue\n"));
        assertThat(after).as("the trial took no job id").isEqualTo(before + 1);
        assertThat(api.get("/api/v1/jobs/0", admin).status()).isEqualTo(404);
        api.send("DELETE", "/api/v1/jobs/" + before, admin, null);
        api.send("DELETE", "/api/v1/jobs/" + after, admin, null);
    }

    private static List<String> lines(Path file) throws Exception {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    private static void assertProblem(Response r, int status, String detail) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.json().get("detail").asString()).contains(detail);
    }

    private long submit(String token, Map<String, Object> job) {
        return api.submitJob(token, job);
    }

    private void awaitState(long id, String state) {
        api.awaitJobState(id, admin, state, Duration.ofSeconds(60));
    }
}
