package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gantry.noded.Cgroups.Controller;
import io.gantry.noded.Cgroups.Hierarchy;
import io.gantry.noded.Cgroups.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Cgroups} and {@link JobCgroup} against a fake cgroupfs: directories holding plain files. */
class CgroupsTests {

    /** This development host's mountinfo: v1 controllers each on its own hierarchy, v2 with none of ours. */
    static final String HYBRID = """
            31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
            32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
            33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
            34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
            35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
            36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices
            37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
            38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
            39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
            40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
            41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
            """;

    /** A systemd host with only the unified hierarchy. */
    static final String UNIFIED = """
            22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
            29 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
            """;

    @TempDir
    Path root;

    private Path cg(String relative) {
        return root.resolve("sys/fs/cgroup").resolve(relative);
    }

    private void file(Path path, String content) throws IOException {
        Files.createDirectories(path.getParent());
        Files.writeString(path, content);
    }

    private String content(Path path) throws IOException {
        return Files.readString(path).strip();
    }

    /** The v1 hierarchies of {@link #HYBRID}, with the root files the kernel has there. */
    private Cgroups hybrid(boolean swapAccounting) throws IOException {
        for (String c : List.of("cpu", "cpuacct", "cpuset", "memory", "devices", "freezer", "blkio", "pids", "systemd")) {
            Files.createDirectories(cg(c));
        }
        file(cg("unified/cgroup.controllers"), "hugetlb\n");
        file(cg("cpuset/cpuset.cpus"), "0-7\n");
        file(cg("cpuset/cpuset.mems"), "0-1\n");
        file(cg("memory/memory.limit_in_bytes"), "9223372036854771712\n");
        if (swapAccounting) {
            file(cg("memory/memory.memsw.limit_in_bytes"), "9223372036854771712\n");
        }
        return Cgroups.from(HYBRID, root);
    }

    private Cgroups unified(String controllers) throws IOException {
        file(cg("cgroup.controllers"), controllers + "\n");
        file(cg("cgroup.subtree_control"), "");
        return Cgroups.from(UNIFIED, root);
    }

    @Nested
    class Detection {

        @Test
        void aHybridHostUsesEachControllerFromItsOwnV1Hierarchy() throws IOException {
            Cgroups cgroups = hybrid(true);

            assertThat(cgroups.available()).isTrue();
            assertThat(cgroups.controllers()).containsOnlyKeys(Controller.values());
            assertThat(cgroups.controllers().get(Controller.MEMORY)).isEqualTo(new Hierarchy(cg("memory"), false));
            assertThat(cgroups.controllers().get(Controller.CPUACCT)).isEqualTo(new Hierarchy(cg("cpuacct"), false));
            assertThat(cgroups.controllers().values()).noneMatch(Hierarchy::unified);
        }

        @Test
        void aUnifiedHostUsesWhatItsRootListsInCgroupControllers() throws IOException {
            Cgroups cgroups = unified("cpuset cpu io memory hugetlb pids rdma misc");

            assertThat(cgroups.available()).isTrue();
            assertThat(cgroups.controllers()).containsOnlyKeys(Controller.MEMORY, Controller.CPUSET, Controller.CPU,
                    Controller.PIDS);
            assertThat(cgroups.controllers().values()).containsOnly(new Hierarchy(cg(""), true));
        }

        @Test
        void aControllerMountedAsV1IsNotTakenFromTheUnifiedHierarchy() throws IOException {
            String mounts = UNIFIED.replace("/sys/fs/cgroup rw", "/sys/fs/cgroup/unified rw")
                    + "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n";
            Files.createDirectories(cg("memory"));
            file(cg("unified/cgroup.controllers"), "cpu pids");

            Cgroups cgroups = Cgroups.from(mounts, root);

            assertThat(cgroups.controllers().get(Controller.MEMORY)).isEqualTo(new Hierarchy(cg("memory"), false));
            assertThat(cgroups.controllers().get(Controller.PIDS)).isEqualTo(new Hierarchy(cg("unified"), true));
        }

