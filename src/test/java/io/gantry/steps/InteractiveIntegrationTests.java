package io.gantry.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
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
 * Interactive work as people do it, in a real terminal (tmux) on a login node, against the packaged
 * controller and a real agent: {@code salloc -N1} grants, gives a shell with the allocation's
 * variables in which {@code srun} runs on the node, and {@code exit} ends the job COMPLETED;
 * {@code srun --pty bash} is a remote shell on a pseudo-terminal of the local terminal's size that
 * follows a resize, takes Ctrl-C as a key and ends with the shell's exit code; {@code srun --jobid=J
 * --overlap --pty} enters one's own running job and not another user's.
 */
@TwoNodes.Use
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InteractiveIntegrationTests {

    private static final String PASSWORD = "interactive-password";
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** bash's prompt for a user, alone at the end of a line: {@code user@host:dir$}. */
    private static final Pattern PROMPT = Pattern.compile("(?m)^\\S+@\\S+\\$\\s*$");

    @TempDir
    static Path dir;

    private final String alice = "g29ia" + ProcessHandle.current().pid() % 100000;
    private final String bob = "g29ib" + ProcessHandle.current().pid() % 100000;
    private final String socket = "gantry-it-" + ProcessHandle.current().pid();
    private final List<String> createdUsers = new ArrayList<>();
    private TwoNodes nodes;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private Path shared;
    private Path bin;
    private String runuser;

    @BeforeAll
    void start(TwoNodes nodes) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "runs jobs as other users: needs root");
        assumeTrue(onPath("tmux"), "drives a terminal with tmux: apt-get install tmux");
        runuser = output("sh", "-c", "command -v runuser").strip();
        for (String user : List.of(alice, bob)) {
            UnixAccounts.addUser("-m", "-s", "/bin/bash", user);
            createdUsers.add(user);
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        shared = Files.createDirectories(dir.resolve("shared"));
        run("chmod", "1777", shared.toString());
        // the commands as a login node has them: salloc, and the srun typed in its shell
        bin = dir.resolve("bin");
        run(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                ControllerProcess.JAR.toAbsolutePath().toString(), "cli", "install", "--prefix", bin.toString(),
                "--no-cds");
        this.nodes = nodes;
        controller = nodes.controller();
        api = nodes.api();
        admin = nodes.admin();
        for (String user : List.of(alice, bob)) {
            api.createUser(admin, user, PASSWORD);
        }
    }

    @AfterEach
    void closeTerminal() throws Exception {
        new ProcessBuilder("tmux", "-L", socket, "kill-server").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
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
    void sallocGrantsAShellWithTheAllocationInWhichSrunRunsOnTheNodeAndExitEndsTheJobCompleted() throws Exception {
        terminal(alice, api.token(alice, PASSWORD), 100, 30, "salloc", "-N1", "-w", "node1");
        String granted = awaitScreen("salloc: Granted job allocation ");
        Matcher id = Pattern.compile("Granted job allocation (\\d+)").matcher(granted);
        assertThat(id.find()).isTrue();
        long jobId = Long.parseLong(id.group(1));
        awaitScreen("$ ");
        type("echo JOB=$SLURM_JOB_ID NODES=$SLURM_JOB_NODELIST", "Enter");
        awaitScreen("JOB=" + jobId + " NODES=node1");
        assertThat(api.get("/api/v1/jobs/" + jobId, admin).json().get("state").asString()).isEqualTo("RUNNING");

        type("srun printenv SLURMD_NODENAME SLURM_JOB_ID", "Enter");
        awaitScreen("\nnode1\n" + jobId + "\n");
        type("exit", "Enter");
        awaitScreen("salloc: Relinquishing job allocation " + jobId);
        awaitScreen("EXIT=0");
        JsonNode ended = api.awaitJobState(jobId, admin, "COMPLETED", WAIT);
        assertThat(ended.get("exitCode").asInt()).isZero();
        assertThat(ended.get("user").asString()).isEqualTo(alice);
    }

    @Test
    void srunPtyIsARemoteTerminalOfTheLocalSizeThatFollowsResizesTakesCtrlCAndEndsWithTheShellsCode()
            throws Exception {
        terminal(alice, api.token(alice, PASSWORD), 100, 30, "srun", "-N1", "--pty", "bash");
        awaitScreen("$ ");
        type("tty; stty size; echo user=$(id -un) node=$SLURMD_NODENAME", "Enter");
        String screen = awaitScreen("node=node1");
        assertThat(screen).contains("/dev/pts/").contains("30 100").contains("user=" + alice);

        tmux("resize-window", "-t", "s", "-x", "120", "-y", "40");
        // the new size travels to the remote terminal asynchronously: ask again until it has arrived, each time
        // waiting for the answer, so that no line is typed ahead into a command that is still running
        int[] asked = {0};
        await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            String mark = "size" + ++asked[0];
            type("echo " + mark + "=$(stty size)", "Enter");
            assertThat(awaitLine(mark + "=(\\d+ \\d+)")).isEqualTo("40 120");
        });

        // Ctrl-C reaches the remote terminal as a key: it interrupts the sleep, not the session. It is pressed
        // once the sleep runs, and the next line typed once the shell prompts again, as a person at it would.
        type("echo sleeping; sleep 300", "Enter");
        awaitLine("(sleeping)");
        await().atMost(WAIT).until(() -> sleepsOf(alice));
        type("C-c");
        await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
                .until(() -> PROMPT.matcher(afterLast(screen(), "\nsleeping\n")).find());
        type("echo after-interrupt-$?", "Enter");
        awaitScreen("after-interrupt-130");

        type("exit 3", "Enter");
        awaitScreen("EXIT=3");
        JsonNode job = lastJobOf(alice);
        assertThat(api.awaitJobState(job.get("jobId").asLong(), admin, "FAILED", WAIT).get("exitCode").asInt())
                .isEqualTo(3);
    }

    @Test
    void srunJobidOverlapPtyEntersOnesOwnRunningJobAndIsRefusedInAnothers() throws Exception {
        String token = api.token(alice, PASSWORD);
        long id = api.submitJob(token, Map.of("workdir", shared.toString(), "stdout", "/dev/null",
                "script", "#!/bin/sh\nsleep 300\n"));
        api.awaitJobState(id, token, "RUNNING", WAIT);

        terminal(bob, api.token(bob, PASSWORD), 100, 30, "srun", "--jobid=" + id, "--overlap", "--pty", "bash");
        awaitScreen("srun: error: Unable to confirm allocation for job " + id + ": Access/permission denied");
        awaitScreen("EXIT=1");
        closeTerminal();

        terminal(alice, token, 100, 30, "srun", "--jobid=" + id, "--overlap", "--pty", "bash");
        awaitScreen("$ ");
        type("echo inside=$SLURM_JOB_ID; pgrep -u $(id -un) -x sleep >/dev/null && echo sees-its-sleep", "Enter");
        awaitScreen("inside=" + id);
        awaitScreen("sees-its-sleep");
        type("exit", "Enter");
        awaitScreen("EXIT=0");
        assertThat(api.get("/api/v1/jobs/" + id, admin).json().get("state").asString())
                .as("leaving the shell leaves the job running").isEqualTo("RUNNING");
        assertThat(api.send("DELETE", "/api/v1/jobs/" + id, admin, null).status()).isBetween(200, 299);
    }

    /**
     * A tmux terminal of {@code cols} x {@code rows} running the command as {@code user} on a login node
     * (their login in GANTRY_URL and GANTRY_TOKEN, the installed commands on PATH, bash as their shell);
     * when the command ends the terminal says {@code EXIT=<its code>}.
     */
    private void terminal(String user, String token, int cols, int rows, String... command) throws Exception {
        Path launcher = Files.createTempFile(shared, "terminal", ".sh");
        StringBuilder script = new StringBuilder("#!/bin/sh\n");
        script.append("export GANTRY_URL=http://127.0.0.1:").append(controller.port()).append('\n');
        script.append("export GANTRY_TOKEN=").append(token).append('\n');
        script.append("export HOME=/home/").append(user).append(" USER=").append(user)
                .append(" SHELL=/bin/bash PATH=").append(bin).append(":/usr/local/bin:/usr/bin:/bin\n");
        script.append("cd ").append(shared).append('\n');
        for (String word : command) {
            script.append("'").append(word.replace("'", "'\\''")).append("' ");
        }
        script.append("\necho EXIT=$?\nsleep 600\n");
        Files.writeString(launcher, script.toString());
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwx------"));
        run("chown", user, launcher.toString());
        Path config = dir.resolve("tmux.conf");
        Files.writeString(config, "set -g status off\nset -g history-limit 5000\n");
        tmux("-f", config.toString(), "new-session", "-d", "-s", "s", "-x", Integer.toString(cols), "-y",
                Integer.toString(rows), "env -i TERM=xterm " + runuser + " -u " + user + " -- " + launcher);
    }

    private void type(String... keys) throws Exception {
        List<String> args = new ArrayList<>(List.of("send-keys", "-t", "s"));
        for (String key : keys) {
            args.add(key);
        }
        // a word is typed as text unless it is a key's name (Enter, C-c)
        tmux(args.toArray(String[]::new));
    }

    private String screen() throws Exception {
        return tmux("capture-pane", "-p", "-J", "-t", "s", "-S", "-2000");
    }

    /** Waits for a whole line of the terminal matching {@code regex}, and returns its first group. */
    private String awaitLine(String regex) {
        Pattern line = Pattern.compile("(?m)^" + regex + "$");
        String[] found = {null};
        await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
            Matcher matcher = line.matcher(screen());
            found[0] = matcher.find() ? matcher.group(1) : null;
            return found[0] != null;
        });
        return found[0];
    }

    private static String afterLast(String screen, String marker) {
        int at = screen.lastIndexOf(marker);
        return at < 0 ? "" : screen.substring(at + marker.length());
    }

    private static boolean sleepsOf(String user) throws Exception {
        Process pgrep = new ProcessBuilder("pgrep", "-u", user, "-xf", "sleep 300").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return pgrep.waitFor(10, TimeUnit.SECONDS) && pgrep.exitValue() == 0;
    }

    private String awaitScreen(String text) {
        String[] last = {""};
        try {
            await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() -> {
                last[0] = screen();
                return last[0].contains(text);
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            assertThat(last[0]).as("the terminal shows '%s' within %s", text, WAIT).contains(text);
        }
        return last[0];
    }

    private String tmux(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("tmux", "-L", socket));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", command) + ": " + out).isZero();
        return out;
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

    private static boolean onPath(String command) throws IOException, InterruptedException {
        return new ProcessBuilder("sh", "-c", "command -v " + command).start().waitFor() == 0;
    }

    private static String output(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
        return output;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
