package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.AgentProtocol.MigDevice;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The NVIDIA device files of this node as the driver numbers them, and which of them a job's GPUs,
 * MIG instances or shards need.
 *
 * <p>A GPU's device file is {@code /dev/nvidia<minor>}, where the minor is the driver's, not the
 * {@code nvidia-smi} index: the two differ wherever the driver enumerated the boards in another
 * order than NVML sorts them (by PCI bus). The minor comes from
 * {@code /proc/driver/nvidia/gpus/<bus id>/information} ({@code Device Minor}), matched to the GPU
 * by its UUID or bus id, else from {@code nvidia-smi -q} ({@code Minor Number}).
 *
 * <p>A MIG instance needs its GPU's device file and two capability files,
 * {@code /dev/nvidia-caps/nvidia-cap<M>}: its GPU instance's and its compute instance's
 * {@code access}, whose minors {@code /proc/driver/nvidia-caps/mig-minors} lists under
 * {@code gpu<gpu minor>/gi<id>/access} and {@code gpu<gpu minor>/gi<id>/ci<id>/access}; the
 * instance ids come from {@code nvidia-smi -q}, the major of {@code nvidia-caps} from
 * {@code /proc/devices}. A shard needs the device file of the whole GPU it is on.
 * {@code /dev/nvidiactl} and {@code /dev/nvidia-uvm*} every CUDA program needs; they are never
 * listed here, so never fenced.
 */
final class GpuDevices {

    /** NVIDIA's character-device major: every GPU's {@code /dev/nvidia<minor>} is {@code c 195:<minor>}. */
    static final int NVIDIA_MAJOR = 195;

    /** {@code Device Minor: 2} of a driver information file, or {@code Minor Number : 2} of {@code nvidia-smi -q}. */
    private static final Pattern MINOR = Pattern.compile("^\\s*(?:Device Minor|Minor Number)\\s*:\\s*(\\d+)\\s*$");
    private static final Pattern UUID = Pattern.compile("^\\s*GPU UUID\\s*:\\s*(\\S+)\\s*$");
    private static final Pattern BUS = Pattern.compile("^\\s*(?:Bus Location|Bus Id)\\s*:\\s*(\\S+)\\s*$");
    /** The line that opens one GPU's part of {@code nvidia-smi -q}: {@code GPU 00000000:3B:00.0}. */
    private static final Pattern SMI_Q_GPU = Pattern.compile("^GPU\\s+([0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\\.[0-9A-Fa-f]+)\\s*$");
    private static final Pattern KEY_VALUE = Pattern.compile("^(\\s*)([^:]+?)\\s*:\\s*(.*?)\\s*$");

    /** One device file: where, and its character-device numbers (what a v1 {@code devices.deny} rule names). */
    record DeviceFile(Path path, int major, int minor) {

        /** The cgroup v1 devices rule for this file: {@code c 195:2 rwm}. */
        String rule() {
            return "c " + major + ":" + minor + " rwm";
        }
    }

    /**
     * The GPUs a job has on this node: whole GPUs and the GPU its shards are on (nvidia-smi indices),
     * MIG instances (indices into this node's MIG instances in {@code nvidia-smi -L} order).
     */
    record Grant(List<Integer> whole, List<Integer> mig, Integer shard) {

        static final Grant NONE = new Grant(List.of(), List.of(), null);

        Grant {
            whole = whole == null ? List.of() : whole.stream().filter(Objects::nonNull).toList();
            mig = mig == null ? List.of() : mig.stream().filter(Objects::nonNull).toList();
        }

        static Grant whole(List<Integer> gpus) {
            return new Grant(gpus, List.of(), null);
        }

        static Grant of(Launch launch) {
            return new Grant(launch.gpuIndices(), launch.migIndices(), launch.shardGpu());
        }
    }

    /** What {@code nvidia-smi --query-gpu=index,uuid,pci.bus_id} says of one GPU. */
    record SmiGpu(int index, String uuid, String busId) {
    }

    /** One MIG instance's capability files; null where they could not be read. */
    private record MigCaps(int gpu, DeviceFile gpuInstance, DeviceFile computeInstance) {
    }

    private final Path dev;
    /** nvidia-smi index to the driver's minor, for every GPU (those split into MIG instances too). */
    private final Map<Integer, Integer> minors;
    private final List<MigCaps> mig;
    private final List<String> problems;
    private final boolean fromDriver;

    private GpuDevices(Path dev, Map<Integer, Integer> minors, List<MigCaps> mig, List<String> problems,
            boolean fromDriver) {
        this.dev = dev;
        this.fromDriver = fromDriver;
        this.minors = java.util.Collections.unmodifiableMap(new TreeMap<>(minors));
        this.mig = List.copyOf(mig);
        this.problems = List.copyOf(problems);
    }

