package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.TwoNodes;

/**
 * sstat and scontrol show step on a real agent: a running step whose two tasks each hold 60 MB shows a
 * MaxRSS of at least that on its node, its tasks and their pids, read live from the agent through the
 * controller; the step shows in scontrol's layout; another user's read is refused.
 */
@TwoNodes.Use
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SstatIntegrationTests {

    private static final long HELD = 60L * 1024 * 1024;

    @TempDir
    static Path dir;

    private TwoNodes nodes;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;

    private record Ran(int code, String out, String err) {
    }

    @BeforeAll
    void useTheTwoNodes(TwoNodes nodes) {
        this.nodes = nodes;
        controller = nodes.controller();
        api = nodes.api();
        admin = nodes.admin();
    }

    @AfterAll
    void leaveThemIdle() throws Exception {
        if (nodes != null) {
            nodes.release();
        }
    }

    @Test
    void aRunningStepsMemoryAndTasksShowInSstatAndScontrolButNotToAnotherUser() throws Exception {
        Path work = Files.createDirectories(dir.resolve("held"));
        // each task touches every page of 60 MB, says so, and holds it
        long id = api.submitJob(admin, Map.of("nodes", 1, "ntasksPerNode", 2, "nodelist", "node1",
                "workdir", work.toString(), "script", """
                #!/bin/bash
                srun -n2 python3 -c '
                import os, time
                held = bytearray(%d)
                for i in range(0, len(held), 4096):
                    held[i] = 1
                open("ready." + os.environ["SLURM_PROCID"], "w").close()
                time.sleep(300)
                '
                """.formatted(HELD)));
        api.awaitJobState(id, admin, "RUNNING", Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> Files.exists(work.resolve("ready.0")) && Files.exists(work.resolve("ready.1")));

        Ran sstat = cli(admin, "sstat", "-j", Long.toString(id), "-P", "--noconvert",
                "-o", "JobID,MaxRSS,MaxRSSNode,AveRSS,NTasks,Nodelist,Pids,AveCPU");
        assertThat(sstat.code()).as(sstat.err()).isZero();
        List<String> lines = sstat.out().lines().toList();
        assertThat(lines).as(sstat.out() + sstat.err()).hasSize(2);
        assertThat(lines.get(0)).isEqualTo("JobID|MaxRSS|MaxRSSNode|AveRSS|NTasks|Nodelist|Pids|AveCPU");
        String[] f = lines.get(1).split("\\|", -1);
        assertThat(f[0]).isEqualTo(id + ".0");
        assertThat(Long.parseLong(f[1])).as("MaxRSS").isGreaterThanOrEqualTo(HELD);
        assertThat(f[2]).isEqualTo("node1");
        assertThat(Long.parseLong(f[3])).as("AveRSS").isGreaterThanOrEqualTo(HELD);
        assertThat(f[4]).isEqualTo("2");
        assertThat(f[5]).isEqualTo("node1");
        assertThat(f[6].split(",")).hasSize(2).allSatisfy(pid -> assertThat(Path.of("/proc", pid)).exists());
        assertThat(f[7]).matches("\\d\\d:\\d\\d:\\d\\d");

        Ran converted = cli(admin, "sstat", "-j", id + ".0", "-n", "-o", "MaxRSS");
        assertThat(converted.out().strip()).as(converted.err()).matches("\\d+(\\.\\d\\d)?[KMG]");

        Ran all = cli(admin, "sstat", "-a", "-j", Long.toString(id), "-P", "-n", "-o", "JobID,NTasks");
        assertThat(all.out().lines().toList()).as(all.err()).containsExactly(id + ".batch|1", id + ".0|2");

        Ran step = cli(admin, "scontrol", "show", "step", id + ".0");
        assertThat(step.code()).as(step.err()).isZero();
        assertThat(step.out()).startsWith("StepId=" + id + ".0 UserId=")
                .contains("   State=RUNNING Partition=batch NodeList=node1\n",
                        "   Nodes=1 CPUs=2 Tasks=2 Name=python3 Network=(null)\n", "   CPUFreqReq=Default Dist=Block\n");
        Ran steps = cli(admin, "scontrol", "show", "step");
        assertThat(steps.out()).contains("StepId=" + id + ".batch ", "StepId=" + id + ".0 ");

        api.createUser(admin, "sstatother", "sstat-other-password");
        String other = api.token("sstatother", "sstat-other-password");
        Response refused = api.get("/api/v1/jobs/" + id + "/steps/0/stat", other);
        assertThat(refused.status()).as(refused.body()).isEqualTo(403);
        Ran theirs = cli(other, "sstat", "-j", Long.toString(id), "-n", "-o", "JobID,MaxRSS");
        assertThat(theirs.out()).isEmpty();
        assertThat(theirs.err()).isEqualTo("sstat: error: problem getting step_layout for StepId=" + id
                + ".0: Access/permission denied\n");

        assertThat(api.send("DELETE", "/api/v1/jobs/" + id, admin, null).status()).isBetween(200, 299);
        api.awaitJobState(id, admin, "CANCELLED", Duration.ofSeconds(60));
        Ran ended = cli(admin, "sstat", "-j", Long.toString(id), "-n");
        assertThat(ended.err()).isEqualTo("sstat: error: No steps running for job " + id + "\n");
        Ran missing = cli(admin, "sstat", "-j", "987654", "-n");
        assertThat(missing.err()).isEqualTo("sstat: error: couldn't get steps for job 987654\n");
    }

    /** A command as a login node runs it: the packaged jar, the user's login in GANTRY_URL and GANTRY_TOKEN. */
    private Ran cli(String token, String... args) throws IOException, InterruptedException {
        List<String> command = io.gantry.support.TestJvm.gantry();
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "cli", ".out");
        Path err = Files.createTempFile(dir, "cli", ".err");
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("SLURM_") || k.startsWith("GANTRY_"));
        builder.environment().put("GANTRY_URL", "http://127.0.0.1:" + controller.port());
        builder.environment().put("GANTRY_TOKEN", token);
        builder.environment().put("HOME", dir.toString());
        Process process = builder.start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", args) + " ends").isTrue();
        return new Ran(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
