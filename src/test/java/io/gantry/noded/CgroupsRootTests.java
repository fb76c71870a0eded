package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gantry.noded.Cgroups.Controller;
import io.gantry.noded.Cgroups.Hierarchy;
import io.gantry.noded.Cgroups.Limits;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fences on this host's real cgroup v1 hierarchies: skipped unless running as root where
 * {@code /sys/fs/cgroup/memory} is a writable v1 hierarchy. Each test's node name holds the JVM's
 * pid, so concurrent runs do not meet, and everything created is removed after.
 */
class CgroupsRootTests {

    private static final long MB = 1L << 20;

    @TempDir
    Path dir;

    private Cgroups cgroups;
    private final String node = "roottest" + ProcessHandle.current().pid();
    private final List<JobCgroup> jobs = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();

    @BeforeEach
    void onlyAsRootOnAV1MemoryHierarchy() throws IOException {
        boolean root = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .anyMatch(l -> l.matches("Uid:\\s+0\\s.*"));
        Assumptions.assumeTrue(root, "needs root");
        cgroups = Cgroups.detect();
        Hierarchy memory = cgroups.controllers().get(Controller.MEMORY);
        Assumptions.assumeTrue(cgroups.available() && !memory.unified()
                && memory.mount().equals(Path.of("/sys/fs/cgroup/memory")), "needs a writable v1 /sys/fs/cgroup/memory");
    }

    @AfterEach
    void removeWhatWasCreated() throws IOException {
        processes.forEach(Process::destroyForcibly);
        for (JobCgroup job : jobs) {
            job.killAll(Duration.ofSeconds(5));
            job.remove();
        }
        if (cgroups != null) {
            for (Hierarchy h : Set.copyOf(cgroups.controllers().values())) {
                Files.deleteIfExists(h.mount().resolve(Cgroups.TOP).resolve(node));
                try {
                    Files.deleteIfExists(h.mount().resolve(Cgroups.TOP));
                } catch (IOException e) {
                    // another agent's or test's node is still there
                }
            }
        }
    }

    private JobCgroup create(String jobId, Limits limits) throws IOException {
        JobCgroup job = cgroups.create(node, jobId, limits);
        jobs.add(job);
        return job;
    }

    /** Runs {@code script} in {@code job}: bash waits on stdin until its pid has been added. */
    private Process startIn(JobCgroup job, String script, boolean keepOutput) throws IOException {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", "read go; " + script).redirectErrorStream(true);
        if (!keepOutput) {
            builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        }
        Process p = builder.start();
        processes.add(p);
        job.add(p.pid());
        try (OutputStream in = p.getOutputStream()) {
            in.write("go\n".getBytes(StandardCharsets.UTF_8));
        }
        return p;
    }

