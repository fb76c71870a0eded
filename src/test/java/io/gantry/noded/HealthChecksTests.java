package io.gantry.noded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gantry.noded.protocol.AgentProtocol.Gpu;
import io.gantry.noded.protocol.AgentProtocol.Health;
import io.gantry.noded.protocol.AgentProtocol.NodeSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's health checks against small shell scripts: a health-check program and a fake nvidia-smi. */
class HealthChecksTests {

    private static final List<Gpu> FOUR_GPUS = List.of(new Gpu(0, "GPU-aaaa", "NVIDIA H100"),
            new Gpu(1, "GPU-bbbb", "NVIDIA H100"), new Gpu(2, "GPU-cccc", "NVIDIA H100"),
            new Gpu(3, "GPU-dddd", "NVIDIA H100"));
    private static final NodeSettings GPUS_ONLY = new NodeSettings(false, null, 60, true, null, null);

    @TempDir
    Path dir;

    private HealthChecks checks;

    @AfterEach
    void close() {
        if (checks != null) {
            checks.close();
        }
    }

    @Test
    void aProgramThatExitsZeroIsHealthy() throws Exception {
        assertThat(programCheck("echo all good\nexit 0")).isEqualTo(new Health(true, null));
    }

    @Test
    void aProgramThatExitsNonZeroIsUnhealthyWithWhatItPrinted() throws Exception {
        assertThat(programCheck("echo 'disk /scratch full'\nexit 1")).isEqualTo(new Health(false, "disk /scratch full"));
    }

    @Test
    void aSilentFailingProgramIsNamedWithItsExitCode() throws Exception {
        Path program = script("check", "exit 3");
        assertThat(healthOf(program.toString(), false).message()).isEqualTo(program + " exited with code 3");
    }

    @Test
    void whatAProgramPrintsOnStderrCountsToo() throws Exception {
        assertThat(programCheck("echo 'no route to storage' >&2\nexit 1").message()).isEqualTo("no route to storage");
    }

    @Test
    void outputLosesControlCharactersAndIsCutShort() throws Exception {
        Health health = programCheck("printf 'first\\tline\\033[31m red\\n\\n  second line  \\n'\n"
                + "head -c 500 /dev/zero | tr '\\0' x\nexit 1");
        assertThat(health.message()).startsWith("first line [31m red / second line / xxx")
                .hasSize(HealthChecks.MAX_MESSAGE).endsWith("…").doesNotContain("\t", "\033", "\n");
    }

    @Test
    void aProgramOverItsTimeoutIsUnhealthyAndKilledWithItsChildren() throws Exception {
        Path pid = dir.resolve("child.pid");
        Path program = script("slow", "echo checking\nsleep 300 &\necho $! > " + pid + "\nwait");
        checks = new HealthChecks(List.of(), dir.resolve("nvidia-smi").toString(), Duration.ofSeconds(1));
        Health health = checks.check(new NodeSettings(false, program.toString(), 60, false, null, null));
        assertThat(health).isEqualTo(new Health(false, program + " timed out after 1 s: checking"));
        long child = Long.parseLong(Files.readString(pid).strip());
        await().atMost(Duration.ofSeconds(10)).until(() -> ProcessHandle.of(child).map(p -> !p.isAlive()).orElse(true));
    }

    @Test
    void aProgramThatCannotRunIsUnhealthy() throws Exception {
        String missing = dir.resolve("no-such-check").toString();
        assertThat(healthOf(missing, false).message()).startsWith(missing + " cannot run: ");
    }

    @Test
    void gpusThatNvidiaSmiStillListsWithoutEccErrorsAreHealthy() throws Exception {
        assertThat(gpuCheck("""
                0, GPU-aaaa, 0
                1, GPU-bbbb, 0
                2, GPU-cccc, [N/A]
                3, GPU-dddd, [Not Supported]""", 0)).isEqualTo(new Health(true, null));
    }

    @Test
    void aGpuMissingFromNvidiaSmiIsLostEvenWhenTheOthersMovedUp() throws Exception {
        assertThat(gpuCheck("""
                0, GPU-aaaa, 0
                1, GPU-cccc, 0
                2, GPU-dddd, 0""", 0)).isEqualTo(new Health(false, "GPU 1 (GPU-bbbb) is lost"));
    }

    @Test
    void uncorrectableEccErrorsAreCountedPerGpu() throws Exception {
        assertThat(gpuCheck("""
                0, GPU-aaaa, 0
                1, GPU-bbbb, 2
                2, GPU-cccc, 0
                3, GPU-dddd, 1""", 0)).isEqualTo(new Health(false,
                "GPU 1 (GPU-bbbb) has 2 uncorrectable ECC errors; GPU 3 (GPU-dddd) has 1 uncorrectable ECC error"));
    }

    @Test
    void anErrorInPlaceOfAValueIsReportedForItsGpu() throws Exception {
        assertThat(gpuCheck("""
                0, GPU-aaaa, 0
                1, GPU-bbbb, [GPU requires reset]
                2, GPU-cccc, 0
                3, GPU-dddd, 0""", 15)).isEqualTo(new Health(false, "GPU 1 (GPU-bbbb): GPU requires reset"));
    }

