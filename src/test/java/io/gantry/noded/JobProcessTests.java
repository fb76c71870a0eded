package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.JobIdentity;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.AgentProtocol.NodeSettings;
import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.AgentProtocol.ReportType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real bash scripts run by a real {@link JobRunner}, in a temporary work dir. */
class JobProcessTests {

    private static final Instant NOW = Instant.parse("2030-01-02T03:04:05Z");
    /** The jobs here run as whoever runs the tests, root included (on CI). */
    private static final NodeSettings ROOT_JOBS_ALLOWED = new NodeSettings(true, null, 60, false, null, null);
    private static final UnixAccount ME;

    static {
        try {
            ME = UnixAccount.current();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @TempDir
    Path dir;

    private final BlockingQueue<Report> reports = new LinkedBlockingQueue<>();
    private final List<JobRunner> runners = new ArrayList<>();
    private JobRunner runner;

    @BeforeEach
    void startRunner() {
        runner = newRunner();
    }

    @AfterEach
    void stopRunners() {
        runners.forEach(JobRunner::close);
    }

    private JobRunner newRunner() {
        return newRunner(reports);
    }

    private JobRunner newRunner(BlockingQueue<Report> sink) {
        JobRunner r = new JobRunner("node1", AgentDirs.prepare(dir), Clock.fixed(NOW, ZoneOffset.UTC), sink::add,
                stepReport -> { }, ME, JobProcess.Fences.NONE, List.of());
        r.configure("node1", Duration.ofSeconds(1), ROOT_JOBS_ALLOWED);
        runners.add(r);
        return r;
    }

    static Launch launch(String jobId, String script, String workdir, String stdout, String stderr, long timeLimit,
            List<Integer> gpus) {
        return new Launch(jobId, 0, null, "train", "alice", "physics", "batch", "normal", script, workdir,
                Map.of("FROM_SUBMITTER", "yes"), stdout, stderr, timeLimit, NOW, "node[1-2]",
                List.of("node1", "node2"), 4, 2, 8, 2048, gpus, new JobIdentity(ME.name(), null, null));
    }

    private Launch launch(String jobId, String script) {
        return launch(jobId, script, dir.toString(), null, null, 0, List.of());
    }

    private Report next() throws InterruptedException {
        Report r = reports.poll(20, TimeUnit.SECONDS);
        assertThat(r).as("a report within 20 s").isNotNull();
        return r;
    }

    private Report startedThenEnded(String jobId) throws InterruptedException {
        Report started = next();
        assertThat(started.jobId()).isEqualTo(jobId);
        assertThat(started.type()).isEqualTo(ReportType.STARTED);
        assertThat(started.time()).isEqualTo(NOW);
        return ended(jobId);
    }

    private Report ended(String jobId) throws InterruptedException {
        Report ended = next();
        assertThat(ended.jobId()).isEqualTo(jobId);
        assertThat(ended.type()).isEqualTo(ReportType.ENDED);
        return ended;
    }

    private long pgidOf(String jobId) throws Exception {
        Path file = dir.resolve("state/jobs").resolve(jobId + ".pgid");
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(file));
        return Long.parseLong(Files.readString(file).strip());
    }

    private static boolean groupExists(long pgid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-0", "--", "-" + pgid).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        kill.waitFor();
        return kill.exitValue() == 0 && ProcessGroups.alive(pgid);
    }

    @Test
    void aSignalForAllButTheBatchShellReachesWhatItStartedAndAStepsOnlySignalWithoutStepsReachesNothing()
            throws Exception {
        Path trapped = dir.resolve("trapped");
        Path ready = dir.resolve("ready");
        Path stop = dir.resolve("stop");
        runner.launch(launch("61", """
                trap 'echo shell-usr1 >> %2$s' USR1
                ( trap 'echo child-usr1 >> %2$s' USR1; echo ready > %1$s
                  while [ ! -e %3$s ]; do sleep 0.1; done ) &
                while [ ! -e %3$s ]; do sleep 0.1; done
                wait
                """.formatted(ready, trapped, stop)));
        assertThat(next().type()).isEqualTo(ReportType.STARTED);
        // written by the child once its trap is set; the shell set its own before starting it
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(ready));

        runner.apply(List.of(io.gantry.noded.protocol.AgentProtocol.Command.jobSignal("61", "USR1",
                io.gantry.noded.protocol.AgentProtocol.SignalScope.STEPS)));
        runner.apply(List.of(io.gantry.noded.protocol.AgentProtocol.Command.jobSignal("61", "USR1",
                io.gantry.noded.protocol.AgentProtocol.SignalScope.CHILDREN)));
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(trapped));
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> Files.readAllLines(trapped).equals(java.util.List.of("child-usr1")));
        assertThat(Files.readAllLines(trapped)).as("the child once; not the shell, and no srun step ran")
                .containsExactly("child-usr1");

        Files.writeString(stop, "");
        Report ended = ended("61");
        assertThat(ended.state()).as("the shell that did not get it finished the script").isEqualTo("COMPLETED");
    }

    @Test
    void theScriptSeesTheJobInItsEnvironment() throws Exception {
        runner.launch(launch("42", "env | sort\n", dir.toString(), null, null, 0, List.of(1, 3)));
        Report ended = startedThenEnded("42");
        assertThat(ended.state()).isEqualTo("COMPLETED");
        assertThat(ended.exitCode()).isZero();
        assertThat(ended.signal()).isNull();
        assertThat(ended.time()).isEqualTo(NOW);
        String out = Files.readString(dir.resolve("gantry-42.out"));
        assertThat(out.lines()).contains("SLURM_JOB_ID=42", "SLURM_JOBID=42", "GANTRY_JOB_ID=42",
                "SLURM_JOB_NODELIST=node[1-2]", "SLURM_NODELIST=node[1-2]", "GANTRY_NODELIST=node[1-2]",
                "CUDA_VISIBLE_DEVICES=1,3", "GPU_DEVICE_ORDINAL=1,3", "SLURM_JOB_GPUS=1,3", "SLURM_NTASKS=4",
                "GANTRY_NTASKS=4", "SLURM_NNODES=2", "SLURM_JOB_NUM_NODES=2", "SLURM_CPUS_PER_TASK=2",
                "SLURM_CPUS_ON_NODE=8", "SLURM_MEM_PER_NODE=2048", "SLURM_JOB_NAME=train", "SLURM_JOB_USER=" + ME.name(),
                "SLURM_JOB_ACCOUNT=physics", "SLURM_JOB_PARTITION=batch", "SLURM_JOB_QOS=normal",
                "SLURMD_NODENAME=node1", "SLURM_NODEID=0", "SLURM_PROCID=0", "SLURM_SUBMIT_DIR=" + dir,
                "FROM_SUBMITTER=yes");
        assertThat(out).doesNotContain("SLURM_ARRAY_TASK_ID").doesNotContain("GANTRY_JOIN_TOKEN");
        assertThat(dir.resolve("jobs/42/script.sh")).hasContent("env | sort\n");
        assertThat(dir.resolve("state/jobs/42.pgid")).doesNotExist();
    }

    @Test
    void anArrayTaskSeesItsIdsAndAJobWithoutGpusSeesNone() throws Exception {
        Launch task = new Launch("40_7", 40, 7, "sweep", "bob", "a", "p", "q", "env\n", dir.toString(), Map.of(),
                null, null, 0, NOW, "node1", List.of("node1"), 1, 1, 1, 100, List.of(),
                new JobIdentity(ME.name(), null, null));
        runner.launch(task);
        assertThat(startedThenEnded("40_7").state()).isEqualTo("COMPLETED");
        String out = Files.readString(dir.resolve("gantry-40_7.out"));
        assertThat(out.lines()).contains("SLURM_JOB_ID=40", "GANTRY_JOB_ID=40_7", "SLURM_ARRAY_JOB_ID=40",
                "SLURM_ARRAY_TASK_ID=7");
        assertThat(out).doesNotContain("CUDA_VISIBLE_DEVICES");
    }

    @Test
    void aFailingScriptEndsFailedWithItsExitCode() throws Exception {
        runner.launch(launch("43", "echo before\nexit 3\n"));
        Report ended = startedThenEnded("43");
        assertThat(ended.state()).isEqualTo("FAILED");
        assertThat(ended.exitCode()).isEqualTo(3);
        assertThat(ended.signal()).isNull();
        assertThat(dir.resolve("gantry-43.out")).hasContent("before");
    }

    @Test
    void theTimeLimitStopsTheWholeProcessGroup() throws Exception {
        runner.launch(launch("44", "sleep 300 &\necho $! > child.pid\nsleep 300\n", dir.toString(), null, null, 1,
                List.of()));
        long pgid = pgidOf("44");
        assertThat(groupExists(pgid)).isTrue();
        long started = System.nanoTime();
        Report ended = startedThenEnded("44");
        assertThat(ended.state()).isEqualTo("TIMEOUT");
        assertThat(ended.exitCode()).isNull();
        assertThat(ended.signal()).isEqualTo(15);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        long child = Long.parseLong(Files.readString(dir.resolve("child.pid")).strip());
        await("process group " + pgid + " is gone").atMost(Duration.ofSeconds(5)).until(() -> !groupExists(pgid));
        assertThat(ProcessGroups.stat(child).filter(s -> s.state() != 'Z').isPresent())
                .as("the background child %d is gone (or a zombie waiting for init)", child).isFalse();
        assertThat(runner.runningJobs()).isEmpty();
    }

    @Test
    void aKillCommandCancelsTheJob() throws Exception {
        runner.apply(List.of(Command.launch(launch("45", "sleep 300\n"))));
        assertThat(next().type()).isEqualTo(ReportType.STARTED);
        assertThat(runner.runningJobs()).containsExactly("45");
        runner.apply(List.of(Command.kill("45", "CANCELLED", "cancelled by alice")));
        Report ended = ended("45");
        assertThat(ended.state()).isEqualTo("CANCELLED");
        assertThat(ended.signal()).isEqualTo(15);
        assertThat(ended.exitCode()).isNull();
        assertThat(ended.detail()).isEqualTo("cancelled by alice");
    }

    @Test
    void aScriptThatIgnoresSigtermIsKilledAfterTheKillWait() throws Exception {
        runner.launch(launch("46", "trap '' TERM\nsleep 300 &\nsleep 300\n"));
        assertThat(next().type()).isEqualTo(ReportType.STARTED);
        long pgid = pgidOf("46");
        long start = System.nanoTime();
        runner.kill("46", "CANCELLED", null);
        Report ended = ended("46");
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(ended.state()).isEqualTo("CANCELLED");
        assertThat(ended.signal()).isEqualTo(9);
        assertThat(waited).isBetween(900L, 8000L);
        await().atMost(Duration.ofSeconds(5)).until(() -> !groupExists(pgid));
    }

    @Test
    void aMissingWorkingDirectoryFailsTheJob() throws Exception {
        runner.launch(launch("47", "true\n", "/no/such/dir", null, null, 0, List.of()));
        Report ended = ended("47");
        assertThat(ended.state()).isEqualTo("FAILED");
        assertThat(ended.exitCode()).isEqualTo(1);
        assertThat(ended.detail()).isEqualTo("the working directory /no/such/dir does not exist (on node1)");
    }

    @Test
    void anOutputFileThatCannotBeOpenedFailsTheJob() throws Exception {
        runner.launch(launch("48", "true\n", dir.toString(), "no-such-dir/out-%j.txt", null, 0, List.of()));
        Report ended = ended("48");
        assertThat(ended.state()).isEqualTo("FAILED");
        assertThat(ended.detail()).contains("no-such-dir/out-48.txt");
    }

    @Test
    void writesStdoutAndStderrToSeparateFilesWhenAskedAndTruncatesThem() throws Exception {
        Files.writeString(dir.resolve("out-49.txt"), "old content that must go away\n");
        runner.launch(launch("49", "echo to-out\necho to-err >&2\n", dir.toString(), "out-%j.txt",
                dir.resolve("err-%x.txt").toString(), 0, List.of()));
        assertThat(startedThenEnded("49").state()).isEqualTo("COMPLETED");
        assertThat(dir.resolve("out-49.txt")).hasContent("to-out");
        assertThat(dir.resolve("err-train.txt")).hasContent("to-err");
    }

    @Test
    void mergesStderrIntoStdoutByDefault() throws Exception {
        runner.launch(launch("50", "echo one\necho two >&2\n", dir.toString(), "both.txt", null, 0, List.of()));
        assertThat(startedThenEnded("50").state()).isEqualTo("COMPLETED");
        assertThat(Files.readString(dir.resolve("both.txt")).lines()).containsExactly("one", "two");
    }

    @Test
    void ignoresARepeatedLaunchAndReportsAKillForAnUnknownJob() throws Exception {
        runner.launch(launch("51", "exit 0\n"));
        assertThat(startedThenEnded("51").state()).isEqualTo("COMPLETED");
        runner.launch(launch("51", "exit 0\n"));
        runner.kill("99", "CANCELLED", null);
        Report ended = ended("99");
        assertThat(ended.state()).isEqualTo("CANCELLED");
        assertThat(ended.detail()).isEqualTo("not running on node1");
        assertThat(reports.poll(300, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void aRestartedAgentKillsTheJobsAnEarlierRunLeft() throws Exception {
        runner.launch(launch("52", "sleep 300 &\nsleep 300\n"));
        assertThat(next().type()).isEqualTo(ReportType.STARTED);
        long pgid = pgidOf("52");
        JobRunner restarted = newRunner();
        assertThat(restarted.killLeftovers()).isEqualTo(1);
        assertThat(ended("52").state()).isEqualTo("FAILED"); // the first runner sees its script die of SIGKILL
        await().atMost(Duration.ofSeconds(5)).until(() -> !groupExists(pgid));
        assertThat(dir.resolve("state/jobs/52.pgid")).doesNotExist();
    }

    @Test
    void aRestartedAgentAdoptsTheJobAnEarlierRunLeftAndReportsItsRealEnd() throws Exception {
        runner.launch(launch("53", "sleep 2\nexit 4\n"));
        assertThat(next().type()).isEqualTo(ReportType.STARTED);
        BlockingQueue<Report> afterRestart = new LinkedBlockingQueue<>();
        JobRunner restarted = newRunner(afterRestart);
        assertThat(restarted.adoptLeftovers()).isEqualTo(1);
        assertThat(restarted.runningJobs()).containsExactly("53");
        Report ended = afterRestart.poll(20, TimeUnit.SECONDS);
        assertThat(ended).isNotNull();
        assertThat(ended.type()).isEqualTo(ReportType.ENDED);
        assertThat(ended.state()).isEqualTo("FAILED");
        assertThat(ended.exitCode()).isEqualTo(4);
        assertThat(ended.runStart()).isEqualTo(NOW);
        await().atMost(Duration.ofSeconds(5)).until(() -> restarted.runningJobs().isEmpty());
    }

    @Test
    void anAdoptedJobIsStoppedByTheRestartedAgent() throws Exception {
        runner.launch(launch("54", "sleep 300\n"));
        assertThat(next().type()).isEqualTo(ReportType.STARTED);
        BlockingQueue<Report> afterRestart = new LinkedBlockingQueue<>();
        JobRunner restarted = newRunner(afterRestart);
        assertThat(restarted.adoptLeftovers()).isEqualTo(1);
        restarted.kill("54", "CANCELLED", "cancelled after the agent restarted");
        Report ended = afterRestart.poll(20, TimeUnit.SECONDS);
        assertThat(ended).isNotNull();
        assertThat(ended.state()).isEqualTo("CANCELLED");
        assertThat(ended.detail()).isEqualTo("cancelled after the agent restarted");
    }

    @Test
    void aPrologAndEpilogRunAroundTheJobAndAFailingPrologFailsItWithItsOutput() throws Exception {
        Path log = dir.resolve("prolog-epilog.log");
        Path prolog = dir.resolve("prolog.sh");
        Path epilog = dir.resolve("epilog.sh");
        Files.writeString(prolog, "#!/bin/bash\necho \"prolog $SLURM_JOB_ID $SLURM_JOB_USER\" >> " + log
                + "\n[ \"$SLURM_JOB_ID\" != 56 ] || { echo 'scratch is not mounted'; exit 1; }\n");
        Files.writeString(epilog, "#!/bin/bash\necho \"epilog $SLURM_JOB_ID\" >> " + log + "\n");
        Files.setPosixFilePermissions(prolog, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(epilog, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        runner.configure("node1", Duration.ofSeconds(1), new NodeSettings(true, null, 60, false, prolog.toString(),
                epilog.toString()));

        runner.launch(launch("55", "echo job >> " + log + "\n"));
        assertThat(startedThenEnded("55").state()).isEqualTo("COMPLETED");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(Files.readAllLines(log))
                .containsExactly("prolog 55 " + ME.name(), "job", "epilog 55"));

        runner.launch(launch("56", "echo never >> " + log + "\n"));
        Report failed = ended("56");
        assertThat(failed.state()).isEqualTo("FAILED");
        assertThat(failed.detail()).contains("prolog", "failed on node1", "scratch is not mounted");
        assertThat(Files.readAllLines(log)).doesNotContain("never");
    }
}