    /** A node without GPUs. */
    static GpuDevices none() {
        return new GpuDevices(Path.of("/dev"), Map.of(), List.of(), List.of(), false);
    }

    /**
     * GPUs {@code 0..count-1} whose minors are taken to be their indices: only for GPUs declared
     * where no driver answers (a test machine); {@link #problems()} says so.
     */
    static GpuDevices byIndex(int count, Path dev) {
        Map<Integer, Integer> minors = new HashMap<>();
        for (int i = 0; i < count; i++) {
            minors.put(i, i);
        }
        return new GpuDevices(dev, minors, List.of(), count == 0 ? List.of()
                : List.of("no NVIDIA driver answered for the declared GPUs: /dev/nvidiaN is taken to be GPU N"), false);
    }

    /**
     * This node's GPU device files, read from the driver ({@code nvidia-smi}, {@code <proc>/driver},
     * {@code <proc>/devices}).
     *
     * @param proc where procfs is mounted ({@code /proc}; a fake tree in tests)
     * @param dev where the device files are ({@code /dev})
     * @param declaredGpus how many GPUs the operator declared (0..n-1), or -1 when they were detected
     */
    static GpuDevices detect(Path proc, Path dev, int declaredGpus, List<MigDevice> mig) {
        String query = NodeResources.run("nvidia-smi", "--query-gpu=index,uuid,pci.bus_id", "--format=csv,noheader");
        List<SmiGpu> gpus = parseQuery(query);
        if (gpus.isEmpty()) {
            return declaredGpus > 0 ? byIndex(declaredGpus, dev) : none();
        }
        return read(proc, dev, gpus, NodeResources.run("nvidia-smi", "-q"), mig);
    }

    /**
     * The device files of {@code gpus}, with the driver's files under {@code proc} and
     * {@code nvidiaSmiQ} the text of {@code nvidia-smi -q} ("" when unavailable).
     */
    static GpuDevices read(Path proc, Path dev, List<SmiGpu> gpus, String nvidiaSmiQ, List<MigDevice> migDevices) {
        List<String> problems = new ArrayList<>();
        Map<String, Integer> driverMinors = driverMinors(proc.resolve("driver/nvidia/gpus"));
        Map<String, SmiQGpu> smiQ = parseSmiQ(nvidiaSmiQ);
        Map<Integer, Integer> minors = new TreeMap<>();
        Map<Integer, SmiQGpu> byIndex = new HashMap<>();
        for (SmiGpu gpu : gpus) {
            SmiQGpu q = smiQ.getOrDefault(key(gpu.uuid()), gpu.busId() == null ? null : smiQ.get(bus(gpu.busId())));
            if (q != null) {
                byIndex.put(gpu.index(), q);
            }
            Integer minor = driverMinors.get(key(gpu.uuid()));
            if (minor == null && gpu.busId() != null) {
                minor = driverMinors.get(bus(gpu.busId()));
            }
            if (minor == null && q != null) {
                minor = q.minor();
            }
            if (minor == null) {
                problems.add("no device minor for GPU " + gpu.index() + " (" + gpu.uuid() + ") in "
                        + proc.resolve("driver/nvidia/gpus") + " nor in nvidia-smi -q: /dev/nvidia" + gpu.index()
                        + " is taken to be it");
                minor = gpu.index();
            }
            minors.put(gpu.index(), minor);
        }
        List<MigCaps> caps = new ArrayList<>();
        if (!migDevices.isEmpty()) {
            Integer capsMajor = capsMajor(proc.resolve("devices"));
            Map<String, Integer> migMinors = migMinors(proc.resolve("driver/nvidia-caps/mig-minors"));
            if (capsMajor == null) {
                problems.add("no nvidia-caps major in " + proc.resolve("devices") + ": MIG capability files are not fenced");
            }
            Map<Integer, Integer> seen = new HashMap<>();
            for (MigDevice m : migDevices) {
                int within = seen.merge(m.gpu(), 1, Integer::sum) - 1;
                Integer gpuMinor = minors.get(m.gpu());
                SmiQGpu q = byIndex.get(m.gpu());
                int[] ids = q == null || within >= q.mig().size() ? null : q.mig().get(within);
                DeviceFile gi = null;
                DeviceFile ci = null;
                if (gpuMinor != null && ids != null && capsMajor != null) {
                    gi = capFile(dev, capsMajor, migMinors.get("gpu" + gpuMinor + "/gi" + ids[0] + "/access"));
                    ci = capFile(dev, capsMajor, migMinors.get("gpu" + gpuMinor + "/gi" + ids[0] + "/ci" + ids[1]
                            + "/access"));
                }
                if (gpuMinor == null || gi == null || ci == null) {
                    problems.add("no capability files for MIG instance " + m.uuid() + " (GPU " + m.gpu() + ", "
                            + (ids == null ? "no instance ids in nvidia-smi -q" : "gi " + ids[0] + " ci " + ids[1])
                            + "): jobs on it may not start, other jobs are not fenced off it");
                }
                caps.add(new MigCaps(m.gpu(), gi, ci));
            }
        }
        return new GpuDevices(dev, minors, caps, problems, true);
    }