        @Test
        void coMountedControllersShareOneHierarchy() throws IOException {
            String mounts = "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
                    + "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n";

            Cgroups cgroups = Cgroups.from(mounts, root);

            assertThat(cgroups.controllers().get(Controller.CPU)).isEqualTo(cgroups.controllers().get(Controller.CPUACCT));
            assertThat(cgroups.controllers().get(Controller.CPU).mount()).isEqualTo(cg("cpu,cpuacct"));
        }

        @Test
        void procMountsIsUnderstoodToo() throws IOException {
            Files.createDirectories(cg("memory"));
            String mounts = """
                    tmpfs /sys/fs/cgroup tmpfs ro,nosuid,nodev,noexec,mode=755 0 0
                    cgroup /sys/fs/cgroup/memory cgroup rw,nosuid,nodev,noexec,relatime,memory 0 0
                    cgroup /sys/fs/cgroup/cpu\\040set cgroup rw,cpuset 0 0
                    """;

            Cgroups cgroups = Cgroups.from(mounts, root);

            assertThat(cgroups.available()).isTrue();
            assertThat(cgroups.controllers().get(Controller.MEMORY).mount()).isEqualTo(cg("memory"));
            assertThat(cgroups.controllers().get(Controller.CPUSET).mount()).isEqualTo(cg("cpu set"));
        }

        @Test
        void withoutAMemoryControllerJobsRunUnfencedAndSayWhy() throws IOException {
            Cgroups cgroups = unified("cpu pids");

            assertThat(cgroups.available()).isFalse();
            assertThat(cgroups.unavailableReason()).hasValueSatisfying(r -> assertThat(r).contains("no memory controller"));
            assertThat(cgroups.find("node1", "1")).isEmpty();
            assertThatThrownBy(() -> cgroups.create("node1", "1", Limits.none())).isInstanceOf(IllegalStateException.class);
        }

        @Test
        void withNoCgroupMountAtAllJobsRunUnfenced() {
            Cgroups cgroups = Cgroups.from("22 1 253:1 / / rw - ext4 /dev/vda1 rw\n", root);

            assertThat(cgroups.available()).isFalse();
            assertThat(cgroups.controllers()).isEmpty();
        }
    }

    @Nested
    class V1 {

        private final Limits limits = new Limits(50L << 20, List.of(1, 2, 5), List.of(gpu(1), gpu(3)));

        @Test
        void aJobLivesUnderGantryAndItsNodeInEveryHierarchy() throws IOException {
            JobCgroup job = hybrid(true).create("node7", "42", limits);

            assertThat(job.paths()).containsExactlyInAnyOrder(
                    cg("memory/gantry/node7/job_42"), cg("cpuset/gantry/node7/job_42"), cg("devices/gantry/node7/job_42"),
                    cg("cpu/gantry/node7/job_42"), cg("cpuacct/gantry/node7/job_42"), cg("pids/gantry/node7/job_42"),
                    cg("freezer/gantry/node7/job_42"));
            assertThat(cg("blkio/gantry")).doesNotExist();
            assertThat(cg("unified/gantry")).doesNotExist();
        }

        @Test
        void aClusterSharingTheHostPutsItsJobsUnderTheRootItNames() throws IOException {
            Cgroups mine = hybrid(true).under("gantry-b");
            JobCgroup job = mine.create("node7", "42", limits);

            assertThat(job.paths()).contains(cg("memory/gantry-b/node7/job_42"), cg("freezer/gantry-b/node7/job_42"));
            assertThat(cg("memory/gantry")).as("the default root stays another cluster's").doesNotExist();
            assertThat(mine.find("node7", "42")).isPresent();
            assertThat(hybrid(true).find("node7", "42")).as("not found under the default root").isEmpty();
        }

        @Test
        void theMemoryLimitCoversSwapWhenTheKernelAccountsIt() throws IOException {
            hybrid(true).create("node1", "1", limits);

            assertThat(content(cg("memory/gantry/node1/job_1/memory.limit_in_bytes"))).isEqualTo("52428800");
            assertThat(content(cg("memory/gantry/node1/job_1/memory.memsw.limit_in_bytes"))).isEqualTo("52428800");
        }

