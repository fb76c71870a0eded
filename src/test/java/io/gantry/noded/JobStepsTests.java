package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.JobIdentity;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.AgentProtocol.NodeSettings;
import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.AgentProtocol.ReportType;
import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import io.gantry.noded.protocol.AgentProtocol.StepTask;
import io.gantry.noded.protocol.AgentProtocol.StepTasks;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real step tasks started by a real {@link JobRunner}, as whoever runs the tests. */
class JobStepsTests {

    private static final Instant NOW = Instant.parse("2030-01-02T03:04:05Z");
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
    private final BlockingQueue<StepReport> stepReports = new LinkedBlockingQueue<>();
    private JobRunner runner;

    @BeforeEach
    void startRunner() {
        runner = new JobRunner("node2", AgentDirs.prepare(dir), Clock.fixed(NOW, ZoneOffset.UTC), reports::add,
                stepReports::add, ME, JobProcess.Fences.NONE,
                List.of(URI.create("http://ctl1:8080/"), URI.create("http://ctl2:8080")));
        runner.configure("node2", Duration.ofMillis(500), ROOT_JOBS_ALLOWED);
    }

    @AfterEach
    void stopRunner() {
        runner.close();
    }

    private StepTasks step(String jobId, int stepId, List<String> argv, List<StepTask> tasks,
            Map<String, String> environment) {
        return new StepTasks(jobId, stepId, argv, tasks, dir.toString(), 1, environment, null);
    }

    private static Map<String, String> owner() {
        return Map.of("SLURM_JOB_USER", ME.name(), "SLURM_MEM_PER_NODE", "512");
    }

    /** Step reports until every one of {@code procIds} has ENDED, by task in the order they came. */
    private Map<Integer, List<StepReport>> untilEnded(int... procIds) throws InterruptedException {
        Map<Integer, List<StepReport>> byTask = new HashMap<>();
        int ended = 0;
        while (ended < procIds.length) {
            StepReport r = stepReports.poll(20, TimeUnit.SECONDS);
            assertThat(r).as("a step report within 20 s").isNotNull();
            byTask.computeIfAbsent(r.procId(), p -> new ArrayList<>()).add(r);
            if (r.type() == StepReportType.ENDED) {
                ended++;
            }
        }
        assertThat(byTask).containsOnlyKeys(java.util.Arrays.stream(procIds).boxed().toList());
        return byTask;
    }

    private StepReport awaitOutput(String text) throws InterruptedException {
        while (true) {
            StepReport r = stepReports.poll(20, TimeUnit.SECONDS);
            assertThat(r).as("output '%s' within 20 s", text).isNotNull();
            if (r.type() == StepReportType.OUTPUT && r.data().contains(text)) {
                return r;
            }
        }
    }

    private static String output(List<StepReport> reports, String stream) {
        StringBuilder text = new StringBuilder();
        reports.stream().filter(r -> r.type() == StepReportType.OUTPUT && r.stream().equals(stream))
                .forEach(r -> text.append(r.data()));
        return text.toString();
    }

    private static StepReport end(List<StepReport> reports) {
        return reports.get(reports.size() - 1);
    }

    @Test
    void aJobSignalReachesEachStepTaskOnANodeWithoutTheBatchScriptOnceAndDoesNotStopIt() throws Exception {
        String script = "trap 'echo got-usr1' USR1; echo ready; n=0; while [ $n -lt 40 ]; do sleep 0.1; n=$((n+1)); done";
        runner.apply(List.of(Command.stepLaunch(step("62", 0, List.of("bash", "-c", script),
                List.of(new StepTask(0, 0, null), new StepTask(1, 1, null)), owner()))));
        // each task prints it once its trap is set
        awaitOutput("ready");
        awaitOutput("ready");
        runner.apply(List.of(Command.jobSignal("62", "SIGUSR1", io.gantry.noded.protocol.AgentProtocol.SignalScope.JOB)));
        Map<Integer, List<StepReport>> byTask = untilEnded(0, 1);
        for (int procId : new int[] {0, 1}) {
            List<StepReport> task = byTask.get(procId);
            assertThat(output(task, "stdout")).as("task %d trapped it once", procId).isEqualTo("got-usr1\n");
            assertThat(end(task).exitCode()).as("and finished its loop").isZero();
        }
    }

