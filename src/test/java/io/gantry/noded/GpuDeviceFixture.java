package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol.MigDevice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A node with three GPUs whose driver minors are not their nvidia-smi indices, the third split into
 * two MIG instances, as the driver's files under a fake {@code /proc} and {@code nvidia-smi} show it:
 * <pre>
 * index  uuid     bus id             minor
 * 0      GPU-aaa  00000000:3B:00.0   2
 * 1      GPU-bbb  00000000:5E:00.0   0
 * 2      GPU-ccc  00000000:86:00.0   1     MIG 0: gi 1 ci 0, MIG 1: gi 2 ci 0
 * </pre>
 * {@code nvidia-caps} has major {@value #CAPS_MAJOR} (no driver registers it on a test host), and
 * {@code mig-minors} numbers as the driver does: {@code gpuM/giG/access} is 3 + 135·M + 9·G, each
 * of its compute instances {@code ciC} that plus 1 + C.
 */
final class GpuDeviceFixture {

    static final int CAPS_MAJOR = 236;

    static final String QUERY = """
            0, GPU-aaa, 00000000:3B:00.0
            1, GPU-bbb, 00000000:5E:00.0
            2, GPU-ccc, 00000000:86:00.0
            """;

    /** Parts of {@code nvidia-smi -q}: the minor of GPU 2 is given differently here, the driver's files win. */
    static final String SMI_Q = """
            ==============NVSMI LOG==============

            Driver Version                            : 550.54.15
            Attached GPUs                             : 3
            GPU 00000000:3B:00.0
                Product Name                          : NVIDIA A100-SXM4-40GB
                MIG Mode
                    Current                           : Disabled
                    Pending                           : Disabled
                GPU UUID                              : GPU-aaa
                Minor Number                          : 2
                Processes                             : None

            GPU 00000000:5E:00.0
                Product Name                          : NVIDIA A100-SXM4-40GB
                GPU UUID                              : GPU-bbb
                Minor Number                          : 0
                Processes
                    GPU instance ID                   : N/A
                    Compute instance ID               : N/A
                    Process ID                        : 4242

            GPU 00000000:86:00.0
                Product Name                          : NVIDIA A100-SXM4-40GB
                MIG Mode
                    Current                           : Enabled
                    Pending                           : Enabled
                MIG Devices
                    MIG Device
                        Index                         : 0
                        GPU Instance ID               : 1
                        Compute Instance ID           : 0
                        Device Attributes
                            Shared
                                Multiprocessor count  : 42
                    MIG Device
                        Index                         : 1
                        GPU Instance ID               : 2
                        Compute Instance ID           : 0
                        Device Attributes
                            Shared
                                Multiprocessor count  : 42
                Accounting Mode                       : Disabled
                GPU UUID                              : GPU-ccc
                Minor Number                          : 7
                Processes                             : None
            """;

    static final List<MigDevice> MIG = List.of(new MigDevice(2, "3g.20gb", "MIG-c1"),
            new MigDevice(2, "3g.20gb", "MIG-c2"));

    private GpuDeviceFixture() {
    }

    static int giMinor(int gpuMinor, int gi) {
        return 3 + 135 * gpuMinor + 9 * gi;
    }

    static int ciMinor(int gpuMinor, int gi, int ci) {
        return giMinor(gpuMinor, gi) + 1 + ci;
    }

    /** Writes the fake {@code /proc} under {@code proc}. */
    static void writeProc(Path proc) throws IOException {
        information(proc, "0000:3b:00.0", "GPU-aaa", 2);
        information(proc, "0000:5e:00.0", "GPU-bbb", 0);
        information(proc, "0000:86:00.0", "GPU-ccc", 1);
        Files.writeString(proc.resolve("devices"), "Character devices:\n  1 mem\n195 nvidia-frontend\n"
                + CAPS_MAJOR + " nvidia-caps\n237 nvidia-uvm\n\nBlock devices:\n  7 loop\n");
        StringBuilder minors = new StringBuilder("config 1\nmonitor 2\n");
        for (int gpu = 0; gpu < 3; gpu++) {
            for (int gi = 0; gi < 15; gi++) {
                minors.append("gpu").append(gpu).append("/gi").append(gi).append("/access ")
                        .append(giMinor(gpu, gi)).append('\n');
                for (int ci = 0; ci < 8; ci++) {
                    minors.append("gpu").append(gpu).append("/gi").append(gi).append("/ci").append(ci)
                            .append("/access ").append(ciMinor(gpu, gi, ci)).append('\n');
                }
            }
        }
        Files.createDirectories(proc.resolve("driver/nvidia-caps"));
        Files.writeString(proc.resolve("driver/nvidia-caps/mig-minors"), minors);
    }

    private static void information(Path proc, String bus, String uuid, int minor) throws IOException {
        Path dir = Files.createDirectories(proc.resolve("driver/nvidia/gpus").resolve(bus));
        Files.writeString(dir.resolve("information"), "Model: \t\t NVIDIA A100-SXM4-40GB\nIRQ:   \t\t 88\n"
                + "GPU UUID: \t " + uuid + "\nVideo BIOS: \t 92.00.36.00.01\nBus Type: \t PCIe\n"
                + "DMA Size: \t 47 bits\nBus Location: \t " + bus + "\nDevice Minor: \t " + minor
                + "\nGPU Excluded:\t No\n");
    }

    static GpuDevices devices(Path proc, Path dev) {
        return GpuDevices.read(proc, dev, GpuDevices.parseQuery(QUERY), SMI_Q, MIG);
    }
}