        @Test
        void withoutSwapAccountingOnlyMemoryIsLimited() throws IOException {
            hybrid(false).create("node1", "1", limits);

            assertThat(content(cg("memory/gantry/node1/job_1/memory.limit_in_bytes"))).isEqualTo("52428800");
            assertThat(cg("memory/gantry/node1/job_1/memory.memsw.limit_in_bytes")).doesNotExist();
        }

        @Test
        void noLimitsWritesNoLimit() throws IOException {
            JobCgroup job = hybrid(true).create("node1", "1", Limits.none());

            assertThat(cg("memory/gantry/node1/job_1/memory.limit_in_bytes")).doesNotExist();
            assertThat(cg("devices/gantry/node1/job_1/devices.deny")).doesNotExist();
            assertThat(content(cg("cpuset/gantry/node1/job_1/cpuset.cpus"))).as("all the parent's CPUs").isEqualTo("0-7");
            assertThat(job.dir(Controller.MEMORY)).isPresent();
        }

        @Test
        void everyNewCpusetLevelGetsItsParentsCpusAndMemsAndTheJobItsOwnCpus() throws IOException {
            hybrid(true).create("node1", "1", limits);

            for (String level : List.of("gantry", "gantry/node1")) {
                assertThat(content(cg("cpuset/" + level + "/cpuset.cpus"))).as(level).isEqualTo("0-7");
                assertThat(content(cg("cpuset/" + level + "/cpuset.mems"))).as(level).isEqualTo("0-1");
            }
            assertThat(Files.readAllLines(cg("cpuset/gantry/node1/job_1/cpuset.cpus")))
                    .as("the parent's, then the job's").containsExactly("0-7", "1-2,5");
            assertThat(content(cg("cpuset/gantry/node1/job_1/cpuset.mems"))).isEqualTo("0-1");
        }

        @Test
        void levelsAlreadyGivenCpusKeepThem() throws IOException {
            Cgroups cgroups = hybrid(true);
            file(cg("cpuset/gantry/cpuset.cpus"), "0-3\n");
            file(cg("cpuset/gantry/cpuset.mems"), "0\n");

            cgroups.create("node1", "1", Limits.none());

            assertThat(content(cg("cpuset/gantry/cpuset.cpus"))).isEqualTo("0-3");
            assertThat(content(cg("cpuset/gantry/node1/cpuset.cpus"))).isEqualTo("0-3");
            assertThat(content(cg("cpuset/gantry/node1/job_1/cpuset.mems"))).isEqualTo("0");
        }

        @Test
        void everyGpuOfTheNodeNotGivenIsDeniedAndNothingElse() throws IOException {
            hybrid(true).create("node1", "1", limits);

            assertThat(Files.readAllLines(cg("devices/gantry/node1/job_1/devices.deny")))
                    .containsExactly("c 195:1 rwm", "c 195:3 rwm");
            assertThat(cg("devices/gantry/node1/job_1/devices.allow")).doesNotExist();
        }

        @Test
        void addPutsTheProcessInEveryHierarchy() throws IOException {
            JobCgroup job = hybrid(true).create("node1", "1", Limits.none());

            job.add(4242);

            for (Path dir : job.paths()) {
                assertThat(content(dir.resolve("cgroup.procs"))).as(dir.toString()).isEqualTo("4242");
            }
        }

        @Test
        void pidsAreTheUnionOverHierarchies() throws IOException {
            JobCgroup job = hybrid(true).create("node1", "1", Limits.none());
            file(cg("memory/gantry/node1/job_1/cgroup.procs"), "10\n11\n");
            file(cg("freezer/gantry/node1/job_1/cgroup.procs"), "11\n12\n");

            assertThat(job.pids()).containsExactly(10L, 11L, 12L);
            assertThat(job.populated()).isTrue();
        }