    @Test
    void eachTaskSeesItsRankAndItsGpusAndItsOutputAndExitAreReportedInOrder() throws Exception {
        String script = "echo \"$SLURM_PROCID $SLURM_LOCALID $SLURM_NODEID $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES"
                + " $SLURM_STEP_ID $FROM_STEP $SLURM_JOB_USER $GANTRY_URL\"; echo \"${PATH%%:*}\"; pwd;"
                + " echo oops >&2; exit $((SLURM_PROCID + 1))";
        Map<String, String> env = new HashMap<>(owner());
        env.put("FROM_STEP", "yes");
        runner.apply(List.of(Command.stepLaunch(step("60", 0, List.of("bash", "-c", script),
                List.of(new StepTask(2, 0, List.of(0)), new StepTask(3, 1, List.of(1))), env))));

        Map<Integer, List<StepReport>> byTask = untilEnded(2, 3);
        for (int procId : new int[] {2, 3}) {
            List<StepReport> task = byTask.get(procId);
            assertThat(output(task, "stdout")).isEqualTo(procId + " " + (procId - 2) + " 1 node2 " + (procId - 2)
                    + " 0 yes " + ME.name() + " http://ctl1:8080,http://ctl2:8080\n" + dir.resolve("bin") + "\n"
                    + dir + "\n");
            assertThat(output(task, "stderr")).isEqualTo("oops\n");
            for (int i = 0; i < task.size(); i++) {
                assertThat(task.get(i).seq()).as("seq of report %d of task %d", i, procId).isEqualTo(i);
                assertThat(task.get(i).jobId()).isEqualTo("60");
            }
            StepReport end = end(task);
            assertThat(end.type()).isEqualTo(StepReportType.ENDED);
            assertThat(end.exitCode()).isEqualTo(procId + 1);
            assertThat(end.signal()).isNull();
        }
        assertThat(reports).as("no batch report for a job whose script does not run here").isEmpty();
    }

    @Test
    void onTheBatchNodeTasksGetTheJobsEnvironmentAndAKillOfTheJobEndsThem() throws Exception {
        Launch launch = new Launch("61", 0, null, "train", "alice", "physics", "batch", "normal", "sleep 300\n",
                dir.toString(), Map.of("FROM_SUBMITTER", "yes"), null, null, 0, NOW, "node[1-2]",
                List.of("node1", "node2"), 2, 1, 2, 1024, List.of(), new JobIdentity(ME.name(), null, null));
        runner.apply(List.of(Command.launch(launch)));
        assertThat(reports.poll(20, TimeUnit.SECONDS).type()).isEqualTo(ReportType.STARTED);

        runner.apply(List.of(Command.stepLaunch(step("61", 0, List.of("bash", "-c",
                "echo \"up $SLURM_JOB_ID $SLURM_JOB_NODELIST $FROM_SUBMITTER $SLURM_PROCID\"; exec sleep 300"),
                List.of(new StepTask(0, 0, null)), Map.of()))));
        assertThat(awaitOutput("up").data()).isEqualTo("up 61 node[1-2] yes 0\n");

        runner.apply(List.of(Command.kill("61", "CANCELLED", "cancelled by alice")));
        StepReport ended = untilEnded(0).get(0).get(0);
        assertThat(ended.type()).isEqualTo(StepReportType.ENDED);
        assertThat(ended.signal()).isEqualTo(15);
        Report batch = reports.poll(20, TimeUnit.SECONDS);
        assertThat(batch.type()).isEqualTo(ReportType.ENDED);
        assertThat(batch.state()).isEqualTo("CANCELLED");
    }

    @Test
    void aStepSignalEndsTheStepsTasksAndTheirChildren() throws Exception {
        runner.apply(List.of(Command.stepLaunch(step("62", 4, List.of("bash", "-c",
                "sleep 300 & echo \"child $!\"; wait"), List.of(new StepTask(0, 0, null)), owner()))));
        long child = Long.parseLong(awaitOutput("child").data().strip().split(" ")[1]);

        runner.apply(List.of(Command.stepSignal("62", 3, "TERM"))); // another step: untouched
        runner.apply(List.of(Command.stepSignal("62", 4, "SIGTERM")));
        StepReport ended = untilEnded(0).get(0).get(0);
        assertThat(ended.signal()).isEqualTo(15);
        assertThat(ended.exitCode()).isNull();
        assertThat(ProcessGroups.stat(child).filter(s -> s.state() != 'Z').isPresent())
                .as("the task's child %d is gone", child).isFalse();
    }

