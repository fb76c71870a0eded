package io.gantry.noded;

import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.ContainerImage;
import io.gantry.noded.protocol.ContainerSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs batch scripts and step tasks in OCI containers on this node, as pyxis does on Slurm, with no
 * daemon: the agent prepares a bundle (a copy of the cached image's root file system, owned by the
 * job's owner, and a {@code config.json} it writes) and the job's second stage, already the owner and
 * inside the job's fence, execs {@code runc run} (or {@code crun}) on it. So the runtime is rootless:
 * a user namespace maps the owner's uid to 0 and nothing else, the host's network, /proc and /sys are
 * the container's, and runc cannot create cgroups of its own, so every process stays in the job's
 * cgroup with its limits.
 *
 * <p>Without {@code --container-remap-root} the command runs as the owner's own uid inside: runc
 * 1.1 needs uid 0 mapped, so the container's first process (a static busybox the agent bind-mounts
 * at {@code /.gantry/busybox}) makes a nested user namespace mapping the owner's uid to that 0 and
 * execs the command in it, with no capabilities left. With it the command runs as uid 0 of the
 * namespace (still the owner outside, never real root).
 *
 * <p>Containers live under {@code <work dir>/containers/run/<job>/}: {@code c-<name>} (a named
 * container, kept for the job's life on this node and reused by the later steps naming it) or
 * {@code batch}, {@code s<step>} (a container of its own each), a bundle per process under
 * {@code bundles/}, and the runtime's state under {@code state/}. All of it goes when the job ends
 * here. {@code --container=BUNDLE} runs the user's own bundle, as given, with the node's OCI run
 * command (Slurm's {@code oci.conf} RunTimeRun).
 */
final class ContainerRuntime {

    private static final Logger log = LoggerFactory.getLogger(ContainerRuntime.class);
    /** In-container paths of what the agent mounts. */
    static final String BUSYBOX = "/.gantry/busybox";
    static final String SCRIPT = "/.gantry/job-script";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final List<String> CONTROL_DEVICES = List.of("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools",
            "nvidia-modeset");
    /** What root in a remapped container may do, within its own user namespace only (Docker's default set). */
    private static final List<String> ROOT_CAPS = List.of("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER",
            "CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
            "CAP_SYS_CHROOT", "CAP_SETFCAP", "CAP_AUDIT_WRITE");

    /**
     * The first process of a container that runs as the owner's uid: a nested user namespace where
     * that uid is the outer namespace's 0 (the owner outside). Writing another process's map needs
     * CAP_SETFCAP in the outer namespace, the one capability it is given; the command keeps none.
     * The command keeps the container's standard input (a shell gives a background command /dev/null
     * instead): a step's terminal ({@code srun --pty}) or its input pipe. Arguments: uid, gid, command.
     */
    static final String SWITCH = """
            B=/.gantry/busybox
            u=$1 g=$2; shift 2
            f=/dev/.gantry-go; $B rm -f $f; $B mkfifo -m 600 $f || exit 125
            exec 3<&0
            $B unshare -U -- $B sh -c 'read x < /dev/.gantry-go; exec "$@"' gantry "$@" <&3 3<&- &
            c=$!
            exec 3<&-
            trap '$B kill -TERM $c' TERM; trap '$B kill -INT $c' INT; trap '$B kill -HUP $c' HUP
            trap '$B kill -USR1 $c' USR1; trap '$B kill -USR2 $c' USR2
            me=$($B readlink /proc/self/ns/user)
            n=0; while [ "$($B readlink /proc/$c/ns/user)" = "$me" ]; do
              n=$((n+1)); [ $n -lt 200000 ] || { echo "gantry: the container's command did not start" >&2; exit 125; }
            done
            { echo "$u 0 1" > /proc/$c/uid_map && echo deny > /proc/$c/setgroups && echo "$g 0 1" > /proc/$c/gid_map; } \\
              || { echo "gantry: cannot switch to uid $u in the container" >&2; $B kill -9 $c; exit 125; }
            echo go > $f; $B rm -f $f
            while :; do wait $c; rc=$?; $B kill -0 $c 2>/dev/null || break; done
            exit $rc
            """;

    /**
     * How this node runs containers: the runtime ({@code runc} or {@code crun}), the command for
     * users' own bundles ({@code %b} bundle, {@code %n} container id, {@code %r} state dir, {@code %u}
     * user, {@code %U} uid, {@code %j} job, {@code %s} step), the static busybox, where GPU device
     * files are and which are whose.
     */
    record Settings(String runtime, String ociRunCommand, Path busybox, Path devDir, GpuDevices gpus,
            long cacheLimitBytes) {

        static final String DEFAULT_OCI_RUN = "%R --root %r run --bundle %b %n";
        static final long DEFAULT_CACHE_BYTES = 20L * 1024 * 1024 * 1024;

        static Settings defaults() {
            return new Settings("runc", DEFAULT_OCI_RUN, Path.of("/bin/busybox"), Path.of("/dev"), GpuDevices.none(),
                    DEFAULT_CACHE_BYTES);
        }

        /**
         * This node's settings from the agent's options: {@code --container-runtime} (default
         * {@code auto}: crun where the node has it and a cgroup v2-only layout, which crun 1.8 needs,
         * else runc), {@code --oci-run-command} and {@code --image-cache-mb}.
         */
        static Settings forNode(AgentOptions options, GpuDevices gpus) {
            String runtime = options.containerRuntime();
            if (runtime == null || runtime.equals("auto")) {
                runtime = cgroupV2Only() && onPath("crun") ? "crun" : "runc";
            }
            long cache = options.imageCacheMb() == null ? DEFAULT_CACHE_BYTES : options.imageCacheMb() * 1024 * 1024;
            return new Settings(runtime, options.ociRunCommand() == null ? DEFAULT_OCI_RUN : options.ociRunCommand(),
                    Path.of("/bin/busybox"), Path.of("/dev"), gpus, cache);
        }

        /** Whether this machine has the unified hierarchy alone (no v1 controllers), as crun wants it. */
        static boolean cgroupV2Only() {
            try {
                List<String> lines = Files.readAllLines(Path.of("/proc/self/cgroup"));
                return Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers")) && lines.size() == 1
                        && lines.get(0).startsWith("0::");
            } catch (IOException e) {
                return false;
            }
        }

        private static boolean onPath(String tool) {
            for (String d : ContainerFiles.PATH.split(":")) {
                if (Files.isExecutable(Path.of(d, tool))) {
                    return true;
                }
            }
            return false;
        }
    }

    /** A container's root file system ready for a job on this node (or a user's bundle). */
    record Prepared(String jobId, ContainerSpec spec, Path dir, ContainerImages.Image image, boolean reused) {

        Path rootfs() {
            return dir.resolve("rootfs");
        }

        /** What the IMAGE report says of it, or null for a bundle or a reused named container. */
        ContainerImage report(Integer stepId) {
            return image == null || reused ? null
                    : new ContainerImage(image.reference().toString(), image.digest(), image.pulled(),
                            Math.round(image.seconds() * 1000) / 1000.0, stepId);
        }

        String detail(String node) {
            if (image == null) {
                return null;
            }
            return image.pulled()
                    ? String.format(Locale.ROOT, "Pulled image %s (%s) on %s in %.1f s", image.reference(),
                            image.digest(), node, image.seconds())
                    : "Image " + image.reference() + " (" + image.digest() + ") found in " + node + "'s cache";
        }
    }

    /**
     * What a process in a container is: its id, command, environment and the job's place on this node; and its
     * terminal's size when it runs on one ({@code srun --pty}), else null.
     */
    record Process(String id, List<String> args, Map<String, String> env, String hostWorkdir, long memoryMb,
            GpuDevices.Grant gpus, Path script, TerminalSize terminalSize) {

        Process(String id, List<String> args, Map<String, String> env, String hostWorkdir, long memoryMb,
                GpuDevices.Grant gpus, Path script) {
            this(id, args, env, hostWorkdir, memoryMb, gpus, script, null);
        }

        boolean terminal() {
            return terminalSize != null;
        }

        /**
         * The OCI process: {@code terminal}, and the terminal's size, which the runtime gives it before the
         * command starts (the runtime's own resize from its terminal comes after, and a command quick to ask, as
         * {@code stty size}, saw 0 rows).
         */
        Map<String, Object> terminalFields() {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("terminal", terminal());
            if (terminalSize != null) {
                fields.put("consoleSize", ordered("height", terminalSize.rows(), "width", terminalSize.cols()));
            }
            return fields;
        }
    }

    /** A terminal's rows and columns. */
    record TerminalSize(int rows, int cols) {

        /** A task's terminal size, 24 x 80 where srun did not say (as {@code script} makes one); null for none. */
        static TerminalSize of(AgentProtocol.TaskStdin stdin) {
            if (stdin == null || !stdin.terminal()) {
                return null;
            }
            return new TerminalSize(stdin.rows() == null ? 24 : stdin.rows(), stdin.cols() == null ? 80 : stdin.cols());
        }
    }

    private final Settings settings;
    private final Path runDir;
    private final ContainerImages images;
    /** The images each job's containers here use, by job id. */
    private final Map<String, List<ContainerImages.Image>> held = new HashMap<>();

    ContainerRuntime(Path containersDir, Settings settings, java.time.Clock clock) {
        this.settings = settings;
        this.runDir = containersDir.resolve("run");
        this.images = new ContainerImages(containersDir.resolve("images"), settings.cacheLimitBytes(), clock);
        try {
            Files.createDirectories(runDir);
            Files.setPosixFilePermissions(containersDir, PosixFilePermissions.fromString("rwx--x--x"));
            Files.setPosixFilePermissions(runDir, PosixFilePermissions.fromString("rwx--x--x"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot prepare " + runDir, e);
        }
    }

    ContainerImages images() {
        return images;
    }

    Settings settings() {
        return settings;
    }

    /**
     * Makes the container {@code spec} asks for ready for job {@code jobId} here: pulls its image
     * (or finds it in the cache) and copies its root file system, or finds the named container the
     * job already has here. {@code key} names an unnamed container ({@code batch}, {@code s3}).
     */
    Prepared prepare(String jobId, String key, ContainerSpec spec, UnixAccount owner, String node)
            throws JobProcess.StartFailure {
        return prepare(jobId, key, spec, owner, node, ContainerImages.Progress.NONE);
    }

    /** As {@link #prepare(String, String, ContainerSpec, UnixAccount, String)}, telling {@code progress} how a pull goes. */
    Prepared prepare(String jobId, String key, ContainerSpec spec, UnixAccount owner, String node,
            ContainerImages.Progress progress) throws JobProcess.StartFailure {
        if (spec.bundle() != null && !spec.bundle().isBlank()) {
            if (spec.image() != null && !spec.image().isBlank()) {
                throw new JobProcess.StartFailure("a container is either an image or a bundle, not both");
            }
            if (!Path.of(spec.bundle()).isAbsolute()) {
                throw new JobProcess.StartFailure("the container bundle " + spec.bundle() + " is not an absolute path");
            }
            return new Prepared(jobId, spec, Path.of(spec.bundle()), null, false);
        }
        String dirName;
        if (spec.name() != null && !spec.name().isBlank()) {
            if (!NAME.matcher(spec.name()).matches()) {
                throw new JobProcess.StartFailure("'" + spec.name() + "' is not a container name (letters, digits, "
                        + "_ . -)");
            }
            dirName = "c-" + spec.name();
        } else {
            dirName = key;
        }
        Path jobDir = runDir.resolve(jobId);
        Path dir = jobDir.resolve(dirName);
        // a named container the job made here before is reused as it is, whatever image the step names (pyxis)
        if (spec.name() != null && Files.isDirectory(dir.resolve("rootfs"), LinkOption.NOFOLLOW_LINKS)
                && Files.isRegularFile(dir.resolve("image.json"))) {
            try {
                ContainerImages.Image image = AgentJson.MAPPER.readValue(Files.readString(dir.resolve("image.json")),
                        ContainerImages.Image.class);
                return new Prepared(jobId, spec, dir, image, true);
            } catch (IOException | RuntimeException e) {
                throw new JobProcess.StartFailure("cannot reuse the container " + spec.name() + " on " + node + ": "
                        + e.getMessage());
            }
        }
        if (spec.image() == null || spec.image().isBlank()) {
            throw new JobProcess.StartFailure(spec.name() != null && !spec.name().isBlank()
                    ? "the job has no container named " + spec.name() + " on " + node + " yet, and no image to make it from"
                    : "the container names no image and no bundle");
        }
        ContainerImageRef ref;
        try {
            ref = ContainerImageRef.parse(spec.image());
        } catch (IllegalArgumentException e) {
            throw new JobProcess.StartFailure("unusable container image: " + e.getMessage());
        }
        ContainerImages.Image image;
        try {
            image = images.acquire(ref, owner, node, progress);
        } catch (ContainerImages.ImageFailure e) {
            throw new JobProcess.StartFailure(e.getMessage());
        }
        synchronized (held) {
            held.computeIfAbsent(jobId, j -> new ArrayList<>()).add(image);
        }
        try {
            jobDirs(jobDir, owner);
            ContainerFiles.deleteTree(dir);
            Files.createDirectory(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
            ContainerFiles.Result copy = ContainerFiles.run(List.of("cp", "-a", "--reflink=auto",
                    image.rootfs().toString(), dir.resolve("rootfs").toString()), Duration.ofMinutes(30));
            if (!copy.ok()) {
                throw new IOException("cp: " + copy.output().strip());
            }
            ContainerFiles.Result chown = ContainerFiles.run(List.of("chown", "-R", "--no-dereference",
                    owner.uid() + ":" + owner.gid(), dir.resolve("rootfs").toString()), Duration.ofMinutes(30));
            if (!chown.ok()) {
                throw new IOException("chown: " + chown.output().strip());
            }
            Files.writeString(dir.resolve("image.json"), AgentJson.MAPPER.writeValueAsString(image),
                    StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new JobProcess.StartFailure("cannot make the container's root file system on " + node + ": "
                    + e.getMessage());
        }
        return new Prepared(jobId, spec, dir, image, false);
    }

    /** {@code run/<job>/} for root, passable; its {@code state/} and {@code bundles/} for the runtime. */
    private static void jobDirs(Path jobDir, UnixAccount owner) throws IOException {
        Files.createDirectories(jobDir.resolve("bundles"));
        Files.setPosixFilePermissions(jobDir, PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(jobDir.resolve("bundles"), PosixFilePermissions.fromString("rwx--x--x"));
        Path state = jobDir.resolve("state");
        if (!Files.isDirectory(state, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectory(state, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            Files.setAttribute(state, "unix:gid", (int) owner.gid(), LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(state, "unix:uid", (int) owner.uid(), LinkOption.NOFOLLOW_LINKS);
        }
    }

    /**
     * Writes the bundle of one process in {@code container} and returns the command the job's second
     * stage execs (as the owner) to run it, and the paths the owner must be able to read first.
     */
    Command command(Prepared container, Process process, UnixAccount owner) throws JobProcess.StartFailure {
        Path jobDir = runDir.resolve(container.jobId());
        try {
            jobDirs(jobDir, owner);
        } catch (IOException e) {
            throw new JobProcess.StartFailure("cannot prepare the container's directory: " + e.getMessage());
        }
        Path state = jobDir.resolve("state");
        if (container.image() == null) {
            Path own = writeBundle(jobDir, process, userBundle(container, process, owner), owner);
            Map<String, String> values = Map.of("%R", settings.runtime(), "%b", own.toString(),
                    "%n", process.id(), "%r", state.toString(), "%u", owner.name(), "%U", Long.toString(owner.uid()),
                    "%j", container.jobId(), "%s", process.id());
            List<String> argv = new ArrayList<>();
            for (String word : settings.ociRunCommand().strip().split("\\s+")) {
                String w = word;
                for (Map.Entry<String, String> e : values.entrySet()) {
                    w = w.replace(e.getKey(), e.getValue());
                }
                argv.add(w);
            }
            return new Command(argv, List.of());
        }
        ContainerSpec spec = container.spec();
        List<String> mounts = new ArrayList<>();
        List<Map<String, Object>> binds = new ArrayList<>();
        List<String> mountedDirs = new ArrayList<>();
        if (spec.mountsHome() && owner.home() != null && Files.isDirectory(Path.of(owner.home()))) {
            binds.add(bind(owner.home(), owner.home(), false));
            mountedDirs.add(owner.home());
        }
        for (String m : spec.mounts() == null ? List.<String>of() : spec.mounts()) {
            String[] parts = m.split(":", -1);
            if (parts.length > 3 || parts[0].isBlank() || !parts[0].startsWith("/")) {
                throw new JobProcess.StartFailure("unusable container mount '" + m + "' (SRC:DST[:ro|rw], SRC an "
                        + "absolute path)");
            }
            String dst = parts.length > 1 && !parts[1].isBlank() ? parts[1] : parts[0];
            String flags = parts.length > 2 ? parts[2] : "rw";
            if (!dst.startsWith("/") || !(flags.equals("ro") || flags.equals("rw"))) {
                throw new JobProcess.StartFailure("unusable container mount '" + m + "' (SRC:DST[:ro|rw], DST an "
                        + "absolute path)");
            }
            binds.add(bind(parts[0], dst, flags.equals("ro")));
            mounts.add(parts[0]);
            mountedDirs.add(dst);
        }
        if (process.script() != null) {
            binds.add(bind(process.script().toString(), SCRIPT, true));
        }
        boolean remap = spec.remapsRoot();
        if (!remap) {
            if (!Files.isRegularFile(settings.busybox())) {
                throw new JobProcess.StartFailure("this node has no static busybox at " + settings.busybox()
                        + " to run containers as their owner (apt-get install busybox-static)");
            }
            binds.add(bind(settings.busybox().toString(), BUSYBOX, true));
        }
        for (String file : List.of("/etc/hosts", "/etc/resolv.conf")) {
            if (Files.isRegularFile(Path.of(file))) {
                binds.add(bind(file, file, true));
            }
        }
        for (Path device : devices(process.gpus())) {
            binds.add(bind(device.toString(), "/dev/" + settings.devDir().relativize(device), false));
        }

        ContainerImages.Image image = container.image();
        Map<String, String> env = new LinkedHashMap<>();
        List<String> hostNames = spec.env() == null ? List.of() : spec.env();
        for (String e : image.env()) {
            int eq = e.indexOf('=');
            if (eq > 0) {
                env.put(e.substring(0, eq), e.substring(eq + 1));
            }
        }
        process.env().forEach((k, v) -> {
            if (k != null && v != null && (!env.containsKey(k) || hostNames.contains(k))) {
                env.put(k, v);
            }
        });
        String cwd = spec.workdir() != null && !spec.workdir().isBlank() ? spec.workdir()
                : under(process.hostWorkdir(), mountedDirs) ? process.hostWorkdir()
                : image.workdir() != null ? image.workdir() : "/";
        env.put("PWD", cwd);
        List<String> args = new ArrayList<>();
        if (spec.runsEntrypoint()) {
            args.addAll(image.entrypoint());
        }
        args.addAll(process.args());
        if (args.isEmpty()) {
            args.addAll(image.cmd());
        }
        if (args.isEmpty()) {
            throw new JobProcess.StartFailure("nothing to run in the container of image " + image.reference());
        }
        List<String> processArgs = new ArrayList<>();
        if (!remap) {
            processArgs.addAll(List.of(BUSYBOX, "sh", "-c", SWITCH, "gantry-switch", Long.toString(owner.uid()),
                    Long.toString(owner.gid())));
        }
        processArgs.addAll(args);

        Map<String, Object> config = new LinkedHashMap<>();
        config.put("ociVersion", "1.0.2");
        List<String> caps = remap ? ROOT_CAPS : List.of("CAP_SETFCAP");
        // a task on a terminal (srun --pty): the runtime gives the container a terminal of its own, sized as
        // the task's and following its resizes, and copies between the two
        Map<String, Object> processFields = process.terminalFields();
        processFields.putAll(ordered("user", ordered("uid", 0, "gid", 0),
                "args", processArgs, "env", env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList(),
                "cwd", cwd, "noNewPrivileges", true,
                "capabilities", ordered("bounding", caps, "effective", caps, "permitted", caps,
                        "inheritable", List.of(), "ambient", List.of())));
        config.put("process", processFields);
        config.put("root", ordered("path", container.rootfs().toString(), "readonly", !spec.isWritable()));
        List<Map<String, Object>> all = new ArrayList<>();
        all.add(bindAll("/proc", "/proc", false));
        all.add(bindAll("/sys", "/sys", true));
        all.add(ordered("destination", "/dev", "type", "tmpfs", "source", "tmpfs",
                "options", List.of("nosuid", "strictatime", "mode=755", "size=65536k")));
        all.add(ordered("destination", "/dev/pts", "type", "devpts", "source", "devpts",
                "options", List.of("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620")));
        all.add(ordered("destination", "/dev/shm", "type", "tmpfs", "source", "shm",
                "options", List.of("nosuid", "nodev", "mode=1777",
                        "size=" + (process.memoryMb() > 0 ? process.memoryMb() : 64) + "m")));
        all.add(ordered("destination", "/tmp", "type", "tmpfs", "source", "tmpfs",
                "options", List.of("nosuid", "nodev", "mode=1777")));
        all.addAll(binds);
        config.put("mounts", all);
        List<Map<String, Object>> ids = List.of(ordered("containerID", 0, "hostID", owner.uid(), "size", 1));
        List<Map<String, Object>> gids = List.of(ordered("containerID", 0, "hostID", owner.gid(), "size", 1));
        config.put("linux", ordered("uidMappings", ids, "gidMappings", gids,
                "namespaces", List.of(Map.of("type", "user"), Map.of("type", "mount")),
                "maskedPaths", List.of(), "readonlyPaths", List.of()));

        Path bundle = writeBundle(jobDir, process, config, owner);
        List<String> argv = List.of(settings.runtime(), "--root", state.toString(), "--log",
                state.resolve(process.id() + ".log").toString(), "run", "--bundle", bundle.toString(), process.id());
        return new Command(argv, mounts);
    }

    /**
     * Slurm's {@code --container=BUNDLE}: the user's bundle as its {@code config.json} says, with the job's
     * command in place of the bundle's own (the batch script bound in at {@link #SCRIPT}), the job's
     * environment added to the bundle's (the bundle's values win, as an image's do), the job's GPUs, and
     * its root file system found from the user's bundle. The configuration is read as the owner, so a
     * bundle they may not read is refused naming it, and nothing of it reaches the node's own copy.
     */
    @SuppressWarnings("unchecked")
    private Map<String, Object> userBundle(Prepared container, Process process, UnixAccount owner)
            throws JobProcess.StartFailure {
        Path configFile = container.dir().resolve("config.json");
        List<String> cat = new ArrayList<>(ContainerFiles.asUser(owner));
        cat.addAll(List.of("cat", "--", configFile.toString()));
        ContainerFiles.Result read = ContainerFiles.run(cat, Duration.ofSeconds(30));
        if (!read.ok()) {
            throw new JobProcess.StartFailure("user " + owner.name() + " may not read " + configFile
                    + " (for the container): " + read.output().strip());
        }
        Map<String, Object> config;
        try {
            config = AgentJson.MAPPER.readValue(read.output(), LinkedHashMap.class);
        } catch (RuntimeException e) {
            throw new JobProcess.StartFailure("the container bundle's " + configFile + " is not an OCI configuration: "
                    + e.getMessage());
        }
        if (!(config.get("process") instanceof Map<?, ?> p) || !(config.get("root") instanceof Map<?, ?> r)
                || !(r.get("path") instanceof String rootPath)) {
            throw new JobProcess.StartFailure("the container bundle's " + configFile + " has no process or root.path");
        }
        Map<String, Object> proc = new LinkedHashMap<>((Map<String, Object>) p);
        Map<String, Object> root = new LinkedHashMap<>((Map<String, Object>) r);
        root.put("path", container.dir().resolve(rootPath).normalize().toString());
        config.put("root", root);
        proc.remove("consoleSize");
        proc.putAll(process.terminalFields());
        if (!process.args().isEmpty()) {
            proc.put("args", process.args());
        }
        Map<String, String> env = new LinkedHashMap<>();
        if (proc.get("env") instanceof List<?> bundleEnv) {
            for (Object e : bundleEnv) {
                String text = String.valueOf(e);
                int eq = text.indexOf('=');
                if (eq > 0) {
                    env.put(text.substring(0, eq), text.substring(eq + 1));
                }
            }
        }
        process.env().forEach((k, v) -> {
            if (k != null && v != null) {
                env.putIfAbsent(k, v);
            }
        });
        proc.put("env", env.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
        config.put("process", proc);
        List<Object> mounts = config.get("mounts") instanceof List<?> m ? new ArrayList<>(m) : new ArrayList<>();
        if (process.script() != null) {
            mounts.add(bind(process.script().toString(), SCRIPT, true));
        }
        for (Path device : devices(process.gpus())) {
            mounts.add(bind(device.toString(), "/dev/" + settings.devDir().relativize(device), false));
        }
        config.put("mounts", mounts);
        return config;
    }

    /**
     * Writes {@code config} as the bundle of one process under the job's {@code bundles/}, readable by the
     * owner alone (it holds the job's environment); returns its directory.
     */
    private static Path writeBundle(Path jobDir, Process process, Map<String, Object> config, UnixAccount owner)
            throws JobProcess.StartFailure {
        Path bundle = jobDir.resolve("bundles").resolve(process.id());
        try {
            ContainerFiles.deleteTree(bundle);
            Files.createDirectory(bundle);
            Files.setPosixFilePermissions(bundle, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.writeString(bundle.resolve("config.json"), AgentJson.MAPPER.writeValueAsString(config),
                    StandardCharsets.UTF_8);
            Path file = bundle.resolve("config.json");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            if (ContainerFiles.currentUid() != owner.uid()) {
                Files.setAttribute(file, "unix:gid", (int) owner.gid(), LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(file, "unix:uid", (int) owner.uid(), LinkOption.NOFOLLOW_LINKS);
            }
        } catch (IOException | RuntimeException e) {
            throw new JobProcess.StartFailure("cannot write the container's bundle: " + e.getMessage());
        }
        return bundle;
    }

    /**
     * The runtime command, and paths the owner must be able to read before it runs (bind mount
     * sources, a bundle's configuration), checked as the owner so that the refusal names them.
     */
    record Command(List<String> argv, List<String> mustRead) {
    }

    /**
     * What a step task's second stage execs for {@code command}: a shell that checks the paths the
     * owner must read, runs the runtime and, when it fails, copies the runtime's errors from its log
     * to the task's standard error. Arguments: log, count of paths, the paths, the runtime command.
     */
    static final String TASK_RUN = """
            l=$1; n=$2; shift 2
            while [ "$n" -gt 0 ]; do
              [ -r "$1" ] || { echo "gantry: user $(id -un) may not read $1 (for the container)" >&2; exit 1; }
              n=$((n-1)); shift
            done
            "$@"; rc=$?
            if [ "$rc" -ne 0 ] && [ -s "$l" ]; then
              sed -n 's/.*level=error msg="\\(.*\\)".*/gantry: container: \\1/p' -- "$l" >&2
            fi
            exit "$rc"
            """;

    static List<String> taskArgv(Command command) {
        int log = command.argv().indexOf("--log");
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", TASK_RUN, "gantry-container",
                log >= 0 && log + 1 < command.argv().size() ? command.argv().get(log + 1) : "",
                Integer.toString(command.mustRead().size())));
        argv.addAll(command.mustRead());
        argv.addAll(command.argv());
        return argv;
    }

    /** The device files of the job's GPUs here and the driver's control devices present on the node. */
    List<Path> devices(GpuDevices.Grant grant) {
        List<Path> devices = new ArrayList<>();
        if (grant == null || (grant.whole().isEmpty() && grant.mig().isEmpty() && grant.shard() == null)) {
            return devices;
        }
        settings.gpus().allowed(grant).forEach(d -> devices.add(d.path()));
        for (String name : CONTROL_DEVICES) {
            Path p = settings.devDir().resolve(name);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                devices.add(p);
            }
        }
        return devices;
    }

    /**
     * A step's tasks here are over: its own container (not a named one, which lives for the job) and
     * its processes' bundles go.
     */
    void endStep(String jobId, int stepId) {
        Path jobDir = runDir.resolve(jobId);
        ContainerFiles.deleteTree(jobDir.resolve("s" + stepId));
        try (java.util.stream.Stream<Path> bundles = Files.list(jobDir.resolve("bundles"))) {
            String prefix = jobId + "-" + stepId + "-";
            bundles.filter(b -> b.getFileName().toString().startsWith(prefix)).forEach(ContainerFiles::deleteTree);
        } catch (IOException e) {
            // no bundles (no container for this step)
        }
    }

    /** The job's containers here are over: their files go, their images may be evicted. */
    void endJob(String jobId) {
        List<ContainerImages.Image> used;
        synchronized (held) {
            used = held.remove(jobId);
        }
        ContainerFiles.deleteTree(runDir.resolve(jobId));
        if (used != null) {
            used.forEach(images::release);
            images.evict();
        }
        log.debug("job {}: its containers here are removed", jobId);
    }

    private static boolean under(String path, List<String> dirs) {
        if (path == null) {
            return false;
        }
        Path p = Path.of(path).normalize();
        return dirs.stream().anyMatch(d -> p.startsWith(Path.of(d).normalize()));
    }

    private static Map<String, Object> bind(String source, String destination, boolean readOnly) {
        List<String> options = new ArrayList<>(List.of("rbind", "nosuid"));
        if (readOnly) {
            options.add("ro");
        }
        return ordered("destination", destination, "type", "bind", "source", source, "options", options);
    }

    private static Map<String, Object> bindAll(String source, String destination, boolean readOnly) {
        List<String> options = new ArrayList<>(List.of("rbind", "nosuid", "nodev", "noexec"));
        if (readOnly) {
            options.add("ro");
        }
        return ordered("destination", destination, "type", "bind", "source", source, "options", options);
    }

    private static Map<String, Object> ordered(Object... kv) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            map.put((String) kv[i], kv[i + 1]);
        }
        return map;
    }
}