    /** What could not be read from the driver, for the agent's log; empty when all was found. */
    List<String> problems() {
        return problems;
    }

    /** Whether the numbers were read from an NVIDIA driver (not GPUs declared where none answers). */
    boolean fromDriver() {
        return fromDriver;
    }

    boolean isEmpty() {
        return minors.isEmpty();
    }

    /** Every GPU and MIG capability file of the node that some job may be given. */
    List<DeviceFile> all() {
        Set<DeviceFile> all = new LinkedHashSet<>();
        minors.values().forEach(minor -> all.add(gpuFile(minor)));
        for (MigCaps m : mig) {
            if (m.gpuInstance() != null) {
                all.add(m.gpuInstance());
            }
            if (m.computeInstance() != null) {
                all.add(m.computeInstance());
            }
        }
        return List.copyOf(all);
    }

    /** The device files {@code grant} needs (GPUs or MIG instances this node does not know give none). */
    List<DeviceFile> allowed(Grant grant) {
        Set<DeviceFile> allowed = new LinkedHashSet<>();
        for (int gpu : grant.whole()) {
            gpu(gpu, allowed);
        }
        if (grant.shard() != null) {
            gpu(grant.shard(), allowed);
        }
        for (int index : grant.mig()) {
            if (index >= 0 && index < mig.size()) {
                MigCaps m = mig.get(index);
                gpu(m.gpu(), allowed);
                if (m.gpuInstance() != null) {
                    allowed.add(m.gpuInstance());
                }
                if (m.computeInstance() != null) {
                    allowed.add(m.computeInstance());
                }
            }
        }
        return List.copyOf(allowed);
    }

    /** The device files of the node {@code grant} does not need: the ones to fence the job off. */
    List<DeviceFile> denied(Grant grant) {
        List<DeviceFile> denied = new ArrayList<>(all());
        denied.removeAll(allowed(grant));
        return List.copyOf(denied);
    }

    private void gpu(int index, Set<DeviceFile> into) {
        Integer minor = minors.get(index);
        if (minor != null) {
            into.add(gpuFile(minor));
        }
    }

    private DeviceFile gpuFile(int minor) {
        return new DeviceFile(dev.resolve("nvidia" + minor), NVIDIA_MAJOR, minor);
    }

    private static DeviceFile capFile(Path dev, int major, Integer minor) {
        return minor == null ? null : new DeviceFile(dev.resolve("nvidia-caps/nvidia-cap" + minor), major, minor);
    }

    /** Lines of {@code index, uuid, pci.bus_id}; lines that do not parse are skipped. */
    static List<SmiGpu> parseQuery(String csv) {
        List<SmiGpu> gpus = new ArrayList<>();
        for (String line : csv.split("\\R")) {
            String[] f = line.split(",");
            if (f.length < 2) {
                continue;
            }
            try {
                String uuid = f[1].strip();
                if (!uuid.isEmpty()) {
                    gpus.add(new SmiGpu(Integer.parseInt(f[0].strip()), uuid, f.length > 2 ? f[2].strip() : null));
                }
            } catch (NumberFormatException e) {
                // a warning or a header: not a GPU
            }
        }
        return gpus;
    }

    /**
     * UUID and bus id (both as {@link #key} and {@link #bus} make them) to minor, from every
     * {@code <gpus>/<bus id>/information} the driver offers.
     */
    static Map<String, Integer> driverMinors(Path gpus) {
        Map<String, Integer> minors = new HashMap<>();
        if (!Files.isDirectory(gpus)) {
            return minors;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(gpus)) {
            for (Path dir : dirs) {
                String text;
                try {
                    text = Files.readString(dir.resolve("information"), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    continue;
                }
                Integer minor = null;
                String uuid = null;
                String busId = dir.getFileName().toString();
                for (String line : text.split("\\R")) {
                    Matcher m;
                    if ((m = MINOR.matcher(line)).matches()) {
                        minor = Integer.parseInt(m.group(1));
                    } else if ((m = UUID.matcher(line)).matches()) {
                        uuid = m.group(1);
                    } else if ((m = BUS.matcher(line)).matches()) {
                        busId = m.group(1);
                    }
                }
                if (minor != null) {
                    minors.put(bus(busId), minor);
                    if (uuid != null) {
                        minors.put(key(uuid), minor);
                    }
                }
            }
        } catch (IOException e) {
            // unreadable: the minors come from nvidia-smi -q instead
        }
        return minors;
    }

    /** The major of {@code nvidia-caps} in a {@code /proc/devices}, or null. */
    static Integer capsMajor(Path devices) {
        for (String line : Cgroups.read(devices).split("\\R")) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 2 && f[1].equals("nvidia-caps")) {
                try {
                    return Integer.parseInt(f[0]);
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }

    /** {@code gpu0/gi1/access 12}: name to minor, from {@code /proc/driver/nvidia-caps/mig-minors}. */
    static Map<String, Integer> migMinors(Path file) {
        Map<String, Integer> minors = new HashMap<>();
        for (String line : Cgroups.read(file).split("\\R")) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 2) {
                try {
                    minors.put(f[0], Integer.parseInt(f[1]));
                } catch (NumberFormatException e) {
                    // not a capability line
                }
            }
        }
        return minors;
    }

