package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol.Gpu;
import io.gantry.noded.protocol.AgentProtocol.MigDevice;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What this node offers the scheduler: CPUs, memory, GPUs and features, detected from the machine
 * (the JVM's processor count, {@code /proc/meminfo}, {@code nvidia-smi}) unless the command line
 * declares them, which wins, so a node can offer less than it has or GPUs can be declared on a
 * test machine without any. A GPU split into MIG instances ({@code nvidia-smi -L}) is not offered
 * whole: its instances are offered in {@code mig}, as Slurm's gres.conf lists them as typed GPUs.
 */
record NodeResources(int cpus, long memoryMb, List<Gpu> gpus, String gpuType, List<String> features,
        List<MigDevice> mig) {

    private static final Pattern GPU_TYPE = Pattern.compile("^([A-Za-z]+[0-9]+[A-Za-z]*)");
    /** {@code GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-...)} of {@code nvidia-smi -L}. */
    private static final Pattern SMI_GPU = Pattern.compile("^GPU\\s+(\\d+):.*\\(UUID:\\s*([^)\\s]+)\\)");
    /** {@code   MIG 1g.10gb     Device  0: (UUID: MIG-...)} under its GPU. */
    private static final Pattern SMI_MIG = Pattern.compile(
            "^\\s*MIG\\s+(\\S+)\\s+Device\\s+(\\d+):\\s*\\(UUID:\\s*(MIG-[^)\\s]+)\\)");

    NodeResources {
        mig = mig == null ? List.of() : List.copyOf(mig);
    }

    NodeResources(int cpus, long memoryMb, List<Gpu> gpus, String gpuType, List<String> features) {
        this(cpus, memoryMb, gpus, gpuType, features, List.of());
    }

    static NodeResources detect(AgentOptions options) {
        int cpus = options.cpus() != null ? options.cpus() : Runtime.getRuntime().availableProcessors();
        long memoryMb = options.memoryMb() != null ? options.memoryMb() : memTotalMb(Path.of("/proc/meminfo"));
        List<Gpu> gpus;
        List<MigDevice> mig = List.of();
        String gpuType = options.gpuType();
        if (options.gpus() != null) {
            gpus = declaredGpus(options.gpus(), options.name(), gpuType);
        } else {
            gpus = nvidiaSmi();
            if (gpuType == null && !gpus.isEmpty()) {
                gpuType = gpuTypeOf(gpus.get(0).model());
            }
            mig = gpus.isEmpty() ? List.of() : parseMig(run("nvidia-smi", "-L"));
            gpus = whole(gpus, mig);
        }
        return new NodeResources(cpus, memoryMb, gpus, gpus.isEmpty() ? options.gpuType() : gpuType,
                options.features(), mig);
    }

    /**
     * The MIG instances of an {@code nvidia-smi -L} listing, in its order (the order the controller's
     * MIG indices count in); lines that are not MIG instances are skipped.
     */
    static List<MigDevice> parseMig(String listing) {
        List<MigDevice> mig = new ArrayList<>();
        int gpu = -1;
        for (String line : listing.split("\\R")) {
            Matcher g = SMI_GPU.matcher(line);
            if (g.find()) {
                gpu = Integer.parseInt(g.group(1));
                continue;
            }
            Matcher m = SMI_MIG.matcher(line);
            if (m.find() && gpu >= 0) {
                mig.add(new MigDevice(gpu, m.group(1), m.group(3)));
            }
        }
        return List.copyOf(mig);
    }

    /** The GPUs not split into MIG instances: only these can be given whole. */
    static List<Gpu> whole(List<Gpu> gpus, List<MigDevice> mig) {
        java.util.Set<Integer> split = new java.util.HashSet<>();
        mig.forEach(m -> split.add(m.gpu()));
        return gpus.stream().filter(g -> !split.contains(g.index())).toList();
    }

    /** What a program prints, or "" when it is missing, fails or takes over 10 s. */
    static String run(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return "";
                }
                out = in.readAllBytes();
            }
            return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** {@code count} GPUs the operator declared: indices 0..count-1, uuid {@code declared-<node>-<i>}. */
    static List<Gpu> declaredGpus(int count, String node, String model) {
        List<Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            gpus.add(new Gpu(i, "declared-" + node + "-" + i, model));
        }
        return gpus;
    }

    /** MemTotal of a {@code /proc/meminfo} in MB; 0 when it cannot be read. */
    static long memTotalMb(Path meminfo) {
        try {
            return memTotalMb(Files.readString(meminfo, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return 0;
        }
    }

    static long memTotalMb(String meminfo) {
        for (String line : meminfo.split("\n")) {
            if (line.startsWith("MemTotal:")) {
                String[] parts = line.substring(9).strip().split("\\s+");
                try {
                    long value = Long.parseLong(parts[0]);
                    String unit = parts.length > 1 ? parts[1].toLowerCase(Locale.ROOT) : "kb";
                    return switch (unit) {
                        case "b" -> value / (1024 * 1024);
                        case "mb" -> value;
                        case "gb" -> value * 1024;
                        default -> value / 1024;
                    };
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    /** The GPUs {@code nvidia-smi} lists, or none when it is missing, fails or takes over 10 s. */
    static List<Gpu> nvidiaSmi() {
        if (!onPath("nvidia-smi")) {
            return List.of();
        }
        try {
            Process smi = new ProcessBuilder("nvidia-smi", "--query-gpu=index,uuid,name", "--format=csv,noheader")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            smi.getOutputStream().close();
            byte[] out;
            try (InputStream in = smi.getInputStream()) {
                if (!smi.waitFor(10, TimeUnit.SECONDS)) {
                    smi.destroyForcibly();
                    return List.of();
                }
                out = in.readAllBytes();
            }
            return smi.exitValue() == 0 ? parseNvidiaSmi(new String(out, StandardCharsets.UTF_8)) : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /** Lines of {@code index, uuid, name}; lines that do not parse are skipped. */
    static List<Gpu> parseNvidiaSmi(String csv) {
        List<Gpu> gpus = new ArrayList<>();
        for (String line : csv.split("\\R")) {
            String[] f = line.split(",", 3);
            if (f.length < 3) {
                continue;
            }
            try {
                int index = Integer.parseInt(f[0].strip());
                String uuid = f[1].strip();
                String name = f[2].strip();
                if (!uuid.isEmpty() && !name.isEmpty()) {
                    gpus.add(new Gpu(index, uuid, name));
                }
            } catch (NumberFormatException e) {
                // a warning or a header: not a GPU
            }
        }
        return gpus;
    }

    /** The GPU type in a model name: its first word of letters then digits, lower-cased ("NVIDIA H100 80GB HBM3" → "h100"). */
    static String gpuTypeOf(String model) {
        if (model == null) {
            return null;
        }
        for (String word : model.strip().split("\\s+")) {
            Matcher m = GPU_TYPE.matcher(word);
            if (m.find()) {
                return m.group(1).toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }
}
