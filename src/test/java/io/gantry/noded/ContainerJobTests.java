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
import io.gantry.noded.protocol.ContainerSpec;
import io.gantry.support.TestRegistry;
import io.gantry.support.UnixAccounts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Batch scripts and step tasks in real rootless runc containers, their image built in the test from
 * the static busybox and pulled by the agent from a real {@code docker-registry} on 127.0.0.1. The
 * jobs run as a Unix user the test creates. Skipped unless root with runc, skopeo, umoci,
 * docker-registry and busybox-static ({@link TestRegistry#APT}).
 */
class ContainerJobTests {

    private static final Instant NOW = Instant.parse("2030-01-02T03:04:05Z");
    private static final String MARKER = "marker-" + ThreadLocalRandom.current().nextInt(100000, 999999);
    private static final UnixAccount ME;

    static {
        try {
            ME = UnixAccount.current();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @TempDir
    static Path registryDir;
    private static TestRegistry registry;
    private static String image;
    private static String digest;

    @TempDir
    Path dir;

    private final String user = "gctr" + ThreadLocalRandom.current().nextInt(10000, 99999);
    private boolean created;
    private UnixAccount owner;
    private Path home;
    private final BlockingQueue<Report> reports = new LinkedBlockingQueue<>();
    private final BlockingQueue<StepReport> stepReports = new LinkedBlockingQueue<>();
    /** The reports of pulls under way that {@link #untilEnded} passed over, in order. */
    private final List<Report> pulling = new ArrayList<>();
    private JobRunner runner;
    private Path devDir;

    @BeforeAll
    static void startRegistry() throws Exception {
        Assumptions.assumeTrue(ME.root(), "needs root: runs containers as another Unix user");
        String missing = TestRegistry.missingTools();
        Assumptions.assumeTrue(missing.isEmpty(), missing);
        registry = TestRegistry.start(registryDir);
        digest = registry.pushBusyboxImage("test:1", MARKER);
        image = registry.host() + "/test:1";
    }

    @AfterAll
    static void stopRegistry() {
        if (registry != null) {
            registry.close();
        }
    }

    @BeforeEach
    void createUserAndRunner() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        home = dir.resolve("home");
        UnixAccounts.addUser("-M", "-d", home.toString(), "-s", "/bin/sh", user);
        created = true;
        Files.createDirectories(home);
        TestRegistry.run(Duration.ofSeconds(30), "chown", user + ":", home.toString());
        owner = UnixAccount.lookup(user).orElseThrow();
        devDir = dir.resolve("dev");
        Files.createDirectories(devDir);
        runner = new JobRunner("node1", AgentDirs.prepare(dir.resolve("work")), Clock.fixed(NOW, ZoneOffset.UTC),
                reports::add, stepReports::add, ME, JobProcess.Fences.NONE, List.of());
        runner.configure("node1", Duration.ofSeconds(1), NodeSettings.DEFAULTS);
        runner.useContainers(new ContainerRuntime.Settings("runc", ContainerRuntime.Settings.DEFAULT_OCI_RUN,
                Path.of("/bin/busybox"), devDir, GpuDevices.byIndex(4, devDir),
                ContainerRuntime.Settings.DEFAULT_CACHE_BYTES));
    }

    @AfterEach
    void removeUser() throws Exception {
        if (runner != null) {
            runner.close();
        }
        if (created) {
            UnixAccounts.removeUser(user, false);
        }
    }

    private Launch launch(String jobId, String script, ContainerSpec container, List<Integer> gpus) {
        return new Launch(jobId, 0, null, "ctr", user, "physics", "batch", "normal", script, home.toString(),
                Map.of("FROM_SUBMITTER", "yes"), home.resolve(jobId + ".out").toString(), null, 60, NOW, "node1",
                List.of("node1"), 1, 1, 1, 256, gpus, new JobIdentity(user, null, null), null, null, null, container);
    }

    /** The job's reports up to its end, in order. */
    private List<Report> untilEnded(String jobId, int seconds) throws InterruptedException {
        List<Report> seen = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            Report r = reports.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            assertThat(r).as("job %s ends within %d s (so far %s)", jobId, seconds, seen).isNotNull();
            if (r.jobId().equals(jobId) && pulling(r)) {
                pulling.add(r);
            } else if (r.jobId().equals(jobId)) {
                seen.add(r);
                if (r.type() == ReportType.ENDED) {
                    return seen;
                }
            }
        }
    }

    /** An IMAGE report of a pull still under way (the start, or how far it is). */
    private static boolean pulling(Report r) {
        return r.type() == ReportType.IMAGE && r.image() != null && r.image().pullingBytes() != null;
    }

    private String output(String jobId) throws IOException {
        return Files.readString(home.resolve(jobId + ".out"), StandardCharsets.UTF_8);
    }

    private static ContainerSpec spec(String image, List<String> mounts, String workdir, String name,
            Boolean remapRoot) {
        return new ContainerSpec(image, null, mounts, workdir, name, null, null, remapRoot, null, null);
    }

    @Test
    void theBatchScriptRunsInsideAsItsOwnerWithABindMountAndAWorkdirAndTheSecondJobFindsTheImageCached()
            throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        Files.writeString(data.resolve("hostfile"), "from-the-host\n");
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(data.resolve("hostfile"), PosixFilePermissions.fromString("rw-r--r--"));
        String script = """
                #!/bin/sh
                echo "inside: $(cat /marker)"
                echo "uid: $(id -u)"
                echo "mounted: $(cat /data/hostfile)"
                echo "cwd: $(pwd)"
                echo "env: $IMAGE_VAR $FROM_SUBMITTER $SLURM_JOB_ID"
                echo "written" > /etc/written && echo "rootfs writable"
                """;
        runner.apply(List.of(Command.launch(launch("101", script, spec(image, List.of(data + ":/data:ro"), "/data",
                null, null), null))));
        List<Report> first = untilEnded("101", 60);
        assertThat(first).extracting(Report::type).containsExactly(ReportType.IMAGE, ReportType.STARTED,
                ReportType.ENDED);
        Report pulled = first.get(0);
        assertThat(pulled.image().pulled()).isTrue();
        assertThat(pulled.image().digest()).isEqualTo(digest);
        assertThat(pulling).as("the pull's start is reported before the image is there").hasSize(1)
                .allSatisfy(r -> {
                    assertThat(r.image().pullingBytes()).isZero();
                    assertThat(r.image().digest()).isEqualTo(digest);
                    assertThat(r.time()).isBeforeOrEqualTo(pulled.time());
                });
        assertThat(pulled.image().reference()).isEqualTo(image);
        assertThat(pulled.detail()).startsWith("Pulled image " + image + " (" + digest + ") on node1 in ");
        assertThat(first.get(2).state()).as(first.get(2).detail() + "\n" + output("101")).isEqualTo("COMPLETED");
        assertThat(output("101")).contains("inside: " + MARKER, "uid: " + owner.uid(), "mounted: from-the-host",
                "cwd: /data", "env: from-image yes 101", "rootfs writable");

        // the same image again, as root inside (the owner outside): not pulled again
        runner.apply(List.of(Command.launch(launch("102", "#!/bin/sh\necho \"uid: $(id -u)\"; cat /marker\n",
                spec(image, null, null, null, true), null))));
        List<Report> second = untilEnded("102", 60);
        assertThat(second.get(0).type()).isEqualTo(ReportType.IMAGE);
        assertThat(second.get(0).image().pulled()).isFalse();
        assertThat(second.get(0).detail()).isEqualTo("Image " + image + " (" + digest + ") found in node1's cache");
        assertThat(second.get(2).state()).as(second.get(2).detail()).isEqualTo("COMPLETED");
        assertThat(output("102")).contains("uid: 0", MARKER);
    }

    @Test
    void twoJobsStartingAtOnceShareOnePullAndACancelledContainerLeavesNoProcessBehind() throws Exception {
        String script = "#!/bin/sh\necho started; exec sleep 300\n";
        runner.apply(List.of(Command.launch(launch("111", script, spec(image, null, null, null, null), null)),
                Command.launch(launch("112", script, spec(image, null, null, null, null), null))));
        List<Report> images = new ArrayList<>();
        while (images.size() < 2) {
            Report r = reports.poll(60, TimeUnit.SECONDS);
            assertThat(r).as("both jobs' images within 60 s").isNotNull();
            if (r.type() == ReportType.IMAGE && !pulling(r)) {
                images.add(r);
            }
        }
        assertThat(images).extracting(r -> r.image().pulled()).containsExactlyInAnyOrder(true, false);
        // Both containers run their script's sleep (the runtime's own set-up processes are the owner's too, and
        // a cancel among them is another case).
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> userProcesses().stream()
                .filter(p -> commandLine(p).startsWith("sleep 300")).count() >= 2);
        runner.apply(List.of(Command.kill("111", "CANCELLED", "cancelled"), Command.kill("112", "CANCELLED",
                "cancelled")));
        List<Report> ends = new ArrayList<>();
        while (ends.size() < 2) {
            Report r = reports.poll(30, TimeUnit.SECONDS);
            assertThat(r).as("both jobs end within 30 s").isNotNull();
            if (r.type() == ReportType.ENDED) {
                ends.add(r);
            }
        }
        assertThat(ends).extracting(Report::state).containsOnly("CANCELLED");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> userProcesses().isEmpty());
        assertThat(dir.resolve("work/containers/run/111")).doesNotExist();
    }

    @Test
    void pastTheCacheLimitAnImageNoContainerUsesIsEvictedAndPulledAgain() throws Exception {
        runner.useContainers(new ContainerRuntime.Settings("runc", ContainerRuntime.Settings.DEFAULT_OCI_RUN,
                Path.of("/bin/busybox"), devDir, GpuDevices.none(), 1));
        for (String job : List.of("113", "114")) {
            runner.apply(List.of(Command.launch(launch(job, "#!/bin/sh\ncat /marker\n", spec(image, null, null,
                    null, null), null))));
            List<Report> seen = untilEnded(job, 60);
            assertThat(seen.get(0).image().pulled()).as("job %s pulls", job).isTrue();
            assertThat(seen.get(seen.size() - 1).state()).isEqualTo("COMPLETED");
            assertThat(output(job)).contains(MARKER);
        }
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            try (var images = Files.list(dir.resolve("work/containers/images"))) {
                return images.findAny().isEmpty();
            }
        });
    }

    @Test
    void theContainerStaysInTheJobsCgroup() throws Exception {
        Cgroups cgroups = Cgroups.detect();
        Assumptions.assumeTrue(cgroups.available(), "needs writable cgroups");
        String node = "ctrtest" + ThreadLocalRandom.current().nextInt(1000, 9999);
        JobRunner fenced = new JobRunner(node, AgentDirs.prepare(dir.resolve("work2")),
                Clock.fixed(NOW, ZoneOffset.UTC), reports::add, stepReports::add, ME,
                CgroupFence.of(cgroups, () -> node, 0), List.of());
        try {
            fenced.configure(node, Duration.ofSeconds(1), NodeSettings.DEFAULTS);
            fenced.useContainers(new ContainerRuntime.Settings("runc", ContainerRuntime.Settings.DEFAULT_OCI_RUN,
                    Path.of("/bin/busybox"), devDir, GpuDevices.none(), ContainerRuntime.Settings.DEFAULT_CACHE_BYTES));
            fenced.apply(List.of(Command.launch(launch("115", "#!/bin/sh\ncat /marker; cat /proc/self/cgroup\n",
                    spec(image, null, null, null, null), null))));
            List<Report> seen = untilEnded("115", 60);
            assertThat(seen.get(seen.size() - 1).state()).as(seen.get(seen.size() - 1).detail()).isEqualTo("COMPLETED");
            String out = output("115");
            assertThat(out).contains(MARKER);
            assertThat(out.lines().filter(l -> l.contains("memory")).findFirst().orElse(out))
                    .contains("/" + Cgroups.TOP + "/" + node + "/job_115");
        } finally {
            fenced.close();
        }
    }

    @Test
    void aPrivateRegistryTakesTheOwnersOwnCredentialsAndTheCacheGivesTheImageOnlyToWhomTheRegistryWould()
            throws Exception {
        Path auth = home.resolve(".config/containers/auth.json");
        try (TestRegistry locked = TestRegistry.start(dir.resolve("private-registry"), "alice", "s3cret")) {
            locked.pushBusyboxImage("private:1", MARKER);
            String privateImage = locked.host() + "/private:1";
            Files.createDirectories(auth.getParent());
            Files.writeString(auth, "{\"auths\": {\"" + locked.host() + "\": {\"auth\": \""
                    + java.util.Base64.getEncoder().encodeToString("alice:s3cret".getBytes(StandardCharsets.UTF_8))
                    + "\"}}}\n");
            TestRegistry.run(Duration.ofSeconds(10), "chown", "-R", user + ":", home.resolve(".config").toString());
            Files.setPosixFilePermissions(auth, PosixFilePermissions.fromString("rw-------"));
            runner.apply(List.of(Command.launch(launch("116", "#!/bin/sh\ncat /marker\n", spec(privateImage, null,
                    null, null, null), null))));
            List<Report> seen = untilEnded("116", 60);
            assertThat(seen.get(seen.size() - 1).state()).as(seen.get(seen.size() - 1).detail())
                    .isEqualTo("COMPLETED");
            assertThat(seen.get(0).image().pulled()).isTrue();
            assertThat(output("116")).contains(MARKER);

            // without them the registry says no, and so does the node's cache that has the image
            Files.delete(auth);
            runner.apply(List.of(Command.launch(launch("117", "#!/bin/sh\ncat /marker\n", spec(privateImage, null,
                    null, null, null), null))));
            Report refused = untilEnded("117", 30).get(0);
            assertThat(refused.state()).isEqualTo("FAILED");
            assertThat(refused.detail()).contains(privateImage).containsIgnoringCase("unauthorized");
        }
    }

    @Test
    void imageArchivesOnTheNodeReadOnlyRootsTheImagesEnvironmentAndItsEntrypoint() throws Exception {
        Path oci = home.resolve("image-oci.tar");
        Path docker = home.resolve("image-docker.tar");
        registry.saveArchive("test:1", oci, false);
        registry.saveArchive("test:1", docker, true);
        TestRegistry.run(Duration.ofSeconds(10), "chown", user + ":", oci.toString(), docker.toString());
        String script = "#!/bin/sh\ncat /marker; echo \"var=$IMAGE_VAR\"; touch /new 2>/dev/null || echo read-only\n";
        runner.apply(List.of(Command.launch(launch("118", script,
                new ContainerSpec(oci.toString(), null, null, null, null, null, null, null, false, null), null))));
        List<Report> seen = untilEnded("118", 60);
        assertThat(seen.get(seen.size() - 1).state()).as(seen.get(seen.size() - 1).detail()).isEqualTo("COMPLETED");
        assertThat(seen.get(0).image().reference()).isEqualTo(oci.toString());
        assertThat(output("118")).contains(MARKER, "var=from-image", "read-only");

        // the job's value of a variable the image sets, when --container-env names it; the image's entrypoint
        Launch withEnv = launch("119", script, new ContainerSpec(docker.toString(), null, null, null, null,
                List.of("IMAGE_VAR"), null, null, null, null), null);
        withEnv = new Launch(withEnv.jobId(), 0, null, "ctr", user, "physics", "batch", "normal", script,
                home.toString(), Map.of("IMAGE_VAR", "from-the-job"), withEnv.stdout(), null, 60, NOW, "node1",
                List.of("node1"), 1, 1, 1, 256, null, new JobIdentity(user, null, null), null, null, null,
                withEnv.container());
        runner.apply(List.of(Command.launch(withEnv)));
        seen = untilEnded("119", 60);
        assertThat(seen.get(seen.size() - 1).state()).as(seen.get(seen.size() - 1).detail()).isEqualTo("COMPLETED");
        assertThat(output("119")).contains(MARKER, "var=from-the-job").doesNotContain("read-only");
        runner.apply(List.of(Command.launch(launch("121", script, new ContainerSpec(docker.toString(), null, null,
                null, null, null, null, null, null, true), null))));
        seen = untilEnded("121", 60);
        assertThat(seen.get(seen.size() - 1).state()).as(seen.get(seen.size() - 1).detail()).isEqualTo("COMPLETED");
        // /bin/echo entrypoint-says, then the script as its arguments
        assertThat(output("121")).contains("entrypoint-says " + ContainerRuntime.SCRIPT).doesNotContain(MARKER);

        // an archive its owner may not read is refused
        Path hidden = dir.resolve("hidden.tar");
        Files.copy(oci, hidden);
        Files.setPosixFilePermissions(hidden, PosixFilePermissions.fromString("rw-------"));
        runner.apply(List.of(Command.launch(launch("120", script, spec(hidden.toString(), null, null, null, null),
                null))));
        Report refused = untilEnded("120", 30).get(0);
        assertThat(refused.state()).isEqualTo("FAILED");
        assertThat(refused.detail()).contains("user " + user + " may not read the image archive " + hidden);
    }

    /** The processes of the test's user still running. */
    /** The process's arguments as /proc has them, blank-separated; "" once it is gone. */
    private static String commandLine(ProcessHandle p) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline")).replace('\0', ' ').strip();
        } catch (IOException e) {
            return "";
        }
    }

    private List<ProcessHandle> userProcesses() {
        return ProcessHandle.allProcesses().filter(p -> p.info().user().map(user::equals).orElse(false)).toList();
    }

    @Test
    void anImageThatDoesNotExistFailsItsJobWithinSecondsWithTheRegistrysAnswer() throws Exception {
        long start = System.nanoTime();
        String missing = registry.host() + "/nope:1";
        runner.apply(List.of(Command.launch(launch("103", "#!/bin/sh\necho never\n", spec(missing, null, null, null,
                null), null))));
        List<Report> seen = untilEnded("103", 30);
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(30));
        Report end = seen.get(seen.size() - 1);
        assertThat(end.state()).isEqualTo("FAILED");
        assertThat(end.detail()).contains(missing, "manifest unknown", "node1");
        assertThat(seen).extracting(Report::type).doesNotContain(ReportType.STARTED);
    }

    @Test
    void aJobGivenGpusOneAndThreeSeesOnlyTheirDeviceFilesAndTheControlDevices() throws Exception {
        for (int i = 0; i < 4; i++) {
            TestRegistry.run(Duration.ofSeconds(10), "mknod", devDir.resolve("nvidia" + i).toString(), "c", "195",
                    Integer.toString(i));
        }
        TestRegistry.run(Duration.ofSeconds(10), "mknod", devDir.resolve("nvidiactl").toString(), "c", "195", "255");
        runner.apply(List.of(Command.launch(launch("104", "#!/bin/sh\necho devices: $(ls /dev | grep nvidia)\n",
                spec(image, null, null, null, null), List.of(1, 3)))));
        List<Report> seen = untilEnded("104", 60);
        assertThat(seen.get(seen.size() - 1).state()).as(seen.get(seen.size() - 1).detail()).isEqualTo("COMPLETED");
        assertThat(output("104")).contains("devices: nvidia1 nvidia3 nvidiactl\n");
    }

    @Test
    void aNamedContainerKeepsAFileFromOneStepForTheNext() throws Exception {
        ContainerSpec named = spec(image, null, null, "keep", null);
        Map<String, String> env = Map.of("SLURM_JOB_USER", user, "SLURM_MEM_PER_NODE", "256");
        runner.apply(List.of(Command.stepLaunch(new StepTasks("105", 0, List.of("/bin/sh", "-c",
                "echo kept-$SLURM_STEP_ID > /kept; echo wrote"), List.of(new StepTask(0, 0, null)),
                home.toString(), 0, env, null, named))));
        assertThat(stepOutput(0)).contains("wrote");
        runner.apply(List.of(Command.stepLaunch(new StepTasks("105", 1, List.of("/bin/sh", "-c",
                "cat /kept; cat /marker; id -u"), List.of(new StepTask(0, 0, null)), home.toString(), 0, env, null,
                named))));
        assertThat(stepOutput(1)).contains("kept-", MARKER, Long.toString(owner.uid()));
        // a step of its own container: a fresh copy without the named one's file, gone when the step is
        runner.apply(List.of(Command.stepLaunch(new StepTasks("105", 2, List.of("/bin/sh", "-c",
                "cat /kept 2>/dev/null || echo no-kept-file"), List.of(new StepTask(0, 0, null)), home.toString(), 0,
                env, null, spec(image, null, null, null, null)))));
        assertThat(stepOutput(2)).contains("no-kept-file");
        Path jobContainers = dir.resolve("work/containers/run/105");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> !Files.exists(jobContainers.resolve("s2")));
        assertThat(jobContainers.resolve("c-keep/rootfs/kept")).exists();
        // the image was reported once, for the step that made the container
        List<Report> images = new ArrayList<>();
        reports.drainTo(images);
        images.removeIf(ContainerJobTests::pulling);
        assertThat(images).extracting(Report::type).containsExactly(ReportType.IMAGE, ReportType.IMAGE);
        assertThat(images).extracting(r -> r.image().stepId()).containsExactly(0, 2);
        assertThat(images).extracting(r -> r.image().pulled()).containsExactly(true, false);
    }

    @Test
    void aPtyStepRunsOnAPseudoTerminalInsideANamedContainer() throws Exception {
        ContainerSpec named = spec(image, null, null, "shell", null);
        Map<String, String> env = Map.of("SLURM_JOB_USER", user, "SLURM_MEM_PER_NODE", "256");
        runner.apply(List.of(Command.stepLaunch(new StepTasks("110", 0, List.of("/bin/sh", "-c",
                "echo made-here > /made; echo made"), List.of(new StepTask(0, 0, null)), home.toString(), 0, env,
                null, named))));
        assertThat(stepOutput(0)).contains("made");
        // srun --pty --container-name=shell: a terminal of the asked size, in the container the job made
        io.gantry.noded.protocol.AgentProtocol.TaskStdin terminal =
                new io.gantry.noded.protocol.AgentProtocol.TaskStdin(true, 27, 93);
        runner.apply(List.of(Command.stepLaunch(new StepTasks("110", 1, List.of("/bin/sh", "-c",
                "tty; stty size; cat /made; [ -t 0 ] && echo stdin-is-a-terminal"),
                List.of(new StepTask(0, 0, null, terminal)), home.toString(), 0, env, null,
                new ContainerSpec(null, null, null, null, "shell", null, null, null, null, null)))));
        assertThat(stepOutput(1)).contains("/dev/pts/", "27 93", "made-here", "stdin-is-a-terminal");
    }

    @Test
    void everyTaskOfAStepRunsInsideWithItsOwnRank() throws Exception {
        Map<String, String> env = Map.of("SLURM_JOB_USER", user, "SLURM_MEM_PER_NODE", "256");
        runner.apply(List.of(Command.stepLaunch(new StepTasks("108", 0, List.of("/bin/sh", "-c",
                "echo \"rank $SLURM_PROCID of $(cat /marker) as $(id -u)\""), List.of(new StepTask(0, 0, null),
                new StepTask(1, 1, null), new StepTask(2, 2, null)), home.toString(), 0, env, null,
                spec(image, null, null, null, null)))));
        Map<Integer, StringBuilder> out = new java.util.HashMap<>();
        int ended = 0;
        while (ended < 3) {
            StepReport r = stepReports.poll(60, TimeUnit.SECONDS);
            assertThat(r).as("the step's tasks end within 60 s (so far %s)", out).isNotNull();
            if (r.type() == StepReportType.OUTPUT) {
                out.computeIfAbsent(r.procId(), p -> new StringBuilder()).append(r.data());
            } else if (r.type() == StepReportType.ENDED) {
                assertThat(r.exitCode()).as("task %d: %s %s", r.procId(), out.get(r.procId()), r.data()).isZero();
                ended++;
            }
        }
        for (int rank = 0; rank < 3; rank++) {
            assertThat(out.get(rank)).as("task %d", rank).hasToString("rank " + rank + " of " + MARKER + " as "
                    + owner.uid() + "\n");
        }
    }

    /** The output of task 0 of step {@code stepId} up to its end, which must be exit 0. */
    private String stepOutput(int stepId) throws InterruptedException {
        StringBuilder text = new StringBuilder();
        while (true) {
            StepReport r = stepReports.poll(60, TimeUnit.SECONDS);
            assertThat(r).as("step %d reports within 60 s (so far: %s)", stepId, text).isNotNull();
            if (r.stepId() != stepId) {
                continue;
            }
            if (r.type() == StepReportType.OUTPUT) {
                text.append(r.data());
            } else if (r.type() == StepReportType.ENDED) {
                assertThat(r.exitCode()).as("step %d: %s / %s", stepId, text, r.data()).isZero();
                return text.toString();
            }
        }
    }

    @Test
    void aPreparedOciBundleRunsTheJobsScriptAndStepsInsideAsItsOwner() throws Exception {
        Path bundle = home.resolve("bundle");
        Files.createDirectories(bundle.resolve("rootfs"));
        TestRegistry.run(Duration.ofSeconds(30), "cp", "-a", "/bin/busybox", bundle.resolve("rootfs").toString());
        Files.writeString(bundle.resolve("rootfs/marker"), "bundle-" + MARKER + "\n");
        TestRegistry.run(Duration.ofSeconds(30), "runc", "spec", "--rootless", "--bundle", bundle.toString());
        // the user's own bundle maps root inside to their uid and their group (which need not have the uid's number)
        String spec = Files.readString(bundle.resolve("config.json"));
        int gids = spec.indexOf("\"gidMappings\"");
        String config = (spec.substring(0, gids).replace("\"hostID\": 0", "\"hostID\": " + owner.uid())
                + spec.substring(gids).replace("\"hostID\": 0", "\"hostID\": " + owner.gid()))
                .replace("\"terminal\": true", "\"terminal\": false")
                .replace("\"sh\"", "\"/busybox\", \"echo\", \"the-bundles-own-command\"")
                .replace("\"PATH=", "\"FROM_BUNDLE=yes\", \"PATH=");
        Files.writeString(bundle.resolve("config.json"), config);
        TestRegistry.run(Duration.ofSeconds(30), "chown", "-R", user + ":", bundle.toString());
        ContainerSpec bundled = new ContainerSpec(null, bundle.toString(), null, null, null, null, null, null, null,
                null);
        // as in Slurm, the job's script runs in the bundle instead of the bundle's own command
        runner.apply(List.of(Command.launch(launch("106", "#!/busybox sh\n/busybox cat /marker\n"
                + "echo uid=$(/busybox id -u) bundle-env=$FROM_BUNDLE job=$SLURM_JOB_ID\n", bundled, null))));
        List<Report> seen = untilEnded("106", 60);
        assertThat(seen).extracting(Report::type).doesNotContain(ReportType.IMAGE);
        Report end = seen.get(seen.size() - 1);
        assertThat(end.state()).as(end.detail() + "\n" + output("106")).isEqualTo("COMPLETED");
        assertThat(output("106")).contains("bundle-" + MARKER, "uid=0 bundle-env=yes job=106")
                .doesNotContain("the-bundles-own-command");
        // and a step's command, with the job's environment added to the bundle's
        Map<String, String> env = Map.of("SLURM_JOB_USER", user, "SLURM_MEM_PER_NODE", "256", "FROM_BUNDLE", "no");
        runner.apply(List.of(Command.stepLaunch(new StepTasks("109", 0, List.of("/busybox", "sh", "-c",
                "echo step-in-bundle $(/busybox cat /marker) $FROM_BUNDLE"),
                List.of(new StepTask(0, 0, null)), home.toString(), 0, env, null, bundled))));
        assertThat(stepOutput(0)).contains("step-in-bundle bundle-" + MARKER + " yes");
        assertThat(Files.readString(bundle.resolve("config.json"))).as("the user's bundle is left as it was")
                .contains("the-bundles-own-command");

        // a bundle its owner may not read is refused, naming it
        Path locked = dir.resolve("locked");
        TestRegistry.run(Duration.ofSeconds(30), "cp", "-a", bundle.toString(), locked.toString());
        TestRegistry.run(Duration.ofSeconds(30), "chown", "-R", "root:", locked.toString());
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
        runner.apply(List.of(Command.launch(launch("107", "#!/bin/sh\nexit 3\n",
                new ContainerSpec(null, locked.toString(), null, null, null, null, null, null, null, null), null))));
        Report refused = untilEnded("107", 30).get(0);
        assertThat(refused.state()).isEqualTo("FAILED");
        assertThat(refused.detail()).contains(user, locked.resolve("config.json").toString());
        assertThat(dir.resolve("work/containers/run/107/bundles/107-batch/config.json")).as("nothing of it copied")
                .doesNotExist();
    }
}