    @Test
    void aKillOfAJobWithOnlyTasksHereKillsThemWithoutABatchReport() throws Exception {
        runner.apply(List.of(Command.stepLaunch(step("63", 0, List.of("bash", "-c",
                "trap '' TERM; echo up; while :; do sleep 1; done"), List.of(new StepTask(1, 0, null)), owner()))));
        awaitOutput("up");

        runner.apply(List.of(Command.kill("63", "CANCELLED", null)));
        StepReport ended = untilEnded(1).get(1).get(0);
        assertThat(ended.signal()).as("SIGKILL after the kill wait, as the task ignores SIGTERM").isEqualTo(9);
        assertThat(reports).isEmpty();

        runner.apply(List.of(Command.kill("64", "CANCELLED", null)));
        assertThat(reports.poll()).as("a job that never ran here is still reported ended")
                .extracting(Report::jobId, Report::type).containsExactly("64", ReportType.ENDED);
    }

    @Test
    void aTaskThatCannotStartEndsWithExitCodeOneAndWhy() throws Exception {
        runner.apply(List.of(Command.stepLaunch(new StepTasks("65", 0, List.of("true"),
                List.of(new StepTask(0, 0, null)), dir.resolve("missing").toString(), 0, owner(), null))));
        StepReport ended = untilEnded(0).get(0).get(0);
        assertThat(ended.type()).isEqualTo(StepReportType.ENDED);
        assertThat(ended.exitCode()).isEqualTo(1);
        assertThat(ended.data()).contains("the working directory " + dir.resolve("missing") + " does not exist");

        runner.apply(List.of(Command.stepLaunch(step("66", 0, List.of("true"), List.of(new StepTask(0, 0, null)),
                Map.of("SLURM_JOB_USER", "no-such-user-here")))));
        StepReport unknown = untilEnded(0).get(0).get(0);
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.data()).isNotBlank();
    }

    @Test
    void aRepeatedStepLaunchStartsNothingMore() throws Exception {
        Command launch = Command.stepLaunch(step("67", 0, List.of("echo", "once"), List.of(new StepTask(0, 0, null)),
                owner()));
        runner.apply(List.of(launch, launch));
        List<StepReport> task = untilEnded(0).get(0);
        assertThat(output(task, "stdout")).isEqualTo("once\n");
        assertThat(stepReports.poll(300, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void aLargeStepStartsOffTheCallersThreadSoTheAgentKeepsPolling() throws Exception {
        // 8 tasks with 1.8 MB of environment each: their stages take seconds to read it all
        Map<String, String> env = new HashMap<>(owner());
        for (int i = 0; i < 18; i++) {
            env.put("BIG_" + i, "x".repeat(100_000));
        }
        List<StepTask> tasks = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            tasks.add(new StepTask(i, i, null));
        }
        long started = System.nanoTime();
        runner.apply(List.of(Command.stepLaunch(step("70", 0, List.of("bash", "-c", "echo ${#BIG_17}"), tasks, env))));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(millis).as("apply() runs on the poll loop: it must not wait for the tasks to start").isLessThan(500);
        Map<Integer, List<StepReport>> byTask = untilEnded(0, 1, 2, 3, 4, 5, 6, 7);
        byTask.values().forEach(task -> {
            assertThat(output(task, "stdout")).isEqualTo("100000\n");
            assertThat(end(task).exitCode()).isZero();
        });
    }

    @Test
    void aStepTooLargeForTheKernelFailsAtOnceWithWhy() throws Exception {
        Map<String, String> env = new HashMap<>(owner());
        for (int i = 0; i < 25; i++) {
            env.put("BIG_" + i, "x".repeat(100_000));
        }
        runner.apply(List.of(Command.stepLaunch(step("71", 0, List.of("true"), List.of(new StepTask(0, 0, null)),
                env))));
        StepReport ended = untilEnded(0).get(0).get(0);
        assertThat(ended.exitCode()).isEqualTo(1);
        assertThat(ended.data()).contains("Argument list too long");
    }

    @Test
    void aKillRightAfterAStepLaunchLeavesNoTaskOfIt() throws Exception {
        String marker = "7" + (ProcessHandle.current().pid() % 1000) + "31";
        runner.apply(List.of(Command.stepLaunch(step("72", 0, List.of("sleep", marker),
                List.of(new StepTask(0, 0, null)), owner())), Command.kill("72", "CANCELLED", null)));
        StepReport ended = end(untilEnded(0).get(0));
        assertThat(ended.type()).isEqualTo(StepReportType.ENDED);
        assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("")
                .equals("sleep " + marker)).count()).isZero();
    }

    @Test
    void jobsFindSrunInTheAgentsBinDirectory() throws Exception {
        Path srun = dir.resolve("bin/srun");
        assertThat(srun).isExecutable();
        assertThat(Files.getPosixFilePermissions(dir.resolve("bin")))
                .isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(Files.readString(srun)).contains("io.gantry.cli.srun.Srun \"$@\"");
        assertThat(Files.readString(dir.resolve("bin/gantry"))).contains("srun)");
    }

    @Test
    void srunOnTheTasksPathRunsAndTellsWhenItIsNotInsideAnAllocation() throws Exception {
        runner.apply(List.of(Command.stepLaunch(step("68", 0, List.of("bash", "-c",
                "srun --version; gantry srun hostname; echo \"rc=$?\""), List.of(new StepTask(0, 0, null)),
                owner()))));
        List<StepReport> task = untilEnded(0).get(0);
        assertThat(output(task, "stdout")).isEqualTo("slurm 22.05 (gantry srun)\nrc=1\n");
        assertThat(output(task, "stderr"))
                .isEqualTo("srun: error: not inside a job allocation, and not logged in: run 'gantry login' (or set "
                        + "GANTRY_URL and GANTRY_TOKEN) to run srun from here\n");
    }

    @Test
    void onANodeWithoutTheBatchScriptTasksGetACgroupOfTheJobsOwnForAsLongAsTheyRun() throws Exception {
        boolean root = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .anyMatch(l -> l.matches("Uid:\\s+0\\s.*"));
        Cgroups cgroups = Cgroups.detect();
        org.junit.jupiter.api.Assumptions.assumeTrue(root && cgroups.available()
                && !cgroups.controllers().get(Cgroups.Controller.MEMORY).unified(), "needs root and cgroup v1");
        String node = "steptest" + ProcessHandle.current().pid();
        runner.close();
        runner = new JobRunner(node, AgentDirs.prepare(dir), Clock.fixed(NOW, ZoneOffset.UTC), reports::add,
                stepReports::add, ME, CgroupFence.of(cgroups, () -> node, 0), List.of());
        runner.configure(node, Duration.ofMillis(500), ROOT_JOBS_ALLOWED);
        Path memory = cgroups.jobPath(cgroups.controllers().get(Cgroups.Controller.MEMORY).mount(), node, "69");
        try {
            runner.apply(List.of(Command.stepLaunch(step("69", 0, List.of("bash", "-c",
                    "grep memory /proc/self/cgroup; echo up; sleep 300"),
                    List.of(new StepTask(0, 0, null), new StepTask(1, 1, null)), owner()))));
            assertThat(awaitOutput("job_69").data()).contains("/gantry/" + node + "/job_69");
            assertThat(Files.readString(memory.resolve("memory.limit_in_bytes")).strip())
                    .isEqualTo(Long.toString(512L << 20));
            runner.apply(List.of(Command.stepSignal("69", 0, "KILL")));
            untilEnded(0, 1);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !Files.exists(memory));
        } finally {
            for (Cgroups.Hierarchy h : java.util.Set.copyOf(cgroups.controllers().values())) {
                Path job = cgroups.jobPath(h.mount(), node, "69");
                Files.deleteIfExists(job);
                Files.deleteIfExists(job.getParent());
            }
        }
    }

    @Test
    void outputCutInsideACharacterWaitsForItsRest() {
        byte[] euro = "a€".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(TaskProcess.completeUtf8(java.util.Arrays.copyOf(euro, 2))).isEqualTo(1);
        assertThat(TaskProcess.completeUtf8(java.util.Arrays.copyOf(euro, 3))).isEqualTo(1);
        assertThat(TaskProcess.completeUtf8(euro)).isEqualTo(4);
        assertThat(TaskProcess.completeUtf8("abc".getBytes())).isEqualTo(3);
    }

    private long inputSeq;

    private void type(String jobId, int stepId, String text, boolean eof, Integer rows, Integer cols) {
        String data = text == null ? null
                : java.util.Base64.getEncoder().encodeToString(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        runner.apply(List.of(Command.stepInput(new io.gantry.noded.protocol.AgentProtocol.StepInput(jobId, stepId, 0,
                ++inputSeq, data, eof, rows, cols))));
    }

    @Test
    void task0ReadsWhatSrunSendsOnceEachAndTheOtherTasksReadNothing() throws Exception {
        io.gantry.noded.protocol.AgentProtocol.TaskStdin pipe = new io.gantry.noded.protocol.AgentProtocol.TaskStdin(
                false, null, null);
        runner.apply(List.of(Command.stepLaunch(step("70", 0, List.of("bash", "-c", "echo start; cat; echo end"),
                List.of(new StepTask(0, 0, null, pipe), new StepTask(1, 1, null)), owner()))));
        type("70", 0, "first line\n", false, null, null);
        // a repeat of a number already written (the controller sent it twice) is not written again
        runner.apply(List.of(Command.stepInput(new io.gantry.noded.protocol.AgentProtocol.StepInput("70", 0, 0,
                inputSeq, java.util.Base64.getEncoder().encodeToString("first line\n".getBytes()), false, null,
                null))));
        type("70", 0, "second\n", true, null, null);
        Map<Integer, List<StepReport>> byTask = untilEnded(0, 1);
        assertThat(output(byTask.get(0), "stdout")).isEqualTo("start\nfirst line\nsecond\nend\n");
        assertThat(end(byTask.get(0)).exitCode()).isZero();
        // task 1's cat read /dev/null: it ended at once, with nothing
        assertThat(output(byTask.get(1), "stdout")).isEqualTo("start\nend\n");
    }

    @Test
    void aPtyTaskRunsOnAPseudoTerminalOfTheAskedSizeFollowsResizesTakesKeysAndEndsWithItsCode() throws Exception {
        io.gantry.noded.protocol.AgentProtocol.TaskStdin terminal =
                new io.gantry.noded.protocol.AgentProtocol.TaskStdin(true, 31, 101);
        String script = "tty; stty size; echo ready; read line; stty size; echo \"got:$line\"; "
                + "trap 'echo caught-int' INT; sleep 30; echo after-sleep; exit 3";
        runner.apply(List.of(Command.stepLaunch(step("71", 0, List.of("bash", "-c", script),
                List.of(new StepTask(0, 0, null, terminal)), owner()))));
        StringBuilder seen = new StringBuilder();
        awaitOutputInto(seen, "ready");
        assertThat(seen.toString()).contains("/dev/pts/").contains("31 101");
        // a new size, then a line typed as a terminal sends it (Enter is a carriage return)
        type("71", 0, null, false, 42, 120);
        type("71", 0, "hello\r", false, null, null);
        awaitOutputInto(seen, "got:hello");
        assertThat(seen.toString()).contains("42 120");
        // Ctrl-C as a key: the terminal sends SIGINT to the sleep in the foreground, the shell goes on
        type("71", 0, "\u0003", false, null, null);
        Map<Integer, List<StepReport>> byTask = untilEnded(0);
        String rest = output(byTask.get(0), "stdout");
        assertThat(rest).contains("caught-int").contains("after-sleep");
        assertThat(end(byTask.get(0)).exitCode()).isEqualTo(3);
    }

    private void awaitOutputInto(StringBuilder seen, String text) throws InterruptedException {
        while (!seen.toString().contains(text)) {
            StepReport r = stepReports.poll(20, TimeUnit.SECONDS);
            assertThat(r).as("output '%s' within 20 s (so far: %s)", text, seen).isNotNull();
            assertThat(r.type()).as("the task ended before '%s': %s", text, seen).isEqualTo(StepReportType.OUTPUT);
            seen.append(r.data());
        }
    }
}
