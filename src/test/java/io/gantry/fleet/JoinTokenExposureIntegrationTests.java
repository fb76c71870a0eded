package io.gantry.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;

/**
 * The join token, on a machine joined as the controller's {@code agentCommand} says (run as pasted
 * into a root shell: downloading the jar, writing the token file, starting the agent): it is in no
 * process's arguments on the machine, neither while the agent runs nor while a job runs, and not in
 * the environment of the agent or of any process of its jobs.
 */
class JoinTokenExposureIntegrationTests {

    private static final String DATABASE = "gantry_join_exposure_it_" + ProcessHandle.current().pid();
    private static final String JOIN_TOKEN = "exposure-join-token-" + Long.toHexString(System.nanoTime())
            + "-0123456789";
    private static final Path TOKEN_FILE = Path.of(AgentController.TOKEN_FILE);

    @TempDir
    Path dir;

    private OwnCluster cluster;
    private Process shell;
    private boolean madeTokenDir;

    @AfterEach
    void stopAll() throws Exception {
        if (shell != null) {
            shell.descendants().forEach(ProcessHandle::destroyForcibly);
            shell.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (cluster != null) {
            cluster.close();
        }
        Files.deleteIfExists(TOKEN_FILE);
        if (madeTokenDir) {
            Files.deleteIfExists(TOKEN_FILE.getParent());
        }
    }

    @Test
    void anAgentStartedAsAgentCommandSaysShowsTheTokenInNoProcessArgumentsAndNoJobEnvironment() throws Exception {
        assertThat(Files.exists(TOKEN_FILE)).as(TOKEN_FILE + " belongs to someone else on this machine").isFalse();
        madeTokenDir = !Files.exists(TOKEN_FILE.getParent());
        cluster = OwnCluster.create(dir, DATABASE,
                ClusterYaml.oneRealAndOneSimulatedNode("exposure-test", 2, 2000, JOIN_TOKEN, "poll-wait: 1s"));
        // the jar itself: the new machine downloads the jar this controller runs
        ControllerProcess controller = cluster.controller("controller").packaged().start();
        ApiClient api = controller.api();
        String admin = api.adminToken();
        String command = api.get("/api/v1/agents/join-token", admin).json().get("agentCommand").asString();
        assertThat(command).doesNotContain("--join-token " + JOIN_TOKEN).contains("--join-token-file");

        // Pasted into a shell on the new machine: the shell reads it, so the command is in no process's arguments.
        Path machine = Files.createDirectories(dir.resolve("machine"));
        ProcessBuilder builder = new ProcessBuilder("bash", "-s").directory(machine.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("agent.log").toFile()));
        builder.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":"
                + System.getenv("PATH"));
        shell = builder.start();
        shell.getOutputStream().write((command + "\n").getBytes(StandardCharsets.UTF_8));
        shell.getOutputStream().close();

        // The agent names its node after the machine (its host name up to the first dot).
        String host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        String node = host.contains(".") ? host.substring(0, host.indexOf('.')) : host;
        api.awaitNodeState(node, admin, Duration.ofSeconds(90), "IDLE");
        assertThat(Files.getPosixFilePermissions(TOKEN_FILE))
                .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
        assertThat(Files.readString(TOKEN_FILE).strip()).isEqualTo(JOIN_TOKEN);
        assertThat(processesShowingTheToken()).isEmpty();

        long id = api.submitJob(admin, Map.of("name", "exposure", "nodelist", node, "cpus", 1,
                "script", "#!/bin/bash\nsleep 120\n"));
        api.awaitJobState(id, admin, "RUNNING", Duration.ofSeconds(60));
        List<ProcessHandle> job = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            job.clear();
            shell.descendants().filter(p -> cmdline(p.pid()).startsWith("sleep 120")).forEach(job::add);
            return !job.isEmpty();
        });
        assertThat(processesShowingTheToken()).isEmpty();
        // Neither the agent nor any process of its job has the token in its environment.
        for (ProcessHandle p : shell.descendants().toList()) {
            String environ = environ(p.pid());
            assertThat(environ).as("environment of " + cmdline(p.pid())).doesNotContain(JOIN_TOKEN)
                    .doesNotContain("GANTRY_JOIN_TOKEN");
        }
        assertThat(environ(job.get(0).pid())).contains("SLURM_JOB_ID=" + id);
    }

    /** Every process on the machine whose arguments hold the token. */
    private static List<String> processesShowingTheToken() throws IOException {
        List<String> showing = new ArrayList<>();
        try (var entries = Files.list(Path.of("/proc"))) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                if (name.chars().allMatch(Character::isDigit)) {
                    String args = cmdline(Long.parseLong(name));
                    if (args.contains(JOIN_TOKEN)) {
                        showing.add(name + ": " + args);
                    }
                }
            }
        }
        return showing;
    }

    private static String cmdline(long pid) {
        return read(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
    }

    private static String environ(long pid) {
        return read(Path.of("/proc", Long.toString(pid), "environ")).replace('\0', '\n');
    }

    private static String read(Path file) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        } catch (IOException gone) {
            return ""; // the process ended meanwhile
        }
    }
}
