package io.gantry.noded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cgroup fences a node agent puts around each job: a memory limit the job cannot dodge by
 * swapping, the CPUs it may run on, the GPUs it may open, and one place that holds every process
 * it started, so a daemon it double-forked is still found, counted and killed.
 *
 * <p>Each controller is looked up on its own, because a host may be hybrid: cgroup v1 controllers
 * each on their own hierarchy (e.g. {@code /sys/fs/cgroup/memory}) beside a v2 unified hierarchy
 * that holds the rest. A controller mounted as v1 is used as v1; otherwise it is used as v2 when
 * the unified hierarchy lists it in {@code cgroup.controllers}. A job's cgroup is
 * {@code <hierarchy>/<top>/<node>/job_<jobId>} in every hierarchy used, {@code <top>} being
 * {@code gantry} unless the agent names another ({@code --cgroup-root}, so two clusters on one host
 * keep apart); the node name keeps two agents of one cluster on one host apart, and jobs live in
 * leaves only, as v2's "no internal processes" rule requires.
 *
 * <p>The GPU device files a job may not use are denied in v1's {@code devices.deny}. v2 has no
 * such file (its devices fence is an eBPF program, which Java cannot load): there, and on v1 too,
 * {@link DeviceConstraint} hides them from the job in a mount namespace of its own.
 *
 * <p>Without a usable memory controller ({@link #available()} false) jobs run unfenced; the
 * reason is logged once, by {@link #detect()}.
 */
final class Cgroups {

    private static final Logger log = LoggerFactory.getLogger(Cgroups.class);

    /** Under each hierarchy's root, unless the agent names another: everything the agents of this host create. */
    static final String TOP = "gantry";

    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");

    /** The controllers a job's fence uses, by their kernel names. */
    enum Controller {
        MEMORY("memory"), CPUSET("cpuset"), DEVICES("devices"), CPU("cpu"), CPUACCT("cpuacct"), PIDS("pids"),
        FREEZER("freezer");

        final String kernelName;

        Controller(String kernelName) {
            this.kernelName = kernelName;
        }

        static Optional<Controller> named(String name) {
            for (Controller c : values()) {
                if (c.kernelName.equals(name)) {
                    return Optional.of(c);
                }
            }
            return Optional.empty();
        }
    }

    /** Where a controller lives: the mount of its own v1 hierarchy, or of the v2 unified hierarchy. */
    record Hierarchy(Path mount, boolean unified) {
    }

    /**
     * What a job may use. {@code memoryBytes} 0: no limit; {@code cpus} empty: no pinning;
     * {@code deniedDevices} the device files it may not open (the node's GPUs and MIG capabilities
     * it was not given, with the driver's numbers).
     */
    record Limits(long memoryBytes, List<Integer> cpus, List<GpuDevices.DeviceFile> deniedDevices) {

        Limits {
            if (memoryBytes < 0) {
                throw new IllegalArgumentException("memoryBytes must be 0 (no limit) or positive: " + memoryBytes);
            }
            cpus = List.copyOf(cpus);
            deniedDevices = List.copyOf(deniedDevices);
            if (cpus.stream().anyMatch(c -> c < 0)) {
                throw new IllegalArgumentException("negative CPU index in " + cpus);
            }
        }

        static Limits none() {
            return new Limits(0, List.of(), List.of());
        }
    }

    /** Whether {@code devices.deny} can fence devices: the devices controller is mounted as v1. */
    boolean deniesDevices() {
        Hierarchy devices = controllers.get(Controller.DEVICES);
        return devices != null && !devices.unified();
    }

    private final Map<Controller, Hierarchy> controllers;
    private final String unavailableReason;
    private final String top;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    private Cgroups(Map<Controller, Hierarchy> controllers, String unavailableReason, String top) {
        EnumMap<Controller, Hierarchy> copy = new EnumMap<>(Controller.class);
        copy.putAll(controllers);
        this.controllers = Collections.unmodifiableMap(copy);
        this.unavailableReason = unavailableReason;
        this.top = segment("cgroup root", top);
    }

    /** The same cgroups, with jobs under {@code top} instead: {@code <hierarchy>/<top>/<node>/job_<id>}. */
    Cgroups under(String top) {
        return new Cgroups(controllers, unavailableReason, top);
    }

    /** Whether {@code name} can be the directory under each hierarchy's root that {@link #under} takes. */
    static boolean usableTop(String name) {
        return name != null && SEGMENT.matcher(name).matches();
    }

    /** This host's cgroups, from {@code /proc/self/mountinfo} (or {@code /proc/mounts}). */
    static Cgroups detect() {
        String mounts;
        try {
            mounts = Files.readString(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            try {
                mounts = Files.readString(Path.of("/proc/mounts"), StandardCharsets.UTF_8);
            } catch (IOException e2) {
                mounts = "";
            }
        }
        Cgroups cgroups = from(mounts, Path.of("/"));
        if (cgroups.available()) {
            log.info("job cgroups: {}", cgroups.describe());
        } else {
            log.warn("jobs run without cgroup fences (no memory limit, CPU pinning, GPU fence or process tracking): {}",
                    cgroups.unavailableReason);
        }
        return cgroups;
    }

    /**
     * The cgroups described by {@code mounts}, a {@code /proc/self/mountinfo} or {@code /proc/mounts}
     * text, with every mount point taken under {@code root} ({@code /} on a real host, a directory
     * shaped like a cgroupfs in tests).
     */
    static Cgroups from(String mounts, Path root) {
        EnumMap<Controller, Hierarchy> found = new EnumMap<>(Controller.class);
        Path unified = null;
        for (String line : mounts.split("\n")) {
            Optional<Mount> parsed = Mount.parse(line);
            if (parsed.isEmpty()) {
                continue;
            }
            Mount mount = parsed.get();
            Path dir = root.resolve(mount.point().substring(1));
            if (mount.type().equals("cgroup2")) {
                if (unified == null) {
                    unified = dir;
                }
            } else if (mount.type().equals("cgroup")) {
                for (String option : mount.options()) {
                    Controller.named(option).ifPresent(c -> found.putIfAbsent(c, new Hierarchy(dir, false)));
                }
            }
        }
        if (unified != null) {
            for (String name : read(unified.resolve("cgroup.controllers")).split("\\s+")) {
                Path u = unified;
                Controller.named(name).ifPresent(c -> found.putIfAbsent(c, new Hierarchy(u, true)));
            }
        }
        Hierarchy memory = found.get(Controller.MEMORY);
        String reason = null;
        if (memory == null) {
            reason = "no memory controller: neither mounted as cgroup v1 nor listed in the cgroup v2 "
                    + (unified == null ? "hierarchy (none mounted)" : unified.resolve("cgroup.controllers"));
        } else if (!Files.isWritable(memory.mount())) {
            reason = memory.mount() + " is not writable (the agent is not root, or it is mounted read-only)";
        }
        return new Cgroups(found, reason, TOP);
    }

    /** Whether jobs can be fenced: a memory controller exists and the agent may create cgroups in it. */
    boolean available() {
        return unavailableReason == null;
    }

    /** Why {@link #available()} is false; empty when it is true. */
    Optional<String> unavailableReason() {
        return Optional.ofNullable(unavailableReason);
    }

    /** Where each controller found lives. */
    Map<Controller, Hierarchy> controllers() {
        return controllers;
    }

    /** e.g. {@code memory=v1 /sys/fs/cgroup/memory, cpuset=v1 ...}, for the agent's log. */
    String describe() {
        return controllers.entrySet().stream()
                .map(e -> e.getKey().kernelName + "=" + (e.getValue().unified() ? "v2 " : "v1 ") + e.getValue().mount())
                .collect(Collectors.joining(", "));
    }

    /**
     * Creates job {@code jobId}'s cgroup on {@code node} in every hierarchy used and applies
     * {@code limits}; an existing one (an agent that crashed before removing it) is reused and its
     * limits set again. All or nothing: when any part fails, what this call created is removed and
     * the error thrown.
     */
    JobCgroup create(String node, String jobId, Limits limits) throws IOException {
        if (!available()) {
            throw new IllegalStateException("cgroups unavailable: " + unavailableReason);
        }
        Objects.requireNonNull(limits, "limits");
        List<Path> created = new ArrayList<>();
        try {
            Map<Controller, Path> dirs = new EnumMap<>(Controller.class);
            Map<Hierarchy, Path> made = new LinkedHashMap<>();
            for (Map.Entry<Controller, Hierarchy> e : controllers.entrySet()) {
                Hierarchy h = e.getValue();
                Path leaf = made.get(h);
                if (leaf == null) {
                    leaf = h.unified() ? makeV2(h.mount(), node, jobId, created)
                            : makeV1(h.mount(), node, jobId, h.equals(controllers.get(Controller.CPUSET)), created);
                    made.put(h, leaf);
                }
                dirs.put(e.getKey(), leaf);
            }
            JobCgroup job = new JobCgroup(jobId, controllers, dirs);
            // a reused one may have been left frozen (a kill cut short): the new job must not start frozen
            job.thaw();
            applyLimits(job, limits);
            return job;
        } catch (IOException | RuntimeException e) {
            Collections.reverse(created);
            for (Path dir : created) {
                try {
                    Files.deleteIfExists(dir);
                } catch (IOException ignored) {
                    // best effort: a later create or remove finds it
                }
            }
            throw e;
        }
    }

    /** Job {@code jobId}'s existing cgroup on {@code node}, to adopt it after an agent restart. */
    Optional<JobCgroup> find(String node, String jobId) {
        if (!available()) {
            return Optional.empty();
        }
        Map<Controller, Path> dirs = new EnumMap<>(Controller.class);
        for (Map.Entry<Controller, Hierarchy> e : controllers.entrySet()) {
            Path leaf = jobPath(e.getValue().mount(), node, jobId);
            if (Files.isDirectory(leaf)) {
                dirs.put(e.getKey(), leaf);
            }
        }
        return dirs.isEmpty() ? Optional.empty() : Optional.of(new JobCgroup(jobId, controllers, dirs));
    }

    /** Where job {@code jobId} of {@code node} lives in the hierarchy mounted at {@code mount}. */
    Path jobPath(Path mount, String node, String jobId) {
        return mount.resolve(top).resolve(segment("node", node)).resolve("job_" + segment("job id", jobId));
    }

    private static String segment(String what, String value) {
        if (value == null || !SEGMENT.matcher(value).matches()) {
            throw new IllegalArgumentException("unusable " + what + " for a cgroup path: '" + value + "'");
        }
        return value;
    }

    private Path makeV1(Path mount, String node, String jobId, boolean cpuset, List<Path> created)
            throws IOException {
        Path leaf = jobPath(mount, node, jobId);
        Path parent = mount;
        for (Path name : mount.relativize(leaf)) {
            Path dir = parent.resolve(name);
            mkdir(dir, created);
            // a v1 cpuset child starts with no CPUs and no memory nodes and takes no task until given both
            if (cpuset) {
                copyIfEmpty(parent, dir, "cpuset.cpus");
                copyIfEmpty(parent, dir, "cpuset.mems");
            }
            parent = dir;
        }
        return leaf;
    }

    private Path makeV2(Path mount, String node, String jobId, List<Path> created) throws IOException {
        Path leaf = jobPath(mount, node, jobId);
        // a child may enable only what its parent enabled, so the set found at the root is passed down
        Set<String> enabling = new LinkedHashSet<>();
        Set<String> present = Set.of(read(mount.resolve("cgroup.controllers")).split("\\s+"));
        for (String wanted : List.of("memory", "cpuset", "cpu", "pids")) {
            if (present.contains(wanted)) {
                enabling.add(wanted);
            }
        }
        Path dir = mount;
        for (Path name : mount.relativize(leaf)) {
            Set<String> enabled = Set.of(read(dir.resolve("cgroup.subtree_control")).split("\\s+"));
            String missing = enabling.stream().filter(c -> !enabled.contains(c)).map(c -> "+" + c)
                    .collect(Collectors.joining(" "));
            if (!missing.isEmpty()) {
                write(dir.resolve("cgroup.subtree_control"), missing);
            }
            dir = dir.resolve(name);
            mkdir(dir, created);
        }
        return leaf;
    }

    private void applyLimits(JobCgroup job, Limits limits) throws IOException {
        Optional<Path> memory = job.dir(Controller.MEMORY);
        if (limits.memoryBytes() > 0 && memory.isPresent()) {
            String bytes = Long.toString(limits.memoryBytes());
            if (job.unified(Controller.MEMORY)) {
                write(memory.get().resolve("memory.max"), bytes);
                writeIfPresent(memory.get().resolve("memory.swap.max"), "0");
            } else {
                Path limit = memory.get().resolve("memory.limit_in_bytes");
                Path memsw = memory.get().resolve("memory.memsw.limit_in_bytes");
                // present only with swap accounting; without it swap is not charged and cannot be limited
                if (Files.exists(controllers.get(Controller.MEMORY).mount().resolve("memory.memsw.limit_in_bytes"))) {
                    // the kernel keeps limit <= memsw at every step: raising a reused job's limit raises memsw first
                    long memswNow = JobCgroup.number(memsw).orElse(Long.MAX_VALUE);
                    if (limits.memoryBytes() > memswNow) {
                        write(memsw, bytes);
                        write(limit, bytes);
                    } else {
                        write(limit, bytes);
                        write(memsw, bytes);
                    }
                } else {
                    write(limit, bytes);
                }
            }
        }
        if (!limits.cpus().isEmpty()) {
            Optional<Path> cpuset = job.dir(Controller.CPUSET);
            if (cpuset.isPresent()) {
                write(cpuset.get().resolve("cpuset.cpus"), cpuList(limits.cpus()));
            } else {
                warnOnce("cpuset", "no cpuset controller: jobs are not pinned to their CPUs");
            }
        }
        // without a v1 devices controller the mount namespace of DeviceConstraint is the fence (CgroupFence logs which)
        Optional<Path> devices = job.dir(Controller.DEVICES).filter(d -> !job.unified(Controller.DEVICES));
        if (devices.isPresent()) {
            for (GpuDevices.DeviceFile file : limits.deniedDevices()) {
                write(devices.get().resolve("devices.deny"), file.rule());
            }
        }
    }

    private void warnOnce(String key, String message) {
        if (warned.add(key)) {
            log.warn(message);
        }
    }

    /** {@code 0-3,8,10-11}: the kernel's list format. */
    static String cpuList(List<Integer> cpus) {
        List<Integer> sorted = cpus.stream().distinct().sorted().toList();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < sorted.size(); i++) {
            int first = sorted.get(i);
            int last = first;
            while (i + 1 < sorted.size() && sorted.get(i + 1) == last + 1) {
                last = sorted.get(++i);
            }
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(first);
            if (last > first) {
                out.append('-').append(last);
            }
        }
        return out.toString();
    }

    private static void mkdir(Path dir, List<Path> created) throws IOException {
        try {
            Files.createDirectory(dir);
            created.add(dir);
        } catch (FileAlreadyExistsException e) {
            // shared parent, or a job cgroup left by an agent that crashed
        }
    }

    private static void copyIfEmpty(Path from, Path to, String file) throws IOException {
        if (read(to.resolve(file)).isEmpty()) {
            write(to.resolve(file), read(from.resolve(file)));
        }
    }

    /** A control file's content, stripped; "" when absent or unreadable. */
    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Writes one value to a control file. Appending leaves a fake cgroupfs holding every value written
     * (several {@code devices.deny} rules); a real control file ignores the offset.
     */
    static void write(Path file, String value) throws IOException {
        try {
            Files.writeString(file, value + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new IOException("cannot write '" + value + "' to " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes a control file the kernel may not offer (built without the feature): absent is fine. */
    private static void writeIfPresent(Path file, String value) throws IOException {
        try {
            write(file, value);
        } catch (IOException e) {
            if (Files.exists(file)) {
                throw e;
            }
        }
    }

    /** One line of {@code /proc/self/mountinfo} or {@code /proc/mounts}: where, what type, which options. */
    record Mount(String point, String type, List<String> options) {

        static Optional<Mount> parse(String line) {
            String[] f = line.strip().split(" ");
            int dash = List.of(f).indexOf("-");
            if (dash >= 5 && f.length >= dash + 4) {
                // mountinfo: id parent major:minor root point options [optional...] - type source superoptions
                return Optional.of(new Mount(unescape(f[4]), f[dash + 1], List.of(f[dash + 3].split(","))));
            }
            if (f.length >= 4 && dash < 0) {
                // mounts: source point type options dump pass
                return Optional.of(new Mount(unescape(f[1]), f[2], List.of(f[3].split(","))));
            }
            return Optional.empty();
        }

        /** The kernel writes space, tab, newline and backslash in paths as octal escapes ({@code \040}). */
        private static String unescape(String s) {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                    out.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                    i += 3;
                } else {
                    out.append(c);
                }
            }
            return out.toString();
        }
    }
}
