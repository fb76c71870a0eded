package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import io.gantry.noded.protocol.AgentProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentOptionsTests {

    private static AgentOptions parse(Map<String, String> env, String... args) {
        return AgentOptions.parse(args, env, () -> "gpu07.cluster.example.org");
    }

    @Test
    void takesBothOptionForms() {
        AgentOptions o = parse(Map.of("GANTRY_JOIN_TOKEN", "secret"), "--controller", "http://ctl:8080/", "--name=n1",
                "--work-dir", "/tmp/agent", "--gpus", "2", "--gpu-type=a100", "--features", "ib, nvme",
                "--cpus=8", "--memory-mb", "64000");
        assertThat(o.controller()).hasToString("http://ctl:8080");
        assertThat(o.joinToken()).isEqualTo("secret");
        assertThat(o.name()).isEqualTo("n1");
        assertThat(o.workDir()).isEqualTo(Path.of("/tmp/agent"));
        assertThat(o.gpus()).isEqualTo(2);
        assertThat(o.gpuType()).isEqualTo("a100");
        assertThat(o.features()).containsExactly("ib", "nvme");
        assertThat(o.cpus()).isEqualTo(8);
        assertThat(o.memoryMb()).isEqualTo(64000L);
        assertThat(o.toString()).doesNotContain("secret");
    }

    @Test
    void defaultsToTheShortHostNameAndALocalWorkDirAndDetection() {
        AgentOptions o = parse(Map.of(), "--controller", "http://ctl:8080");
        assertThat(o.name()).isEqualTo("gpu07");
        assertThat(o.workDir()).isEqualTo(Path.of("gantry-agent").toAbsolutePath());
        assertThat(o.gpus()).isNull();
        assertThat(o.cpus()).isNull();
        assertThat(o.memoryMb()).isNull();
        assertThat(o.features()).isEmpty();
    }

    @Test
    void takesTheJoinTokenFromTheEnvironment() {
        AgentOptions o = parse(Map.of("GANTRY_JOIN_TOKEN", "from-env"), "--controller", "http://ctl");
        assertThat(o.joinToken()).isEqualTo("from-env");
    }

    @Test
    void refusesTheJoinTokenAsAnArgumentSinceEveryProcessReadsArguments() {
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://ctl", "--join-token", "flag"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--join-token is no longer accepted")
                .hasMessageContaining("GANTRY_JOIN_TOKEN").hasMessageContaining("--join-token-file")
                .hasMessageNotContaining("flag");
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://ctl", "--join-token=flag"))
                .hasMessageContaining("--join-token is no longer accepted");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = AgentCommand.run(new String[] {"--controller", "http://c", "--join-token", "t"}, Map.of(),
                new PrintStream(err, true, StandardCharsets.UTF_8), Clock.systemUTC());
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("GANTRY_JOIN_TOKEN").contains("--join-token-file");
    }

    @Test
    void takesTheJoinTokenFromAFileOnlyItsOwnerReads(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("join-token");
        java.nio.file.Files.writeString(file, "from-file\n");
        java.nio.file.Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        AgentOptions o = parse(Map.of("GANTRY_JOIN_TOKEN", "from-env"), "--controller", "http://ctl",
                "--join-token-file", file.toString());
        assertThat(o.joinToken()).isEqualTo("from-file");
        assertThat(o.toString()).doesNotContain("from-file");

        java.nio.file.Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----"));
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://ctl", "--join-token-file", file.toString()))
                .hasMessageContaining("readable or writable by its group or others").hasMessageContaining("chmod 600");
        java.nio.file.Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw----r--"));
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://ctl", "--join-token-file", file.toString()))
                .hasMessageContaining("chmod 600");

        java.nio.file.Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Path link = dir.resolve("link");
        java.nio.file.Files.createSymbolicLink(link, file);
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://ctl", "--join-token-file", link.toString()))
                .hasMessageContaining("symbolic link");
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://ctl", "--join-token-file",
                dir.resolve("missing").toString())).hasMessageContaining("cannot be read");
        Path empty = java.nio.file.Files.createFile(dir.resolve("empty"),
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://ctl", "--join-token-file", empty.toString()))
                .hasMessageContaining("is empty");
    }

    @Test
    void requiresTheController() {
        assertThatThrownBy(() -> parse(Map.of(), "--name", "t"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--controller");
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "ftp://x"))
                .hasMessageContaining("--controller");
    }

    @Test
    void namesTheOptionWithABadNumberOrThatItDoesNotKnow() {
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://c", "--cpus", "eight"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--cpus").hasMessageContaining("eight");
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://c", "--memory-mb=-5"))
                .hasMessageContaining("--memory-mb");
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://c", "--gpus", "x"))
                .hasMessageContaining("--gpus");
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://c", "--colour", "blue"))
                .hasMessageContaining("--colour");
        assertThatThrownBy(() -> parse(Map.of(), "--controller"))
                .hasMessageContaining("--controller");
    }

    @Test
    void theCommandPrintsUsageAndExits2OnABadCommandLine(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = AgentCommand.run(new String[] {"--controller", "http://c", "--cpus", "many"}, Map.of(),
                new PrintStream(err, true, StandardCharsets.UTF_8), Clock.systemUTC());
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--cpus").contains("usage: agent");
    }

    @Test
    void theCommandNeedsAJoinTokenUnlessTheWorkDirHoldsACredentialForTheController(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] args = {"--controller", "http://127.0.0.1:1", "--work-dir", dir.toString()};
        int code = AgentCommand.run(args, Map.of(), new PrintStream(err, true, StandardCharsets.UTF_8),
                Clock.systemUTC());
        assertThat(code).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("GANTRY_JOIN_TOKEN or --join-token-file");

        new CredentialStore(dir).save(new CredentialStore.StoredCredential("http://elsewhere:1", "n1", "c"));
        assertThat(new CredentialStore(dir).forController(java.net.URI.create("http://127.0.0.1:1"))).isEmpty();
        new CredentialStore(dir).save(new CredentialStore.StoredCredential("http://127.0.0.1:1", "n1", "c"));
        assertThat(new CredentialStore(dir).forController(java.net.URI.create("http://127.0.0.1:1"))).isPresent();
    }

    @Test
    void declaredGpusWinAndTheTypeComesFromTheModelName() {
        AgentOptions o = parse(Map.of(), "--controller", "http://c", "--name", "n3",
                "--gpus", "2", "--gpu-type", "h100", "--cpus", "4", "--memory-mb", "1000");
        NodeResources r = NodeResources.detect(o);
        assertThat(r.cpus()).isEqualTo(4);
        assertThat(r.memoryMb()).isEqualTo(1000);
        assertThat(r.gpus()).extracting(g -> g.index() + " " + g.uuid() + " " + g.model())
                .containsExactly("0 declared-n3-0 h100", "1 declared-n3-1 h100");
        assertThat(r.gpuType()).isEqualTo("h100");
        assertThat(NodeResources.gpuTypeOf("NVIDIA H100 80GB HBM3")).isEqualTo("h100");
        assertThat(NodeResources.gpuTypeOf("Tesla V100-SXM2-32GB")).isEqualTo("v100");
        assertThat(NodeResources.gpuTypeOf("NVIDIA L40S")).isEqualTo("l40s");
        assertThat(NodeResources.parseNvidiaSmi("0, GPU-aaa, NVIDIA A100-SXM4-40GB\n"
                + "garbage line\n1, GPU-bbb, NVIDIA A100-SXM4-40GB\n"))
                .extracting(g -> g.index() + " " + g.uuid() + " " + g.model())
                .containsExactly("0 GPU-aaa NVIDIA A100-SXM4-40GB", "1 GPU-bbb NVIDIA A100-SXM4-40GB");
        assertThat(NodeResources.memTotalMb("MemTotal:       16302460 kB\nMemFree: 1 kB\n")).isEqualTo(15920);
        List<String> none = List.of();
        assertThat(NodeResources.parseNvidiaSmi("")).isEmpty();
        assertThat(none).isEmpty();
    }

    /** As nvidia-smi -L prints a DGX A100 with GPU 0 split into MIG instances and GPU 1 whole. */
    private static final String SMI_L = """
            GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)
              MIG 3g.20gb     Device  0: (UUID: MIG-6e4a8ec7-8a1b-5f2e-9f4c-8b4c4d3b2a11)
              MIG 1g.5gb      Device  1: (UUID: MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f)
              MIG 1g.5gb      Device  2: (UUID: MIG-cba663e8-9bed-5b7f-aa4e-3dd7a8a4dbb8)
            GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-0b8f3c2e-1d4a-4c8e-9a7b-2f6e5d4c3b2a)
            """;

    @Test
    void migInstancesAreReadFromNvidiaSmiListInOrderAndTheirGpuIsNotOfferedWhole() {
        List<AgentProtocol.MigDevice> mig = NodeResources.parseMig(SMI_L);
        assertThat(mig).containsExactly(
                new AgentProtocol.MigDevice(0, "3g.20gb", "MIG-6e4a8ec7-8a1b-5f2e-9f4c-8b4c4d3b2a11"),
                new AgentProtocol.MigDevice(0, "1g.5gb", "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f"),
                new AgentProtocol.MigDevice(0, "1g.5gb", "MIG-cba663e8-9bed-5b7f-aa4e-3dd7a8a4dbb8"));
        List<AgentProtocol.Gpu> gpus = List.of(new AgentProtocol.Gpu(0, "GPU-5d5b", "NVIDIA A100-SXM4-40GB"),
                new AgentProtocol.Gpu(1, "GPU-0b8f", "NVIDIA A100-SXM4-40GB"));
        assertThat(NodeResources.whole(gpus, mig)).extracting(AgentProtocol.Gpu::index).containsExactly(1);
        assertThat(NodeResources.parseMig("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aaa)\n")).isEmpty();
        assertThat(NodeResources.parseMig("No devices were found\n")).isEmpty();
    }

    @Test
    void containerOptionsPickTheRuntimeTheOciCommandAndTheImageCacheLimit() {
        AgentOptions o = parse(Map.of(), "--controller", "http://ctl", "--container-runtime", "crun",
                "--oci-run-command", "runc --rootless=true --root %r run %n -b %b", "--image-cache-mb", "512");
        ContainerRuntime.Settings settings = ContainerRuntime.Settings.forNode(o, GpuDevices.none());
        assertThat(settings.runtime()).isEqualTo("crun");
        assertThat(settings.ociRunCommand()).isEqualTo("runc --rootless=true --root %r run %n -b %b");
        assertThat(settings.cacheLimitBytes()).isEqualTo(512L * 1024 * 1024);

        ContainerRuntime.Settings auto = ContainerRuntime.Settings.forNode(parse(Map.of(), "--controller",
                "http://ctl"), GpuDevices.none());
        // crun 1.8 refuses a hybrid cgroup layout: runc there
        assertThat(auto.runtime()).isEqualTo(ContainerRuntime.Settings.cgroupV2Only()
                && java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/crun")) ? "crun" : "runc");
        assertThat(auto.cacheLimitBytes()).isEqualTo(20L * 1024 * 1024 * 1024);
        assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://ctl", "--image-cache-mb", "0"))
                .hasMessageContaining("--image-cache-mb");
    }

    @Test
    void jobsLiveUnderGantryInEachCgroupHierarchyUnlessTheAgentNamesAnotherRoot() {
        assertThat(parse(Map.of(), "--controller", "http://ctl").cgroupRoot()).isEqualTo("gantry");
        assertThat(parse(Map.of(), "--controller", "http://ctl", "--cgroup-root", "gantry-b").cgroupRoot())
                .isEqualTo("gantry-b");
        for (String bad : List.of("a/b", "..", "-x", "")) {
            assertThatThrownBy(() -> parse(Map.of(), "--controller", "http://ctl", "--cgroup-root", bad))
                    .as(bad).hasMessageContaining("--cgroup-root");
        }
    }
}