    @Test
    void nvidiaSmiFailingWhenGpusWereRegisteredIsUnhealthy() throws Exception {
        assertThat(gpuCheck("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", 9))
                .isEqualTo(new Health(false, "nvidia-smi exited with code 9: NVIDIA-SMI has failed because it "
                        + "couldn't communicate with the NVIDIA driver."));
    }

    @Test
    void nvidiaSmiExitingNonZeroWithEveryGpuFineIsStillReported() throws Exception {
        assertThat(gpuCheck("""
                0, GPU-aaaa, 0
                1, GPU-bbbb, 0
                2, GPU-cccc, 0
                3, GPU-dddd, 0
                Unable to query the NVLink state""", 4))
                .isEqualTo(new Health(false, "nvidia-smi exited with code 4: 0, GPU-aaaa, 0 / 1, GPU-bbbb, 0 / "
                        + "2, GPU-cccc, 0 / 3, GPU-dddd, 0 / Unable to query the NVLink state"));
    }

    @Test
    void nvidiaSmiMissingWhenGpusWereRegisteredIsUnhealthy() throws Exception {
        checks = new HealthChecks(FOUR_GPUS, dir.resolve("no-nvidia-smi").toString(), HealthChecks.PROGRAM_TIMEOUT);
        assertThat(checks.check(GPUS_ONLY).message()).startsWith("nvidia-smi cannot run: ");
    }

    @Test
    void bothChecksFailingAreReportedTogether() throws Exception {
        fakeNvidiaSmi("0, GPU-aaaa, 0\n1, GPU-bbbb, 0\n2, GPU-cccc, 0", 0);
        Path program = script("check", "echo 'disk /scratch full'\nexit 1");
        checks = new HealthChecks(FOUR_GPUS, dir.resolve("nvidia-smi").toString(), HealthChecks.PROGRAM_TIMEOUT);
        assertThat(checks.check(new NodeSettings(false, program.toString(), 60, true, null, null)))
                .isEqualTo(new Health(false, "disk /scratch full; GPU 3 (GPU-dddd) is lost"));
    }

    @Test
    void withNoProgramAndNoGpusThereIsNoVerdictAtAll() throws Exception {
        checks = new HealthChecks(List.of(), dir.resolve("nvidia-smi").toString(), HealthChecks.PROGRAM_TIMEOUT);
        checks.configure(null);
        checks.configure(GPUS_ONLY);
        assertThat(checks.verdict()).isNull();
        assertThat(checks.check(GPUS_ONLY)).isEqualTo(new Health(true, null));
    }

    @Test
    void theGpuCheckCanBeTurnedOff() throws Exception {
        checks = new HealthChecks(FOUR_GPUS, dir.resolve("no-nvidia-smi").toString(), HealthChecks.PROGRAM_TIMEOUT);
        checks.configure(new NodeSettings(false, null, 60, false, null, null));
        assertThat(checks.verdict()).isNull();
    }

    @Test
    void theVerdictFollowsTheProgramEveryInterval() throws Exception {
        Path status = dir.resolve("status");
        Files.writeString(status, "1");
        Path program = script("check", "if [ \"$(cat " + status + ")\" = 0 ]; then exit 0; fi\n"
                + "echo 'disk /scratch full'\nexit 1");
        checks = new HealthChecks(List.of(), dir.resolve("nvidia-smi").toString(), HealthChecks.PROGRAM_TIMEOUT);
        checks.configure(new NodeSettings(false, program.toString(), 1, true, null, null));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> new Health(false, "disk /scratch full").equals(checks.verdict()));
        Files.writeString(status, "0");
        await().atMost(Duration.ofSeconds(10)).until(() -> new Health(true, null).equals(checks.verdict()));
        checks.configure(new NodeSettings(false, null, 1, true, null, null));
        assertThat(checks.verdict()).isNull();
    }

    private Health programCheck(String body) throws Exception {
        return healthOf(script("check", body).toString(), false);
    }

    private Health healthOf(String program, boolean gpus) throws Exception {
        checks = new HealthChecks(List.of(), dir.resolve("nvidia-smi").toString(), HealthChecks.PROGRAM_TIMEOUT);
        return checks.check(new NodeSettings(false, program, 60, gpus, null, null));
    }

    private Health gpuCheck(String output, int exitCode) throws Exception {
        Path smi = fakeNvidiaSmi(output, exitCode);
        checks = new HealthChecks(FOUR_GPUS, smi.toString(), HealthChecks.PROGRAM_TIMEOUT);
        return checks.check(GPUS_ONLY);
    }

    /** Answers only the query the check makes, as nvidia-smi refuses a field it does not know. */
    private Path fakeNvidiaSmi(String output, int exitCode) throws IOException {
        return script("nvidia-smi", """
                if [ "$1" != "--query-gpu=index,uuid,ecc.errors.uncorrected.volatile.total" ] \\
                        || [ "$2" != "--format=csv,noheader,nounits" ]; then
                    echo "Field \\"$1\\" is not a valid field to query." >&2
                    exit 2
                fi
                cat <<'EOF'
                %s
                EOF
                exit %d""".formatted(output, exitCode));
    }

    private Path script(String name, String body) throws IOException {
        Path script = dir.resolve(name);
        Files.writeString(script, "#!/bin/bash\n" + body + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }
}
