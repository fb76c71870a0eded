package io.gantry.noded;

import static io.gantry.noded.GpuDeviceFixture.CAPS_MAJOR;
import static io.gantry.noded.GpuDeviceFixture.ciMinor;
import static io.gantry.noded.GpuDeviceFixture.giMinor;
import static org.assertj.core.api.Assertions.assertThat;

import io.gantry.noded.GpuDevices.DeviceFile;
import io.gantry.noded.GpuDevices.Grant;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which device files a job's GPUs, MIG instances or shards need, by the driver's numbers. */
class GpuDevicesTests {

    @TempDir
    Path proc;

    private final Path dev = Path.of("/dev");
    private GpuDevices devices;

    @BeforeEach
    void driver() throws IOException {
        GpuDeviceFixture.writeProc(proc);
        devices = GpuDeviceFixture.devices(proc, dev);
    }

    private DeviceFile gpu(int minor) {
        return new DeviceFile(dev.resolve("nvidia" + minor), 195, minor);
    }

    private DeviceFile cap(int minor) {
        return new DeviceFile(dev.resolve("nvidia-caps/nvidia-cap" + minor), CAPS_MAJOR, minor);
    }

    @Test
    void aWholeGpuIsItsDriverMinorNotItsIndex() {
        assertThat(devices.problems()).isEmpty();
        assertThat(devices.allowed(Grant.whole(List.of(0)))).containsExactly(gpu(2));
        assertThat(devices.allowed(Grant.whole(List.of(1)))).containsExactly(gpu(0));
        assertThat(devices.denied(Grant.whole(List.of(0)))).containsExactlyInAnyOrder(gpu(0), gpu(1),
                cap(giMinor(1, 1)), cap(ciMinor(1, 1, 0)), cap(giMinor(1, 2)), cap(ciMinor(1, 2, 0)));
    }

    @Test
    void aShardNeedsTheWholeGpuItIsOn() {
        assertThat(devices.allowed(new Grant(List.of(), List.of(), 0))).containsExactly(gpu(2));
        assertThat(devices.denied(new Grant(List.of(), List.of(), 0))).doesNotContain(gpu(2)).contains(gpu(0), gpu(1));
    }

    @Test
    void aMigInstanceNeedsItsGpuAndItsOwnCapabilitiesOnly() {
        Grant second = new Grant(List.of(), List.of(1), null);

        assertThat(devices.allowed(second)).containsExactlyInAnyOrder(gpu(1), cap(giMinor(1, 2)), cap(ciMinor(1, 2, 0)));
        assertThat(devices.denied(second)).containsExactlyInAnyOrder(gpu(0), gpu(2), cap(giMinor(1, 1)),
                cap(ciMinor(1, 1, 0)));
    }

    @Test
    void aJobWithoutGpusIsDeniedEveryDeviceFileAndUnknownIndicesGiveNothing() {
        assertThat(devices.denied(Grant.NONE)).hasSize(7);
        assertThat(devices.allowed(new Grant(List.of(9), List.of(5), 8))).isEmpty();
    }

    @Test
    void withoutTheDriversFilesTheMinorsComeFromNvidiaSmiQ() throws IOException {
        AgentDirs.deleteTree(proc.resolve("driver/nvidia/gpus"));

        GpuDevices fromSmi = GpuDeviceFixture.devices(proc, dev);

        assertThat(fromSmi.allowed(Grant.whole(List.of(0, 1, 2)))).containsExactly(gpu(2), gpu(0), gpu(7));
        assertThat(fromSmi.problems()).as("mig-minors lists no gpu7").hasSize(2)
                .allSatisfy(p -> assertThat(p).startsWith("no capability files for MIG instance"));
    }

    @Test
    void whatCannotBeFoundIsSaidAndTheIndexIsTheLastResort() throws IOException {
        AgentDirs.deleteTree(proc.resolve("driver"));
        Files.delete(proc.resolve("devices"));

        GpuDevices bare = GpuDevices.read(proc, dev, GpuDevices.parseQuery(GpuDeviceFixture.QUERY), "",
                GpuDeviceFixture.MIG);

        assertThat(bare.allowed(Grant.whole(List.of(0)))).containsExactly(gpu(0));
        assertThat(bare.problems()).anySatisfy(p -> assertThat(p).contains("no device minor for GPU 0"))
                .anySatisfy(p -> assertThat(p).contains("nvidia-caps"))
                .anySatisfy(p -> assertThat(p).contains("MIG-c2"));
    }

    @Test
    void busIdsAreMatchedAsTheDriverSpellsThem() {
        assertThat(GpuDevices.bus("00000000:3B:00.0")).isEqualTo("0000:3b:00.0");
        assertThat(GpuDevices.bus("0000:3b:00.0")).isEqualTo("0000:3b:00.0");
        assertThat(GpuDevices.parseQuery("index, uuid, pci.bus_id\n3, GPU-x, 00000000:01:00.0\n"))
                .containsExactly(new GpuDevices.SmiGpu(3, "GPU-x", "00000000:01:00.0"));
    }

    @Test
    void aV1RuleNamesTheDeviceNumbers() {
        assertThat(cap(12).rule()).isEqualTo("c " + CAPS_MAJOR + ":12 rwm");
    }
}