    private static String outputOf(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    @Test
    void aJobAllocatingPastItsMemoryLimitIsOomKilledAndSaysSo() throws Exception {
        JobCgroup job = create("oom", new Limits(50 * MB, List.of(), List.of()));

        Process p = startIn(job, "exec tail /dev/zero", false);

        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("SIGKILL").isEqualTo(128 + 9);
        assertThat(job.oomKilled()).isTrue();
        assertThat(job.peakMemoryBytes()).isPresent();
        assertThat(job.peakMemoryBytes().getAsLong()).isBetween(40 * MB, 50 * MB);
        assertThat(job.cpuTimeMillis()).isPresent();
        assertThat(job.populated()).isFalse();
        assertThat(job.remove()).isTrue();
        assertThat(cgroups.find(node, "oom")).isEmpty();
    }

    @Test
    void aJobWithinItsLimitIsNotOomKilled() throws Exception {
        JobCgroup job = create("fits", new Limits(50 * MB, List.of(), List.of()));

        Process p = startIn(job, "x=$(head -c 10000000 /dev/zero | tr '\\0' x); echo ${#x}", true);

        assertThat(outputOf(p).strip()).isEqualTo("10000000");
        assertThat(p.exitValue()).isZero();
        assertThat(job.oomKilled()).isFalse();
        assertThat(job.peakMemoryBytes()).isPresent();
        assertThat(job.peakMemoryBytes().getAsLong()).isGreaterThan(10 * MB);
    }

    @Test
    void killAllLeavesNoProcessNotEvenADoubleForkedDaemon() throws Exception {
        JobCgroup job = create("daemon", Limits.none());

        Process p = startIn(job, "( setsid sleep 1000 & ); exec sleep 1000", false);
        await().atMost(Duration.ofSeconds(10)).until(() -> job.pids().size() >= 2);
        Set<Long> pids = job.pids();
        long daemon = pids.stream().filter(pid -> pid != p.pid()).findFirst().orElseThrow();
        assertThat(ProcessGroups.stat(daemon)).hasValueSatisfying(s -> assertThat(s.session()).isEqualTo(daemon));

        assertThat(job.killAll()).isTrue();

        assertThat(job.pids()).isEmpty();
        assertThat(job.populated()).isFalse();
        for (long pid : pids) {
            assertThat(ProcessGroups.stat(pid)).as("process %d", pid).satisfiesAnyOf(
                    s -> assertThat(s).isEmpty(),
                    s -> assertThat(s.get().state()).as("a zombie waiting for its parent").isEqualTo('Z'));
        }
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(Cgroups.read(job.dir(Controller.FREEZER).orElseThrow().resolve("freezer.state")))
                .as("thawed again").isEqualTo("THAWED");
        assertThat(job.remove()).isTrue();
    }

    @Test
    void killAllWinsAgainstAJobThatKeepsForking() throws Exception {
        JobCgroup job = create("forks", new Limits(200 * MB, List.of(), List.of()));
        Process p = startIn(job, "for i in $(seq 1 3000); do ( sleep 1000 & ); done; exec sleep 1000", false);
        await().atMost(Duration.ofSeconds(20)).until(() -> job.pids().size() >= 20);

        assertThat(job.killAll()).isTrue();

        assertThat(job.pids()).isEmpty();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(job.remove()).isTrue();
    }

    @Test
    void aReusedJobCgroupTakesAHigherLimit() throws Exception {
        create("grow", new Limits(50 * MB, List.of(), List.of()));

        JobCgroup job = create("grow", new Limits(80 * MB, List.of(), List.of()));

        Path memory = job.dir(Controller.MEMORY).orElseThrow();
        assertThat(Cgroups.read(memory.resolve("memory.limit_in_bytes"))).isEqualTo(Long.toString(80 * MB));
        assertThat(Cgroups.read(memory.resolve("memory.memsw.limit_in_bytes"))).isEqualTo(Long.toString(80 * MB));
    }

    @Test
    void signalAllReachesEveryProcess() throws Exception {
        JobCgroup job = create("term", Limits.none());
        Process p = startIn(job, "( setsid sleep 1000 & ); exec sleep 1000", false);
        await().atMost(Duration.ofSeconds(10)).until(() -> job.pids().size() >= 2);

        assertThat(job.signalAll("TERM")).isTrue();

        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(128 + 15);
        await().atMost(Duration.ofSeconds(10)).until(() -> job.pids().isEmpty());
    }

    @Test
    void theDevicesFenceDeniesGpusNotGivenAndLeavesTheRestAlone() throws Exception {
        for (int minor = 0; minor < 2; minor++) {
            Process mknod = new ProcessBuilder("mknod", dir.resolve("nvidia" + minor).toString(), "c", "195",
                    Integer.toString(minor)).inheritIO().start();
            assertThat(mknod.waitFor()).isZero();
        }
        JobCgroup job = create("gpu", new Limits(0, List.of(), List.of(new GpuDevices.DeviceFile(dir.resolve("nvidia1"), 195, 1))));

        Process p = startIn(job, "cd " + dir + "; cat nvidia1; cat nvidia0; head -c 3 /dev/zero | wc -c", true);

        assertThat(outputOf(p)).contains("nvidia1: Operation not permitted")
                .as("allowed, and no driver behind it").contains("nvidia0: No such device or address")
                .as("other devices untouched").endsWith("3\n");
    }

    @Test
    void aJobIsPinnedToItsCpusAndAnAgentRestartAdoptsIt() throws Exception {
        JobCgroup job = create("pinned", new Limits(0, List.of(1), List.of()));

        Process p = startIn(job, "exec sleep 1000", false);
        await().atMost(Duration.ofSeconds(10)).until(() -> job.pids().contains(p.pid()));
        String affinity = Files.readAllLines(Path.of("/proc/" + p.pid() + "/status")).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list")).findFirst().orElseThrow();
        assertThat(affinity).endsWith("\t1");

        JobCgroup adopted = cgroups.find(node, "pinned").orElseThrow();

        assertThat(adopted.paths()).isEqualTo(job.paths());
        assertThat(adopted.pids()).containsExactly(p.pid());
        assertThat(adopted.killAll()).isTrue();
        assertThat(adopted.remove()).isTrue();
        assertThat(cgroups.find(node, "pinned")).isEmpty();
    }
}