    /** One GPU's part of {@code nvidia-smi -q}: its minor and its MIG devices' (gi, ci) ids by MIG device index. */
    record SmiQGpu(Integer minor, List<int[]> mig) {
    }

    /**
     * The GPUs of an {@code nvidia-smi -q} text, each under its UUID and its bus id. A GPU's MIG
     * devices are the {@code MIG Device} blocks of its {@code MIG Devices} section, each with
     * {@code Index}, {@code GPU Instance ID} and {@code Compute Instance ID}.
     */
    static Map<String, SmiQGpu> parseSmiQ(String text) {
        Map<String, SmiQGpu> out = new LinkedHashMap<>();
        String busId = null;
        String uuid = null;
        Integer minor = null;
        TreeMap<Integer, int[]> mig = new TreeMap<>();
        int migIndent = -1;
        Integer index = null;
        Integer gi = null;
        Integer ci = null;
        for (String line : (text + "\nGPU 0:0:0.0").split("\\R")) {
            Matcher header = SMI_Q_GPU.matcher(line);
            if (header.matches()) {
                if (index != null && gi != null && ci != null) {
                    mig.put(index, new int[] {gi, ci});
                }
                if (busId != null) {
                    SmiQGpu gpu = new SmiQGpu(minor, List.copyOf(mig.values()));
                    out.put(bus(busId), gpu);
                    if (uuid != null) {
                        out.put(key(uuid), gpu);
                    }
                }
                busId = header.group(1);
                uuid = null;
                minor = null;
                mig = new TreeMap<>();
                migIndent = -1;
                index = gi = ci = null;
                continue;
            }
            int indent = line.length() - line.stripLeading().length();
            String stripped = line.strip();
            if (migIndent >= 0 && !stripped.isEmpty() && indent <= migIndent) {
                migIndent = -1; // the MIG Devices section is over
            }
            if (stripped.equalsIgnoreCase("MIG Devices")) {
                migIndent = indent;
                continue;
            }
            if (migIndent >= 0) {
                if (stripped.equalsIgnoreCase("MIG Device")) {
                    if (index != null && gi != null && ci != null) {
                        mig.put(index, new int[] {gi, ci});
                    }
                    index = gi = ci = null;
                    continue;
                }
                Matcher kv = KEY_VALUE.matcher(line);
                if (kv.matches()) {
                    String k = kv.group(2).toLowerCase(Locale.ROOT);
                    Integer v = number(kv.group(3));
                    switch (k) {
                        case "index" -> index = index == null ? v : index;
                        case "gpu instance id" -> gi = gi == null ? v : gi;
                        case "compute instance id" -> ci = ci == null ? v : ci;
                        default -> {
                        }
                    }
                }
                continue;
            }
            Matcher m;
            if ((m = MINOR.matcher(line)).matches()) {
                minor = Integer.parseInt(m.group(1));
            } else if ((m = UUID.matcher(line)).matches()) {
                uuid = m.group(1);
            }
        }
        return out;
    }

    private static Integer number(String s) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String key(String uuid) {
        return uuid.strip().toLowerCase(Locale.ROOT);
    }

    /**
     * A PCI bus id as the driver's directories spell it: nvidia-smi writes {@code 00000000:3B:00.0},
     * the driver {@code 0000:3b:00.0}.
     */
    static String bus(String busId) {
        String b = busId.strip().toLowerCase(Locale.ROOT);
        int colon = b.indexOf(':');
        if (colon > 4 && b.indexOf(':', colon + 1) > 0) {
            String domain = b.substring(0, colon).replaceFirst("^0+(?=[0-9a-f]{4}$)", "");
            b = domain + b.substring(colon);
        }
        return b;
    }
}
