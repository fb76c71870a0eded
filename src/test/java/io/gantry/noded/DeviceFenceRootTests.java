package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;

import io.gantry.noded.Cgroups.Controller;
import io.gantry.noded.Cgroups.Hierarchy;
import io.gantry.noded.protocol.AgentProtocol.JobIdentity;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.AgentProtocol.NodeSettings;
import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.AgentProtocol.ReportType;
import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import io.gantry.noded.protocol.AgentProtocol.StepTask;
import io.gantry.noded.protocol.AgentProtocol.StepTasks;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU fence as a user meets it: real jobs, run as an ordinary Unix user by the agent's own
 * launch code, open device files made with {@code mknod} with the numbers of
 * {@link GpuDeviceFixture}'s driver (minors that are not the nvidia-smi indices). No driver
 * registers those numbers here, so a device file the fence lets through fails to open with ENXIO
 * ("No such device or address"), while a fenced one fails earlier: EPERM from v1's
 * {@code devices.deny}, EACCES from the mount namespace's cover. Needs root and a writable cgroup v1
 * memory hierarchy (this host's); the v2 case is a node whose devices controller is not v1, where
 * the mount namespace is the only fence.
 */
class DeviceFenceRootTests {

    private static final String USER = "g28dev1";
    private static final Instant NOW = Instant.parse("2030-01-02T03:04:05Z");
    private static final String ALLOWED = "No such device or address";
    private static final String DENIED_V1 = "Operation not permitted";
    private static final String DENIED_HIDDEN = "Permission denied";

    @TempDir
    Path dir;

    private final String node = "devtest" + ProcessHandle.current().pid();
    private Path dev;
    private Path work;
    private GpuDevices devices;
    private Cgroups cgroups;
    private final BlockingQueue<Report> reports = new LinkedBlockingQueue<>();
    private final BlockingQueue<StepReport> stepReports = new LinkedBlockingQueue<>();
    private final List<JobRunner> runners = new ArrayList<>();
    private final java.util.concurrent.atomic.AtomicLong ids = new java.util.concurrent.atomic.AtomicLong(9000);

    @BeforeAll
    static void aUser() throws Exception {
        Assumptions.assumeTrue(root(), "needs root");
        if (UnixAccount.lookup(USER).isEmpty()) {
            UnixAccounts.addUser("-M", "-s", "/bin/bash", USER);
        }
    }

    @AfterAll
    static void noUser() throws Exception {
        if (root()) {
            UnixAccounts.removeUser(USER, false);
        }
    }

    @BeforeEach
    void aNodeWithThreeGpus() throws Exception {
        cgroups = Cgroups.detect();
        Hierarchy memory = cgroups.controllers().get(Controller.MEMORY);
        Assumptions.assumeTrue(cgroups.available() && !memory.unified() && cgroups.deniesDevices(),
                "needs writable cgroup v1 memory and devices hierarchies");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        work = Files.createDirectories(dir.resolve("work"));
        run("chown", USER, work.toString());
        Path proc = Files.createDirectories(dir.resolve("proc"));
        GpuDeviceFixture.writeProc(proc);
        dev = Files.createDirectories(dir.resolve("dev"));
        for (int minor = 0; minor < 3; minor++) {
            mknod(dev.resolve("nvidia" + minor), 195, minor);
        }
        mknod(dev.resolve("nvidiactl"), 195, 255);
        mknod(dev.resolve("nvidia-uvm"), 237, 0);
        Files.createDirectories(dev.resolve("nvidia-caps"));
        for (int gi : List.of(1, 2)) {
            mknod(cap(GpuDeviceFixture.giMinor(1, gi)), GpuDeviceFixture.CAPS_MAJOR, GpuDeviceFixture.giMinor(1, gi));
            mknod(cap(GpuDeviceFixture.ciMinor(1, gi, 0)), GpuDeviceFixture.CAPS_MAJOR,
                    GpuDeviceFixture.ciMinor(1, gi, 0));
        }
        devices = GpuDeviceFixture.devices(proc, dev);
        assertThat(devices.problems()).isEmpty();
    }

    @AfterEach
    void stop() throws IOException {
        runners.forEach(JobRunner::close);
        for (Hierarchy h : Set.copyOf(cgroups.controllers().values())) {
            Files.deleteIfExists(h.mount().resolve(Cgroups.TOP).resolve(node));
        }
    }

    // --- the three nodes: v1 with both fences, v1 when unshare is unusable, v2 -------------------------

    private JobRunner v1WithMountNamespaces() throws IOException {
        DeviceConstraint constraint = DeviceConstraint.of(devices, Files.createDirectories(dir.resolve("state")));
        assertThat(constraint.hides()).as("unshare and bind mounts work here").isTrue();
        return runner(CgroupFence.of(cgroups, () -> node, constraint));
    }

    private JobRunner v1DevicesDenyOnly() {
        return runner(CgroupFence.of(cgroups, () -> node, new DeviceConstraint(devices, null)));
    }

    /** cgroup v2 lists no devices controller (its fence is eBPF): only memory, here on this host's v1. */
    private JobRunner v2() throws IOException {
        String mountinfo = "36 25 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n";
        Cgroups noDevices = Cgroups.from(mountinfo, Path.of("/"));
        assertThat(noDevices.deniesDevices()).isFalse();
        DeviceConstraint constraint = DeviceConstraint.of(devices, Files.createDirectories(dir.resolve("state")));
        return runner(CgroupFence.of(noDevices, () -> node, constraint));
    }

    // --- the done-when: shard and MIG jobs open their GPU, a whole-GPU job cannot open another ---------

    @Test
    void onV1AShardJobOpensTheGpuItIsOnAndNoOther() throws Exception {
        assertShardJob(v1WithMountNamespaces(), DENIED_HIDDEN);
    }

    @Test
    void onV1AMigJobOpensItsGpuAndItsOwnCapabilitiesOnly() throws Exception {
        assertMigJob(v1WithMountNamespaces(), DENIED_HIDDEN);
    }

    @Test
    void onV1AWholeGpuJobCannotOpenAnotherNorCanItsStepTasks() throws Exception {
        JobRunner runner = v1WithMountNamespaces();
        assertWholeGpuJob(runner, DENIED_HIDDEN);
        assertWholeGpuStepTask(runner, DENIED_HIDDEN);
    }

    @Test
    void onV1WithoutMountNamespacesDevicesDenyAloneUsesTheDriversMinors() throws Exception {
        JobRunner runner = v1DevicesDenyOnly();
        assertShardJob(runner, DENIED_V1);
        assertMigJob(runner, DENIED_V1);
        assertWholeGpuJob(runner, DENIED_V1);
    }

    @Test
    void onV2AShardJobOpensTheGpuItIsOnAndNoOther() throws Exception {
        assertShardJob(v2(), DENIED_HIDDEN);
    }

    @Test
    void onV2AMigJobOpensItsGpuAndItsOwnCapabilitiesOnly() throws Exception {
        assertMigJob(v2(), DENIED_HIDDEN);
    }

    @Test
    void onV2AWholeGpuJobCannotOpenAnotherNorCanItsStepTasks() throws Exception {
        JobRunner runner = v2();
        assertWholeGpuJob(runner, DENIED_HIDDEN);
        assertWholeGpuStepTask(runner, DENIED_HIDDEN);
    }

    @Test
    void theHostKeepsItsDeviceFilesUncovered() throws Exception {
        JobRunner runner = v2();
        assertWholeGpuJob(runner, DENIED_HIDDEN);

        assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).doesNotContain(dev.toString());
        Process cat = new ProcessBuilder("cat", dev.resolve("nvidia0").toString()).redirectErrorStream(true).start();
        assertThat(new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).contains(ALLOWED);
    }

    @Test
    void aDeviceFileThatCannotBeCoveredFailsTheJobSayingWhyNeverRunsItUnfenced() throws Exception {
        Path broken = Files.createDirectories(dir.resolve("broken-dev/nvidia2"));
        GpuDevices elsewhere = GpuDevices.read(dir.resolve("proc"), broken.getParent(),
                GpuDevices.parseQuery(GpuDeviceFixture.QUERY), GpuDeviceFixture.SMI_Q, GpuDeviceFixture.MIG);
        DeviceConstraint constraint = DeviceConstraint.of(elsewhere, Files.createDirectories(dir.resolve("state")));
        JobRunner runner = runner(CgroupFence.of(cgroups, () -> node, constraint));
        String id = Long.toString(ids.incrementAndGet());

        runner.launch(launch(id, "echo ran > " + work.resolve("ran") + "\n", List.of(1), List.of(), null));

        Report ended = next(id);
        assertThat(ended.type()).isEqualTo(ReportType.ENDED);
        assertThat(ended.state()).isEqualTo("FAILED");
        assertThat(ended.detail()).startsWith("cannot fence the job off " + broken + ": mount");
        assertThat(work.resolve("ran")).doesNotExist();
        assertThat(broken.resolveSibling("nvidia0")).as("made at the agent's start, as nvidia-modprobe would")
                .exists();
    }

    @Test
    void withoutABlockerFileNoMountNamespaceIsPromised() {
        DeviceConstraint constraint = DeviceConstraint.of(devices, dir.resolve("no/such/state"));

        assertThat(constraint.hides()).isFalse();
        assertThat(constraint.launcher(devices.denied(GpuDevices.Grant.NONE))).isEmpty();
    }

    // -----------------------------------------------------------------------------------------------

    /** Shards on GPU 0, whose minor is 2. */
    private void assertShardJob(JobRunner runner, String denied) throws Exception {
        Map<String, String> opened = job(runner, "shard", List.of(), List.of(), 0);
        assertThat(opened).containsEntry("nvidia2", ALLOWED).containsEntry("nvidia0", denied)
                .containsEntry("nvidia1", denied);
        assertAlwaysAllowed(opened);
    }

    /** MIG instance 1: GPU 2 (minor 1), gi 2 ci 0; instance 0 (gi 1) is another job's. */
    private void assertMigJob(JobRunner runner, String denied) throws Exception {
        Map<String, String> opened = job(runner, "mig", List.of(), List.of(1), null);
        assertThat(opened).containsEntry("nvidia1", ALLOWED).containsEntry("nvidia0", denied)
                .containsEntry("nvidia2", denied)
                .containsEntry(capName(GpuDeviceFixture.giMinor(1, 2)), ALLOWED)
                .containsEntry(capName(GpuDeviceFixture.ciMinor(1, 2, 0)), ALLOWED)
                .containsEntry(capName(GpuDeviceFixture.giMinor(1, 1)), denied)
                .containsEntry(capName(GpuDeviceFixture.ciMinor(1, 1, 0)), denied);
        assertAlwaysAllowed(opened);
    }

    /** Whole GPU 1, whose minor is 0. */
    private void assertWholeGpuJob(JobRunner runner, String denied) throws Exception {
        Map<String, String> opened = job(runner, "whole", List.of(1), List.of(), null);
        assertThat(opened).containsEntry("nvidia0", ALLOWED).containsEntry("nvidia1", denied)
                .containsEntry("nvidia2", denied).containsEntry(capName(GpuDeviceFixture.giMinor(1, 1)), denied);
        assertAlwaysAllowed(opened);
    }

    private static void assertAlwaysAllowed(Map<String, String> opened) {
        assertThat(opened).as("every CUDA program needs these").containsEntry("nvidiactl", ALLOWED)
                .containsEntry("nvidia-uvm", ALLOWED);
    }

    /** An srun task of a running whole-GPU job is started in the job's fence and sees what the script sees. */
    private void assertWholeGpuStepTask(JobRunner runner, String denied) throws Exception {
        Path release = dir.resolve("release");
        String id = Long.toString(ids.incrementAndGet());
        runner.launch(launch(id, "while [ ! -e " + release + " ]; do sleep 0.1; done\n", List.of(1), List.of(), null));
        assertThat(next(id).type()).isEqualTo(ReportType.STARTED);
        runner.launchStep(new StepTasks(id, 0, List.of("/bin/bash", "-c", probeScript()),
                List.of(new StepTask(0, 0, null)), work.toString(), 0, Map.of(), null));
        StringBuilder out = new StringBuilder();
        while (true) {
            StepReport r = stepReports.poll(30, TimeUnit.SECONDS);
            assertThat(r).as("a step report within 30 s").isNotNull();
            if (r.type() == StepReportType.OUTPUT) {
                out.append(r.data());
            } else {
                assertThat(r.exitCode()).as("the task ran: %s", r.data()).isZero();
                break;
            }
        }
        Files.writeString(release, "");
        assertThat(next(id).state()).isEqualTo("COMPLETED");
        Files.delete(release);
        Map<String, String> opened = parse(out.toString());
        assertThat(opened).containsEntry("nvidia0", ALLOWED).containsEntry("nvidia1", denied)
                .containsEntry("nvidia2", denied);
        assertAlwaysAllowed(opened);
    }

    /** Runs a job that tries to open every device file; what each open gave, by file name. */
    private Map<String, String> job(JobRunner runner, String name, List<Integer> gpus, List<Integer> mig,
            Integer shard) throws Exception {
        String id = Long.toString(ids.incrementAndGet());
        runner.launch(launch(id, probeScript(), gpus, mig, shard));
        Report started = next(id);
        assertThat(started.type()).as("started: %s", started.detail()).isEqualTo(ReportType.STARTED);
        Report ended = next(id);
        assertThat(ended.state()).as("%s", ended.detail()).isEqualTo("COMPLETED");
        String out = Files.readString(work.resolve("gantry-" + id + ".out"));
        assertThat(out).as("the job ran as %s", USER).contains("user=" + USER);
        return parse(out);
    }

    private String probeScript() {
        return "echo user=$(id -un)\nfor f in $(cd " + dev + " && ls -d nvidia* nvidia-caps/*); do\n"
                + "  [ -d \"" + dev + "/$f\" ] && continue\n"
                + "  err=$( { exec 3<\"" + dev + "/$f\"; } 2>&1 ) && echo \"$f: opened\" || echo \"$f: ${err##*: }\"\n"
                + "done\n";
    }

    private static Map<String, String> parse(String out) {
        Map<String, String> opened = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int colon = line.indexOf(": ");
            if (line.startsWith("nvidia") && colon > 0) {
                opened.put(line.substring(0, colon), line.substring(colon + 2).strip());
            }
        }
        return opened;
    }

    private Launch launch(String id, String script, List<Integer> gpus, List<Integer> mig, Integer shard) {
        return new Launch(id, 0, null, "gpu", USER, "physics", "gpu", "normal", script, work.toString(), Map.of(),
                null, null, 0, NOW, "n1", List.of(node), 1, 1, 1, 256, gpus, new JobIdentity(USER, null, null), mig,
                shard);
    }

    private Report next(String id) throws InterruptedException {
        Report r = reports.poll(30, TimeUnit.SECONDS);
        assertThat(r).as("a report within 30 s").isNotNull();
        assertThat(r.jobId()).isEqualTo(id);
        return r;
    }

    private JobRunner runner(JobProcess.Fences fences) {
        UnixAccount me;
        try {
            me = UnixAccount.current();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        JobRunner r = new JobRunner(node, AgentDirs.prepare(dir.resolve("agent")), Clock.fixed(NOW, ZoneOffset.UTC),
                reports::add, stepReports::add, me, fences, List.of());
        r.configure(node, Duration.ofSeconds(1), new NodeSettings(false, null, 60, false, null, null));
        runners.add(r);
        return r;
    }

    private Path cap(int minor) {
        return dev.resolve("nvidia-caps/nvidia-cap" + minor);
    }

    private static String capName(int minor) {
        return "nvidia-caps/nvidia-cap" + minor;
    }

    private static void mknod(Path file, int major, int minor) throws Exception {
        run("mknod", "-m", "666", file.toString(), "c", Integer.toString(major), Integer.toString(minor));
    }

    private static boolean root() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream().anyMatch(l -> l.matches("Uid:\\s+0\\s.*"));
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("%s: %s", String.join(" ", command), out).isZero();
    }
}
