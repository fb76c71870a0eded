package io.gantry.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import io.gantry.support.AgentProcess;
import io.gantry.support.ApiClient;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OwnCluster;
import io.gantry.support.TestJvm;
import io.gantry.support.TimesTheHost;
import tools.jackson.databind.JsonNode;

/**
 * Power saving with real agent processes: the controller's suspend program kills a node's agent, its resume
 * program starts it again (both shell scripts, given the nodes as a hostlist, as Slurm's are). With a suspend
 * time of 10 s, idle nodes power down; a job that needs them powers them up, waits while they are POWERING_UP,
 * and runs once their agents are back; a node whose resume program never brings it back goes DOWN after the
 * resume timeout and its job goes back to the queue.
 */
@TimesTheHost
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PowerSavingIntegrationTests {

    private static final String JOIN_TOKEN = "power-test-join-token-0123456789";
    private static final String DATABASE = "gantry_power_it_" + ProcessHandle.current().pid();
    // Short, for the test's sake: each test waits out one suspend time and the last a resume timeout; the
    // timeout still leaves a loaded machine several times an agent's start to bring a node back.
    private static final Duration SUSPEND_TIME = Duration.ofSeconds(10);
    private static final Duration RESUME_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final List<String> NODES = List.of("node1", "node2");

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String admin;
    private Path pids;
    private Path programRuns;

    @BeforeAll
    void startControllerAndAgents() throws Exception {
        pids = Files.createDirectories(dir.resolve("pids"));
        programRuns = dir.resolve("program-runs");
        Path suspend = script("suspend.sh", """
                echo "suspend $1" >> %s
                for host in $(expand "$1"); do
                  if [ -f %s/$host ]; then kill -9 "$(cat %s/$host)"; rm -f %s/$host; fi
                done
                """.formatted(programRuns, pids, pids, pids));
        Path resume = script("resume.sh", """
                echo "resume $1" >> %s
                for host in $(expand "$1"); do
                  if [ -f %s/broken-$host ]; then continue; fi
                  %s/agent-$host.sh >> %s/agent-$host.log 2>&1 &
                  echo $! > %s/$host
                done
                """.formatted(programRuns, dir, dir, dir, pids));
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  cluster:
                    name: power-test
                    nodes:
                      - names: node[1-2]
                        cpus: 2
                        memory-mb: 2000
                        simulated: false
                    partitions:
                      - name: batch
                        nodes: node[1-2]
                        default: true
                    switches:
                      - name: leaf1
                        nodes: node[1-2]
                    blocks:
                      - name: block1
                        nodes: node[1-2]
                  agents:
                    join-token: %s
                    default-partitions: [batch]
                    heartbeat-timeout: 10s
                    poll-wait: 2s
                    sync-interval: 3s
                    kill-wait: 2s
                    # the bootstrap admin has no Unix account: its jobs run as whoever runs the tests
                    allow-root-jobs: true
                    user-map:
                      admin: "%s"
                  power:
                    suspend-time: %ds
                    suspend-timeout: 5s
                    resume-timeout: %ds
                    suspend-program: %s
                    resume-program: %s
                """.formatted(JOIN_TOKEN, System.getProperty("user.name"), SUSPEND_TIME.toSeconds(),
                RESUME_TIMEOUT.toSeconds(), suspend, resume));
        controller = cluster.startController("controller");
        api = controller.api();
        admin = api.adminToken();
        // The nodes' agents, started as the resume program starts them, so that the suspend program finds them.
        for (String node : NODES) {
            List<String> agent = TestJvm.gantry("agent", "--controller", "http://127.0.0.1:" + controller.port(),
                    "--name", node, "--work-dir", dir.resolve("work-" + node).toString(),
                    "--cpus", "2", "--memory-mb", "2000", "--gpus", "0",
                    "--cgroup-root", AgentProcess.cgroupRoot(dir.resolve("work-" + node)));
            script("agent-" + node + ".sh", "export GANTRY_JOIN_TOKEN=" + JOIN_TOKEN + "\nexec " + agent.stream().map(a -> "'" + a + "'")
                    .collect(Collectors.joining(" ")) + "\n");
        }
        Process started = new ProcessBuilder(resume.toString(), "node[1-2]").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("test-resume.log").toFile())).start();
        assertThat(started.waitFor()).isZero();
        for (String node : NODES) {
            api.awaitNodeState(node, admin, WAIT, "IDLE");
        }
    }

    @AfterAll
    void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        for (String node : NODES) {
            agentPid(node).flatMap(ProcessHandle::of).ifPresent(ProcessHandle::destroyForcibly);
            AgentProcess.removeEmptyCgroups(AgentProcess.cgroupRoot(dir.resolve("work-" + node)));
        }
    }

    @Test
    @Order(1)
    void idleNodesArePoweredDownByTheSuspendProgram() throws Exception {
        for (String node : NODES) {
            api.awaitNodeState(node, admin, WAIT, "POWERED_DOWN");
            assertThat(agentPid(node)).as("the suspend program stopped the agent of " + node).isEmpty();
        }
        JsonNode node1 = api.get("/api/v1/nodes/node1", admin).json();
        assertThat(node1.get("reason").isNull()).as(node1.toString()).isTrue();
        // The nodes as a hostlist, as Slurm gives them: one run for both when they idled in the same second.
        List<String> runs = Files.readAllLines(programRuns);
        assertThat(runs.contains("suspend node[1-2]") || runs.containsAll(List.of("suspend node1", "suspend node2")))
                .as(runs.toString()).isTrue();
    }

    @Test
    @Order(2)
    void aJobThatNeedsPoweredDownNodesPowersThemUpWaitsAndRuns() throws Exception {
        Path out = dir.resolve("woken.out");
        long job = api.submitJob(admin, Map.of("name", "wake", "script", "#!/bin/bash\necho ran on $SLURM_JOB_NODELIST\n",
                "nodes", 2, "tasks", 2, "timeLimitSeconds", 300, "requeue", true, "stdout", out.toString()));
        // Given the powered-down nodes at once; they come up for it, and it waits for them.
        for (String node : NODES) {
            api.awaitNodeState(node, admin, WAIT, "POWERING_UP");
        }
        JsonNode waiting = api.get("/api/v1/jobs/" + job, admin).json();
        assertThat(waiting.get("allocatedNodes").asString()).isEqualTo("node[1-2]");
        assertThat(Files.exists(out)).as("the job does not run before its nodes are up").isFalse();
        assertThat(api.get("/api/v1/jobs/" + job + "/events", admin).body()).contains("CONFIGURING");

        api.awaitJobState(job, admin, "COMPLETED", WAIT);
        assertThat(Files.readString(out)).isEqualTo("ran on node[1-2]\n");
        assertThat(Files.readAllLines(programRuns)).contains("resume node[1-2]");
        for (String node : NODES) {
            assertThat(agentPid(node)).as("the resume program started the agent of " + node).isPresent();
            api.awaitNodeState(node, admin, WAIT, "IDLE", "POWERING_DOWN", "POWERED_DOWN");
        }
    }

    @Test
    @Order(3)
    void aNodeThatDoesNotComeBackGoesDownAfterTheResumeTimeoutAndItsJobIsRequeued() throws Exception {
        for (String node : NODES) {
            api.awaitNodeState(node, admin, WAIT, "POWERED_DOWN");
        }
        Files.writeString(dir.resolve("broken-node2"), "");
        long job = api.submitJob(admin, Map.of("name", "stranded", "script", "#!/bin/bash\necho never\n",
                "nodes", 2, "tasks", 2, "timeLimitSeconds", 300, "requeue", true));
        api.awaitNodeState("node2", admin, WAIT, "POWERING_UP");
        api.awaitNodeState("node2", admin, RESUME_TIMEOUT.plus(WAIT), "DOWN");
        JsonNode node2 = api.get("/api/v1/nodes/node2", admin).json();
        assertThat(node2.get("reason").asString()).isEqualTo("ResumeTimeout reached");

        await("job " + job + " back in the queue").atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            JsonNode j = api.get("/api/v1/jobs/" + job, admin).json();
            return "PENDING".equals(j.get("state").asString()) && j.get("requeueCount").asInt() == 1;
        });
        // node1 came back for it, and is idle again: the job waits for two nodes where one is down.
        api.awaitNodeState("node1", admin, WAIT, "IDLE", "POWERING_DOWN", "POWERED_DOWN");
        assertThat(api.get("/api/v1/jobs/" + job, admin).json().get("state").asString()).isEqualTo("PENDING");
    }

    private java.util.Optional<Long> agentPid(String node) throws java.io.IOException {
        Path file = pids.resolve(node);
        if (!Files.exists(file)) {
            return java.util.Optional.empty();
        }
        long pid = Long.parseLong(Files.readString(file).strip());
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(p -> pid);
    }

    private static Path script(String name, String body) throws java.io.IOException {
        Path script = dir.resolve(name);
        Files.writeString(script, """
                #!/bin/bash
                # Expands a hostlist like node[1-2] or node1 into one name a line.
                expand() {
                  if [[ "$1" =~ ^([^\\[]*)\\[([^]]*)\\]$ ]]; then
                    local prefix="${BASH_REMATCH[1]}" part
                    IFS=',' read -ra parts <<< "${BASH_REMATCH[2]}"
                    for part in "${parts[@]}"; do
                      if [[ "$part" == *-* ]]; then
                        for ((i = ${part%-*}; i <= ${part#*-}; i++)); do echo "$prefix$i"; done
                      else
                        echo "$prefix$part"
                      fi
                    done
                  else
                    echo "$1" | tr ',' '\\n'
                  fi
                }
                """ + body);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }
}
