package io.gantry.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
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
import io.gantry.support.ClusterYaml;
import io.gantry.support.ControllerProcess;
import io.gantry.support.OnTheNode;
import io.gantry.support.OwnCluster;

/**
 * Issue 37, done-when 3: the workflow tools of the corpus that Debian packages (Snakemake 7.21 and Toil 5.9.2)
 * each run a two-step workflow to completion with nothing but Gantry's launchers ({@code cli install}) first on
 * PATH, against a packaged controller whose only node is a real agent. The corpus test proves each command
 * line parses; this proves the tools' own loops (submit, poll, read the state, run the next step) finish.
 */
@OnTheNode
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkflowToolsIntegrationTests {

    private static final String JOIN_TOKEN = "workflow-tools-join-token-0123456789";
    private static final String DATABASE = "gantry_workflow_it_" + ProcessHandle.current().pid();

    @TempDir
    static Path dir;

    private OwnCluster cluster;
    private ControllerProcess controller;
    private ApiClient api;
    private String token;

    private record Run(int exit, String output) {
    }

    @BeforeAll
    void start() throws Exception {
        cluster = OwnCluster.create(dir, DATABASE, """
                gantry:
                  cluster:
                    name: workflow-test
                    nodes:
                      - names: node1
                        cpus: 8
                        memory-mb: 8000
                        simulated: false
                    partitions:
                      - name: cpu
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
                    default-partitions: [cpu]
                    kill-wait: 2s
                """.formatted(JOIN_TOKEN) + ClusterYaml.adminRunsJobsAsTester());
        controller = cluster.startController("controller");
        api = controller.api();
        token = api.adminToken();
        cluster.startAgent(controller, JOIN_TOKEN, "node1", 8, 8000);
        api.awaitNodeState("node1", token, Duration.ofSeconds(60), "IDLE");
        Process install = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                ControllerProcess.JAR.toAbsolutePath().toString(), "cli", "install", "--prefix", dir.resolve("bin").toString())
                .redirectErrorStream(true).start();
        String said = new String(install.getInputStream().readAllBytes());
        assertThat(install.waitFor()).as(said).isZero();
    }

    @AfterAll
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * Snakemake 7.21's built-in Slurm executor: two rules, the second reading what the first wrote, each
     * submitted with sbatch, polled with sacct and run inside its job as a Snakemake job step.
     */
    @Test
    void snakemakeRunsATwoStepWorkflowThroughGantry() throws Exception {
        assumeTrue(onPath("snakemake"), "runs Snakemake 7's Slurm executor: apt-get install snakemake");
        Path work = Files.createDirectories(dir.resolve("snakemake"));
        Files.writeString(work.resolve("Snakefile"), """
                rule all:
                    input: "result.txt"

                rule first:
                    output: "first.txt"
                    shell: "echo hello-from-step-one > {output}"

                rule second:
                    input: "first.txt"
                    output: "result.txt"
                    shell: "tr a-z A-Z < {input} > {output}; echo step-two >> {output}"
                """);
        List<String> before = jobIds(work);
        // Snakemake's Slurm executor checks its jobs every 33 s unless told at most 1 a second (it takes more than
        // 1 for its default of 10 and slows to 0.03): a site polls as often as its controller can bear.
        Run run = run(work, List.of("snakemake", "--slurm", "--jobs", "2", "--latency-wait", "30",
                "--max-status-checks-per-second", "1", "--default-resources", "slurm_partition=cpu", "slurm_account=root",
                "mem_mb=1000", "runtime=5", "--cores", "1"), Map.of());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(Files.readString(work.resolve("result.txt"))).isEqualTo("HELLO-FROM-STEP-ONE\nstep-two\n");
        assertTwoJobsCompleted(work, before, run.output());
    }

    /**
     * Toil 5.9.2's Slurm batch system: a root job and its child (asking more memory, so Toil's worker cannot
     * chain it into the root's batch job), each a job Toil submits with sbatch and follows with squeue and
     * sacct, the child reading the file the root wrote.
     */
    @Test
    void toilRunsATwoStepWorkflowThroughGantry() throws Exception {
        assumeTrue(toil() != null, "runs Toil's Slurm batch system: apt-get install toil");
        Path work = Files.createDirectories(dir.resolve("toil"));
        Files.writeString(work.resolve("workflow.py"), """
                import sys
                from toil.common import Toil
                from toil.job import Job


                def first(job, out):
                    with open(out + ".first", "w") as f:
                        f.write("hello-from-step-one\\n")
                    # more memory than this job has, so Toil's worker cannot chain it here: a job of its own
                    return job.addChildJobFn(second, out, memory="1100M").rv()


                def second(job, out):
                    with open(out + ".first") as f:
                        text = f.read().upper()
                    with open(out, "w") as f:
                        f.write(text + "step-two\\n")
                    return "done"


                if __name__ == "__main__":
                    parser = Job.Runner.getDefaultArgumentParser()
                    parser.add_argument("out")
                    options = parser.parse_args()
                    with Toil(options) as toil:
                        print("result:", toil.start(Job.wrapJobFn(first, options.out)))
                """);
        Path result = work.resolve("result.txt");
        List<String> before = jobIds(work);
        // the Python Debian's toil runs on (another python3 may come first on PATH)
        String python = Files.readAllLines(Path.of(toil())).get(0).substring(2).strip();
        Run run = run(work, List.of(python, "workflow.py", "--batchSystem", "slurm", "--disableCaching",
                "--defaultMemory", "1G", "--defaultDisk", "10M", "--defaultCores", "1", "--logInfo",
                work.resolve("jobstore").toString(), result.toString()),
                Map.of("TOIL_SLURM_ARGS", "--partition=cpu"));
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("result: done");
        assertThat(Files.readString(result)).isEqualTo("HELLO-FROM-STEP-ONE\nstep-two\n");
        assertTwoJobsCompleted(work, before, run.output());
    }

    /** Gantry's own sacct, run as a user would, shows the two jobs the tool submitted since {@code before} COMPLETED. */
    private void assertTwoJobsCompleted(Path work, List<String> before, String toolOutput) throws Exception {
        List<String> lines = sacct(work).stream().filter(l -> !before.contains(l.split("\\|")[0])).toList();
        assertThat(lines).as("the tool's jobs in sacct (the tool said:\n%s)", toolOutput).hasSize(2)
                .allMatch(l -> l.endsWith("|COMPLETED|0:0"));
    }

    /** Every job's line in {@code sacct -X -P}: id, name, state, exit code. */
    private List<String> sacct(Path work) throws Exception {
        Run sacct = run(work, List.of("sacct", "-X", "-n", "-P", "-S", "1970-01-01", "-o", "JobIDRaw,JobName,State,ExitCode"),
                Map.of());
        assertThat(sacct.exit()).as(sacct.output()).isZero();
        return sacct.output().lines().filter(l -> !l.isBlank()).toList();
    }

    private List<String> jobIds(Path work) throws Exception {
        return sacct(work).stream().map(l -> l.split("\\|")[0]).toList();
    }

    private Run run(Path work, List<String> command, Map<String, String> extra) throws IOException, InterruptedException {
        // the JVM looks a command up on its own PATH, not the child's: Gantry's launchers by their full path
        List<String> line = new java.util.ArrayList<>(command);
        if (Files.isExecutable(dir.resolve("bin").resolve(line.get(0)))) {
            line.set(0, dir.resolve("bin").resolve(line.get(0)).toString());
        }
        ProcessBuilder builder = new ProcessBuilder(line).directory(work.toFile());
        builder.environment().put("PATH", dir.resolve("bin") + File.pathSeparator + System.getenv("PATH"));
        builder.environment().put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        builder.environment().put("USER", "admin");
        builder.environment().put("GANTRY_URL", "http://127.0.0.1:" + controller.port());
        builder.environment().put("GANTRY_TOKEN", token);
        builder.environment().remove("GANTRY_CLUSTER");
        builder.environment().putAll(extra);
        Path log = work.resolve("tool-" + System.nanoTime() + ".log");
        Process process = builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = process.waitFor(8, TimeUnit.MINUTES);
        if (!ended) {
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(ended).as("%s ends; it said:\n%s", command, output).isTrue();
        return new Run(process.exitValue(), output);
    }

    private static boolean onPath(String tool) {
        return which(tool) != null;
    }

    private static String toil() {
        return which("toil");
    }

    private static String which(String tool) {
        for (String entry : System.getenv("PATH").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(entry, tool))) {
                return Path.of(entry, tool).toString();
            }
        }
        return null;
    }
}
