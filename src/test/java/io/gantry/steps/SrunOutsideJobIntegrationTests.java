package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
import io.gantry.support.ControllerProcess;
import io.gantry.support.TwoNodes;
import io.gantry.support.UnixAccounts;
import tools.jackson.databind.JsonNode;

/**
 * srun typed on a login node, outside any job, by an ordinary user with their login token, against the
 * packaged controller and a real agent: it asks for a job from its own options, runs its command as that
 * job's one step, relays the output and ends with the step's exit code, as the job does; {@code --jobid}
 * runs a step in one's own running job and is refused in another user's.
 */
@TwoNodes.Use
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SrunOutsideJobIntegrationTests {

    private static final String PASSWORD = "srun-outside-password";

    @TempDir
    static Path dir;

    private final String alice = "g29so" + ProcessHandle.current().pid() % 100000 + "a";
    private final String bob = "g29so" + ProcessHandle.current().pid() % 100000 + "b";
    private final List<String> createdUsers = new ArrayList<>();
    private TwoNodes nodes;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private Path shared;

    private record Ran(int code, String out, String err) {
    }

    @BeforeAll
    void start(TwoNodes nodes) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "runs jobs as other users: needs root");
        for (String user : List.of(alice, bob)) {
            UnixAccounts.addUser("-m", "-s", "/bin/bash", user);
            createdUsers.add(user);
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        shared = Files.createDirectories(dir.resolve("shared"));
        run("chmod", "1777", shared.toString());
        this.nodes = nodes;
        controller = nodes.controller();
        api = nodes.api();
        admin = nodes.admin();
        for (String user : List.of(alice, bob)) {
            api.createUser(admin, user, PASSWORD);
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (nodes != null) {
            nodes.release();
        }
        for (String user : createdUsers) {
            UnixAccounts.removeUser(user, true);
        }
    }

    @Test
    void srunOutsideAJobRunsItsCommandAsAJobThatEndsCompleted() throws Exception {
        Ran ran = srun(api.token(alice, PASSWORD), "-N1", "-w", "node1", "hostname");
        assertThat(ran.code()).as(ran.err()).isZero();
        // the agent of node1 runs on this machine: its tasks print this machine's name
        Process local = new ProcessBuilder("hostname").start();
        String here = new String(local.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(ran.out().strip()).as(ran.err()).isEqualTo(here);
        JsonNode job = lastJobOf(alice);
        assertThat(job.get("allocation").get(0).get("node").asString()).isEqualTo("node1");
        assertThat(job.get("name").asString()).isEqualTo("hostname");
        JsonNode ended = api.awaitJobState(job.get("jobId").asLong(), admin, "COMPLETED", Duration.ofSeconds(30));
        assertThat(ended.get("exitCode").asInt()).isZero();
        assertThat(ended.get("user").asString()).isEqualTo(alice);
        // no batch output file: the step's output came here
        try (var files = Files.list(shared)) {
            assertThat(files.filter(f -> f.getFileName().toString().contains(job.get("jobId").asString())).toList())
                    .isEmpty();
        }
    }

    @Test
    void aFailingCommandMakesSrunAndItsJobFailWithItsCode() throws Exception {
        Ran ran = srun(api.token(alice, PASSWORD), "-N1", "bash", "-c", "echo to-stderr >&2; exit 3");
        assertThat(ran.code()).as(ran.out() + ran.err()).isEqualTo(3);
        assertThat(ran.err()).contains("to-stderr", "task 0: Exited with exit code 3");
        JsonNode ended = api.awaitJobState(lastJobOf(alice).get("jobId").asLong(), admin, "FAILED",
                Duration.ofSeconds(30));
        assertThat(ended.get("exitCode").asInt()).isEqualTo(3);
    }

    @Test
    void jobidRunsAStepInOnesOwnRunningJobAndIsRefusedInAnothers() throws Exception {
        String token = api.token(alice, PASSWORD);
        long id = api.submitJob(token, Map.of("workdir", shared.toString(), "stdout", "/dev/null",
                "script", "#!/bin/sh\nsleep 60\n"));
        api.awaitJobState(id, token, "RUNNING", Duration.ofSeconds(30));
        Ran mine = srun(token, "--jobid=" + id, "--overlap", "bash", "-c",
                "echo in-job $SLURM_JOB_ID $(id -un) ${GANTRY_TOKEN:-no-login-token}");
        assertThat(mine.code()).as(mine.err()).isZero();
        assertThat(mine.out().strip()).isEqualTo("in-job " + id + " " + alice + " no-login-token");

        Ran others = srun(api.token(bob, PASSWORD), "--jobid=" + id, "--overlap", "true");
        assertThat(others.code()).isEqualTo(1);
        assertThat(others.err()).contains("srun: error: Unable to confirm allocation for job " + id
                + ": Access/permission denied");
        assertThat(api.get("/api/v1/jobs/" + id + "/steps", admin).json().get("items").size())
                .as("only alice's step was made").isEqualTo(2);
        assertThat(api.send("DELETE", "/api/v1/jobs/" + id, admin, null).status()).isBetween(200, 299);
    }

    private JsonNode lastJobOf(String user) {
        JsonNode items = api.get("/api/v1/jobs?user=" + user + "&size=1000", admin).json().get("items");
        JsonNode last = null;
        for (JsonNode job : items) {
            if (last == null || job.get("jobId").asLong() > last.get("jobId").asLong()) {
                last = job;
            }
        }
        assertThat(last).as(items.toString()).isNotNull();
        return last;
    }

    /** srun as a login node runs it: the packaged jar, the user's login in GANTRY_URL and GANTRY_TOKEN. */
    private Ran srun(String token, String... args) throws IOException, InterruptedException {
        List<String> command = io.gantry.support.TestJvm.gantry("srun");
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "srun", ".out");
        Path err = Files.createTempFile(dir, "srun", ".err");
        ProcessBuilder builder = new ProcessBuilder(command).directory(shared.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("SLURM_") || k.startsWith("GANTRY_"));
        builder.environment().put("GANTRY_URL", "http://127.0.0.1:" + controller.port());
        builder.environment().put("GANTRY_TOKEN", token);
        builder.environment().put("HOME", dir.toString());
        Process process = builder.start();
        assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("srun ends").isTrue();
        return new Ran(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