        @Test
        void usageIsReadFromTheMemoryAndCpuacctFiles() throws IOException {
            JobCgroup job = hybrid(true).create("node1", "1", Limits.none());
            Path memory = cg("memory/gantry/node1/job_1");

            assertThat(job.oomKilled()).isFalse();
            assertThat(job.peakMemoryBytes()).isEmpty();
            assertThat(job.cpuTimeMillis()).isEmpty();

            file(memory.resolve("memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
            file(memory.resolve("memory.max_usage_in_bytes"), "52428800\n");
            file(cg("cpuacct/gantry/node1/job_1/cpuacct.usage"), "2500000000\n");

            assertThat(job.oomKilled()).isTrue();
            assertThat(job.peakMemoryBytes()).isEqualTo(OptionalLong.of(52428800));
            assertThat(job.cpuTimeMillis()).isEqualTo(OptionalLong.of(2500));
        }

        @Test
        void aKernelThatDoesNotCountOomKillsFallsBackToTheLimitsFailCount() throws IOException {
            JobCgroup job = hybrid(true).create("node1", "1", Limits.none());
            Path memory = cg("memory/gantry/node1/job_1");
            file(memory.resolve("memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\n");
            file(memory.resolve("memory.failcnt"), "0\n");

            assertThat(job.oomKilled()).isFalse();

            file(memory.resolve("memory.memsw.failcnt"), "3\n");

            assertThat(job.oomKilled()).isTrue();
        }

        @Test
        void findAdoptsAJobCgroupLeftByAnEarlierAgent() throws IOException {
            Cgroups cgroups = hybrid(true);
            JobCgroup created = cgroups.create("node1", "1", limits);

            assertThat(cgroups.find("node1", "1")).hasValueSatisfying(j -> assertThat(j.paths()).isEqualTo(created.paths()));
            assertThat(cgroups.find("node1", "2")).isEmpty();
            assertThat(cgroups.find("node2", "1")).isEmpty();
        }

        @Test
        void removeToleratesACgroupAlreadyGone() throws IOException {
            Cgroups cgroups = hybrid(true);
            JobCgroup job = cgroups.create("node1", "1", Limits.none());
            for (Path dir : job.paths()) {
                try (var files = Files.list(dir)) {
                    for (Path f : files.toList()) {
                        Files.delete(f);
                    }
                }
            }

            assertThat(job.remove()).isTrue();
            assertThat(job.remove()).isTrue();
            assertThat(cgroups.find("node1", "1")).isEmpty();
            assertThat(cg("memory/gantry/node1")).as("shared with the node's other jobs").isDirectory();
        }

        @Test
        void aFailedCreateLeavesNothingBehind() throws IOException {
            Cgroups cgroups = hybrid(true);
            // a directory where the limit file should be: the write fails as the kernel's EINVAL would
            Files.createDirectories(cg("memory/gantry/node1/job_1/memory.limit_in_bytes"));

            assertThatThrownBy(() -> cgroups.create("node1", "1", limits)).isInstanceOf(IOException.class)
                    .hasMessageContaining("memory.limit_in_bytes");
            for (String hierarchy : List.of("devices", "pids", "freezer", "cpu")) {
                assertThat(cg(hierarchy + "/gantry")).as(hierarchy).doesNotExist();
            }
        }

        @Test
        void unsafeNamesAreRefused() throws IOException {
            Cgroups cgroups = hybrid(true);

            for (String bad : List.of("..", "../x", "a/b", "", ".hidden", "a b")) {
                assertThatThrownBy(() -> cgroups.create("node1", bad, Limits.none())).as(bad)
                        .isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> cgroups.create(bad, "1", Limits.none())).as(bad)
                        .isInstanceOf(IllegalArgumentException.class);
            }
            assertThat(cg("memory/gantry")).doesNotExist();
        }
    }

    @Nested
    class V2 {

        @Test
        void controllersAreEnabledDownToTheJobsParentAndTheJobIsALeaf() throws IOException {
            Cgroups cgroups = unified("cpuset cpu io memory hugetlb pids rdma misc");

            JobCgroup job = cgroups.create("node1", "7", new Limits(1L << 30, List.of(0, 1), List.of()));

            assertThat(job.paths()).containsExactly(cg("gantry/node1/job_7"));
            for (String level : List.of("", "gantry", "gantry/node1")) {
                assertThat(content(cg(level).resolve("cgroup.subtree_control"))).as(level)
                        .isEqualTo("+memory +cpuset +cpu +pids");
            }
            assertThat(cg("gantry/node1/job_7/cgroup.subtree_control")).doesNotExist();
            assertThat(content(cg("gantry/node1/job_7/memory.max"))).isEqualTo("1073741824");
            assertThat(content(cg("gantry/node1/job_7/memory.swap.max"))).isEqualTo("0");
            assertThat(content(cg("gantry/node1/job_7/cpuset.cpus"))).isEqualTo("0-1");
        }

        @Test
        void onlyControllersNotYetEnabledAreEnabled() throws IOException {
            Cgroups cgroups = unified("cpu memory pids");
            file(cg("cgroup.subtree_control"), "cpu memory\n");

            cgroups.create("node1", "7", Limits.none());

            assertThat(content(cg("cgroup.subtree_control"))).isEqualTo("cpu memory\n+pids");
            assertThat(content(cg("gantry/cgroup.subtree_control"))).isEqualTo("+memory +cpu +pids");
        }

        @Test
        void gpusAreNotFencedButTheJobStillStarts() throws IOException {
            Cgroups cgroups = unified("cpu memory pids");

            JobCgroup job = cgroups.create("node1", "7", new Limits(0, List.of(), List.of(gpu(1))));

            assertThat(cg("gantry/node1/job_7/devices.deny")).doesNotExist();
            assertThat(cg("gantry/node1/job_7/memory.max")).doesNotExist();
            assertThat(job.dir(Controller.DEVICES)).isEmpty();
        }

        @Test
        void usageIsReadFromMemoryEventsPeakAndCpuStat() throws IOException {
            JobCgroup job = unified("cpu memory pids").create("node1", "7", Limits.none());
            Path dir = cg("gantry/node1/job_7");
            file(dir.resolve("memory.events"), "low 0\nhigh 0\nmax 12\noom 1\noom_kill 0\noom_group_kill 0\n");
            file(dir.resolve("cpu.stat"), "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\n");

            assertThat(job.oomKilled()).isFalse();
            assertThat(job.peakMemoryBytes()).as("memory.peak is from Linux 5.19").isEmpty();
            assertThat(job.cpuTimeMillis()).isEqualTo(OptionalLong.of(1234));

            file(dir.resolve("memory.events"), "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n");
            file(dir.resolve("memory.peak"), "104857600\n");

            assertThat(job.oomKilled()).isTrue();
            assertThat(job.peakMemoryBytes()).isEqualTo(OptionalLong.of(104857600));
        }

        @Test
        void populatedIsReadFromCgroupEvents() throws IOException {
            JobCgroup job = unified("cpu memory pids").create("node1", "7", Limits.none());
            file(cg("gantry/node1/job_7/cgroup.events"), "populated 1\nfrozen 0\n");

            assertThat(job.pids()).isEmpty();
            assertThat(job.populated()).isTrue();

            file(cg("gantry/node1/job_7/cgroup.events"), "populated 0\nfrozen 0\n");

            assertThat(job.populated()).isFalse();
            assertThat(job.killAll()).as("nothing to kill").isTrue();
        }
    }

    @Test
    void cpuListsAreWrittenAsRanges() {
        assertThat(Cgroups.cpuList(List.of(0, 1, 2, 3))).isEqualTo("0-3");
        assertThat(Cgroups.cpuList(List.of(5, 1, 2, 8, 9, 11))).isEqualTo("1-2,5,8-9,11");
        assertThat(Cgroups.cpuList(List.of(3))).isEqualTo("3");
        assertThat(Cgroups.cpuList(List.of(2, 2, 3))).isEqualTo("2-3");
    }

    @Test
    void negativeMemoryIsRefused() {
        assertThatThrownBy(() -> new Limits(-1, List.of(), List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    /** GPU {@code minor}'s device file. */
    private static GpuDevices.DeviceFile gpu(int minor) {
        return new GpuDevices.DeviceFile(Path.of("/dev/nvidia" + minor), GpuDevices.NVIDIA_MAJOR, minor);
    }
}
