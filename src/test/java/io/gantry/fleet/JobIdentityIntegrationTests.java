package io.gantry.fleet;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.ApiClient;
import io.gantry.support.ApiClient.Response;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.TimesTheHost;
import io.gantry.support.UnixAccounts;
import tools.jackson.databind.JsonNode;

/**
 * Jobs of two real Unix users on one real agent running as root, as on a production node: each job
 * runs as its owner, owns its output, cannot read the other's files or the agent's secrets, is fenced
 * in by its own cgroup, and is warned and stopped with signals as Slurm does. Needs root (to create
 * the users and switch to them), so it is skipped elsewhere.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobIdentityIntegrationTests {

    private static final String JOIN_TOKEN = "identity-test-join-token-0123456789";
    private static final String DATABASE = "gantry_identity_it_" + ProcessHandle.current().pid();
    private static final String PASSWORD = "identity-test-password";

    @TempDir
    static Path dir;

    private final String suffix = Integer.toString(ThreadLocalRandom.current().nextInt(10000, 99999));
    private final String alice = "gta" + suffix;
    private final String bob = "gtb" + suffix;
    private final String nobodyHere = "gtn" + suffix;
    private final String group = "gtg" + suffix;
    private final List<String> createdUsers = new ArrayList<>();
    private boolean groupCreated;
    private OwnCluster cluster;
    private ControllerProcess controller;
    private Process agent;
    private ApiClient api;
    private String admin;
    private Path shared;

    @BeforeAll
    void startControllerAndAgent() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "runs jobs as other users: needs root");
        UnixAccounts.addGroup(group);
        groupCreated = true;
        UnixAccounts.addUser("-m", "-G", group, "-s", "/bin/bash", alice);
        createdUsers.add(alice);
        UnixAccounts.addUser("-m", "-s", "/bin/bash", bob);
        createdUsers.add(bob);
        // The temporary directory is root's: let the users pass through it, as they would /home.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        shared = Files.createDirectories(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        run("chmod", "1777", shared.toString());

        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  cluster:
                    name: identity-test
                    nodes:
                      - names: node1
                        cpus: 2
                        memory-mb: 4000
                        gpus: 2
                        gpu-type: test
                        simulated: false
                    partitions:
                      - name: batch
                        nodes: node1
                        default: true
                        default-time: "10:00"
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
                """.formatted(JOIN_TOKEN));
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        for (String user : List.of(alice, bob, nobodyHere)) {
            api.createUser(admin, user, PASSWORD);
        }

        Path work = dir.resolve("agent");
        Files.createDirectories(work);
        ProcessBuilder builder = new ProcessBuilder(io.gantry.support.TestJvm.gantry("agent", "--controller",
                "http://127.0.0.1:" + controller.port(), "--name", "node1", "--work-dir", work.toString(), "--gpus", "2",
                "--gpu-type", "test", "--cpus", "2", "--memory-mb", "4000", "--cgroup-root",
                io.gantry.support.AgentProcess.cgroupRoot(work)))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("agent.log").toFile()));
        builder.environment().put("GANTRY_JOIN_TOKEN", JOIN_TOKEN); // where a job must not find it
        agent = builder.start();
        api.awaitNodeState("node1", admin, Duration.ofSeconds(60), "IDLE");
    }

    @AfterAll
    void stopAll() throws Exception {
        if (agent != null) {
            agent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (cluster != null) {
            cluster.close();
        }
        io.gantry.support.AgentProcess.removeEmptyCgroups(io.gantry.support.AgentProcess.cgroupRoot(dir.resolve("agent")));
        for (String user : createdUsers) {
            UnixAccounts.removeUser(user, true);
        }
        if (groupCreated) {
            UnixAccounts.removeGroup(group);
        }
    }

    @Test
    void eachUsersJobRunsAsThemselvesAndCannotReachTheOthersFilesOrTheAgentsSecrets() throws Exception {
        String bobToken = api.token(bob, PASSWORD);
        String aliceToken = api.token(alice, PASSWORD);
        Path bobHome = home(bob);
        long bobJob = submit(bobToken, Map.of("name", "bob-secret", "stdout", shared + "/bob-%j.out", "script", """
                #!/bin/bash
                echo "bob's secret" > secret.txt
                echo "uid=$(id -u) pwd=$(pwd)"
                """));
        assertThat(awaitState(bobJob, bobToken, "COMPLETED").get("exitCode").asInt()).isZero();
        Path bobOut = shared.resolve("bob-" + bobJob + ".out");
        assertThat(Files.readString(bobOut)).contains("uid=" + uid(bob) + " pwd=" + bobHome);
        assertThat(owner(bobOut)).isEqualTo(bob);
        assertThat(mode(bobOut)).isEqualTo("rw-------");
        assertThat(owner(bobHome.resolve("secret.txt"))).isEqualTo(bob);

        Path agentWork = dir.resolve("agent");
        long agentPid = agent.pid();
        long aliceJob = submit(aliceToken, Map.of("name", "alice-probe", "script", """
                #!/bin/bash
                echo "uid=$(id -u)"
                echo "groups=$(id -G)"
                probe() { if cat "$2" >/dev/null 2>&1; then echo "$1=read"; else echo "$1=refused"; fi; }
                probe bob-output %s
                probe bob-secret %s/secret.txt
                probe credential %s/state/credential.json
                probe agent-environment /proc/%d/environ
                if ls %s/state >/dev/null 2>&1; then echo "agent-state=listed"; else echo "agent-state=refused"; fi
                echo "join-token-in-env=$(env | grep -c GANTRY_JOIN_TOKEN)"
                echo "home=$HOME user=$USER"
                """.formatted(bobOut, bobHome, agentWork, agentPid, agentWork)));
        JsonNode done = awaitState(aliceJob, aliceToken, "COMPLETED");
        assertThat(done.get("exitCode").asInt()).isZero();
        Path aliceOut = home(alice).resolve("gantry-" + aliceJob + ".out");
        String out = Files.readString(aliceOut);
        assertThat(out).contains("uid=" + uid(alice) + "\n", "bob-output=refused", "bob-secret=refused",
                "credential=refused", "agent-environment=refused", "agent-state=refused", "join-token-in-env=0",
                "home=" + home(alice) + " user=" + alice);
        String groups = out.lines().filter(l -> l.startsWith("groups=")).findFirst().orElseThrow();
        assertThat(groups.substring(7).split(" ")).contains(gid(alice), gid(group));
        assertThat(owner(aliceOut)).isEqualTo(alice);
        assertThat(mode(aliceOut)).isEqualTo("rw-------");
    }

    @Test
    void aUserWithoutAnAccountOnTheNodeGetsAFailedJobWithTheReasonAndTheNodeStaysUp() {
        String token = api.token(nobodyHere, PASSWORD);
        long id = submit(token, Map.of("workdir", shared.toString(), "script", "#!/bin/bash\ntrue\n"));
        awaitState(id, token, "FAILED");
        Response events = api.get("/api/v1/jobs/" + id + "/events", token);
        assertThat(events.body()).contains("user " + nobodyHere + " has no Unix account on node1");
        assertThat(api.get("/api/v1/nodes/node1", admin).json().get("state").asString()).isIn("IDLE", "MIXED");
    }

    @Test
    void anOutputFileTheOwnerMayNotWriteFailsTheJobAndIsNeverWrittenAsRoot() throws Exception {
        String token = api.token(alice, PASSWORD);
        Path rootOnly = Files.createDirectories(dir.resolve("root-only"));
        long id = submit(token, Map.of("workdir", shared.toString(), "stdout", rootOnly + "/stolen-%j.out",
                "script", "#!/bin/bash\necho hi\n"));
        awaitState(id, token, "FAILED");
        assertThat(api.get("/api/v1/jobs/" + id + "/events", token).body())
                .contains("user " + alice + " may not write the output file " + rootOnly + "/stolen-" + id + ".out");
        assertThat(rootOnly.resolve("stolen-" + id + ".out")).doesNotExist();
    }

    @Test
    void aJobOverItsMemoryEndsOutOfMemoryWhileTheNodeAndAnotherJobRunOn() throws Exception {
        assumeTrue(Files.isWritable(Path.of("/sys/fs/cgroup/memory")) || Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers")),
                "needs a memory cgroup");
        String bobToken = api.token(bob, PASSWORD);
        String aliceToken = api.token(alice, PASSWORD);
        long other = submit(bobToken, Map.of("workdir", shared.toString(), "memoryMb", 100,
                "script", "#!/bin/bash\nsleep 25\necho still-here\n"));
        awaitState(other, bobToken, "RUNNING");
        long hog = submit(aliceToken, Map.of("workdir", shared.toString(), "memoryMb", 50, "script", """
                #!/bin/bash
                head -c 100000000 /dev/zero | tail > /dev/null
                echo survived
                """));
        JsonNode ended = awaitState(hog, aliceToken, "OUT_OF_MEMORY");
        assertThat(ended.get("state").asString()).isEqualTo("OUT_OF_MEMORY");
        assertThat(api.get("/api/v1/jobs/" + other, bobToken).json().get("state").asString()).isEqualTo("RUNNING");
        assertThat(agent.isAlive()).isTrue();
        awaitState(other, bobToken, "COMPLETED");
    }

    @Test
    void cancelStopsADaemonisedGrandchildTooWithSigtermThenSigkill() throws Exception {
        String token = api.token(bob, PASSWORD);
        Path work = Files.createDirectories(shared.resolve("cancel-" + suffix));
        run("chown", bob, work.toString());
        long id = submit(token, Map.of("workdir", work.toString(), "script", """
                #!/bin/bash
                trap 'echo got-term' TERM
                ( setsid sleep 4321 </dev/null >/dev/null 2>&1 & echo $! > daemon.pid )
                echo ready
                while true; do sleep 0.2; done
                """));
        awaitState(id, token, "RUNNING");
        Path pidFile = work.resolve("daemon.pid");
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        long daemon = Long.parseLong(Files.readString(pidFile).strip());
        assertThat(Path.of("/proc/" + daemon)).exists();
        long cancelledAt = System.nanoTime();
        assertThat(api.send("DELETE", "/api/v1/jobs/" + id, token, null).status()).isBetween(200, 299);
        awaitState(id, token, "CANCELLED");
        await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(Path.of("/proc/" + daemon)));
        String out = Files.readString(work.resolve("gantry-" + id + ".out"));
        assertThat(out).contains("ready", "got-term");
        // the script traps SIGTERM, so only the SIGKILL after the kill wait (2 s) ends it
        assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt)).as(() -> "the agent's log:\n" + agentLog()
                + "\nthe job's events: " + api.get("/api/v1/jobs/" + id + "/events", token).body())
                .isGreaterThan(Duration.ofMillis(1500));
    }

    @Test
    void signalBatchUsr1ReachesTheScriptFiveSecondsBeforeItsLimit() throws Exception {
        String token = api.token(alice, PASSWORD);
        Path work = Files.createDirectories(shared.resolve("signal-" + suffix));
        run("chown", alice, work.toString());
        long id = submit(token, Map.of("workdir", work.toString(), "timeLimitSeconds", 60, "script", """
                #!/bin/bash
                #SBATCH --signal=B:USR1@57
                trap 'echo "usr1 $(date +%s%N)"' USR1
                echo "start $(date +%s%N)"
                while true; do sleep 0.1; done
                """));
        awaitState(id, token, "RUNNING");
        Path out = work.resolve("gantry-" + id + ".out");
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(out) && Files.readString(out).contains("usr1"));
        Map<String, Long> times = new LinkedHashMap<>();
        for (String line : Files.readString(out).split("\n")) {
            String[] f = line.split(" ");
            if (f.length == 2) {
                times.putIfAbsent(f[0], Long.parseLong(f[1]));
            }
        }
        long warnedAfterMillis = TimeUnit.NANOSECONDS.toMillis(times.get("usr1") - times.get("start"));
        assertThat(warnedAfterMillis).as("USR1 57 s before a 60 s limit").isBetween(2000L, 5000L);
        assertThat(api.get("/api/v1/jobs/" + id, token).json().get("state").asString()).isEqualTo("RUNNING");
        api.send("DELETE", "/api/v1/jobs/" + id, token, null);
        awaitState(id, token, "CANCELLED");
    }

    private long submit(String token, Map<String, Object> job) {
        return api.submitJob(token, job);
    }

    private JsonNode awaitState(long id, String token, String state) {
        return api.awaitJobState(id, token, state, Duration.ofSeconds(60));
    }

    private static String agentLog() {
        try {
            String log = Files.readString(dir.resolve("agent.log"));
            return log.substring(Math.max(0, log.length() - 6000));
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static String output(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor()).as(String.join(" ", command) + ": " + out).isZero();
        return out;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        output(command);
    }

    private static String uid(String user) throws Exception {
        return output("id", "-u", user);
    }

    private static String gid(String name) throws Exception {
        return output("getent", "group", name).split(":")[2];
    }

    private static Path home(String user) throws Exception {
        return Path.of(output("getent", "passwd", user).split(":")[5]);
    }

    private static String owner(Path file) throws IOException {
        return Files.getOwner(file).getName();
    }

    private static String mode(Path file) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
    }
}
