package io.gantry.noded;

import java.net.URI;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The agent's command line, parsed once at start. The join token comes from the environment
 * ({@code GANTRY_JOIN_TOKEN}) or from a file only root can read ({@code --join-token-file}), never
 * from an argument: every process on the node, every job among them, reads any process's arguments
 * in {@code /proc/<pid>/cmdline}, and with the token a job could join under another node's name.
 * {@link #toString()} never prints it.
 * {@code gpus}, {@code cpus} and {@code memoryMb} are null when not given (then they are detected).
 * {@code cgroupRoot} is the directory under each cgroup hierarchy's root that holds this agent's jobs
 * ({@code gantry} unless {@code --cgroup-root} names another, as two clusters sharing one host must).
 */
public record AgentOptions(URI controller, String joinToken, String name, Path workDir, Integer gpus,
        String gpuType, List<String> features, Integer cpus, Long memoryMb, List<URI> controllers,
        String containerRuntime, String ociRunCommand, Long imageCacheMb, String cgroupRoot) {

    public AgentOptions {
        controllers = controllers == null || controllers.isEmpty() ? List.of(controller) : List.copyOf(controllers);
        cgroupRoot = cgroupRoot == null ? Cgroups.TOP : cgroupRoot;
        if (!Cgroups.usableTop(cgroupRoot)) {
            throw new IllegalArgumentException("--cgroup-root must be one directory name (letters, digits, '.', '_' "
                    + "and '-', not starting with '.' or '-'), got '" + cgroupRoot + "'");
        }
    }

    /** Containers run with the runtime this node can use, users' bundles with it, a 20 GiB image cache. */
    public AgentOptions(URI controller, String joinToken, String name, Path workDir, Integer gpus, String gpuType,
            List<String> features, Integer cpus, Long memoryMb, List<URI> controllers) {
        this(controller, joinToken, name, workDir, gpus, gpuType, features, cpus, memoryMb, controllers, null, null,
                null, null);
    }

    /** One controller only. */
    public AgentOptions(URI controller, String joinToken, String name, Path workDir, Integer gpus, String gpuType,
            List<String> features, Integer cpus, Long memoryMb) {
        this(controller, joinToken, name, workDir, gpus, gpuType, features, cpus, memoryMb, List.of(controller));
    }

    public static final String JOIN_TOKEN_ENV = "GANTRY_JOIN_TOKEN";

    public static final String USAGE = "usage: agent --controller URL[,URL...] [--join-token-file FILE] [--name NAME] "
            + "[--work-dir DIR] [--gpus N] [--gpu-type T] [--features a,b] [--cpus N] [--memory-mb M]\n"
            + "       [--container-runtime auto|runc|crun|PATH] [--oci-run-command 'runc --root %r run --bundle %b %n'] "
            + "[--image-cache-mb M] [--cgroup-root NAME]\n"
            + "       the join token comes from the environment variable " + JOIN_TOKEN_ENV + " or from FILE (mode "
            + "0600: readable by its owner alone); it is not needed when the work dir holds a credential for the "
            + "controller";

    private static final Set<String> OPTIONS = Set.of("--controller", "--join-token", "--join-token-file", "--name",
            "--work-dir", "--gpus", "--gpu-type", "--features", "--cpus", "--memory-mb", "--container-runtime",
            "--oci-run-command", "--image-cache-mb", "--cgroup-root");

    /**
     * Parses {@code args}; {@code env} supplies {@code GANTRY_JOIN_TOKEN}, {@code hostname} the
     * default name (only asked when {@code --name} is missing).
     *
     * @throws IllegalArgumentException naming the offending option
     */
    public static AgentOptions parse(String[] args, Map<String, String> env, Supplier<String> hostname) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String option = arg;
            String value;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                option = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                value = null;
            }
            if (!OPTIONS.contains(option)) {
                throw new IllegalArgumentException("unknown option " + option);
            }
            if (value == null) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            if (values.put(option, value) != null) {
                throw new IllegalArgumentException(option + " is given twice");
            }
        }
        String controllerText = values.get("--controller");
        if (controllerText == null || controllerText.isBlank()) {
            throw new IllegalArgumentException("--controller is required");
        }
        // Several controllers (a leader and its standbys): the agent talks to whichever leads.
        List<URI> controllers = Arrays.stream(controllerText.split(",")).map(String::strip).filter(t -> !t.isEmpty())
                .map(AgentOptions::controllerUri).toList();
        if (controllers.isEmpty()) {
            throw new IllegalArgumentException("--controller is required");
        }
        URI controller = controllers.get(0);
        if (values.containsKey("--join-token")) {
            // Refused rather than taken: by now it has been in /proc/<pid>/cmdline for every job to read.
            throw new IllegalArgumentException("--join-token is no longer accepted: a process's arguments are "
                    + "readable by every process on the machine; put the token in the environment variable "
                    + JOIN_TOKEN_ENV + " or in a file only root can read and pass --join-token-file FILE");
        }
        String joinToken;
        if (values.containsKey("--join-token-file")) {
            joinToken = tokenFile(Path.of(values.get("--join-token-file")));
        } else {
            joinToken = env.get(JOIN_TOKEN_ENV);
        }
        if (joinToken != null && joinToken.isBlank()) {
            joinToken = null;
        }
        String name = values.get("--name");
        if (name == null) {
            name = shortName(hostname.get());
        }
        if (name == null || name.isBlank() || !name.matches("[A-Za-z0-9][A-Za-z0-9_.-]*")) {
            throw new IllegalArgumentException("--name must be a host name, got '" + name + "'");
        }
        Path workDir = Path.of(values.getOrDefault("--work-dir", "gantry-agent")).toAbsolutePath().normalize();
        List<String> features = values.containsKey("--features")
                ? Arrays.stream(values.get("--features").split(",")).map(String::strip).filter(f -> !f.isEmpty()).toList()
                : List.of();
        String gpuType = values.get("--gpu-type");
        return new AgentOptions(controller, joinToken, name, workDir,
                positiveInt(values, "--gpus", true), gpuType == null || gpuType.isBlank() ? null : gpuType.strip(),
                features, positiveInt(values, "--cpus", false), positiveLong(values, "--memory-mb"), controllers,
                blankToNull(values.get("--container-runtime")), blankToNull(values.get("--oci-run-command")),
                positiveLong(values, "--image-cache-mb"), values.get("--cgroup-root"));
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }

    /**
     * The join token in {@code file}: its first line. Refused when the file is a link, is not a
     * regular file, or can be read by its group or others, as ssh refuses a private key others can read.
     */
    static String tokenFile(Path file) {
        java.nio.file.attribute.PosixFileAttributes attributes;
        try {
            attributes = java.nio.file.Files.readAttributes(file, java.nio.file.attribute.PosixFileAttributes.class,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("--join-token-file " + file + " cannot be read: " + e.getMessage());
        } catch (UnsupportedOperationException e) {
            throw new IllegalArgumentException("--join-token-file " + file + ": this file system has no Unix "
                    + "permissions to keep the token private; use " + JOIN_TOKEN_ENV);
        }
        if (!attributes.isRegularFile()) {
            throw new IllegalArgumentException("--join-token-file " + file + " is not a regular file"
                    + (attributes.isSymbolicLink() ? " (it is a symbolic link)" : ""));
        }
        Set<java.nio.file.attribute.PosixFilePermission> open = java.util.EnumSet.copyOf(attributes.permissions());
        open.retainAll(java.util.EnumSet.of(java.nio.file.attribute.PosixFilePermission.GROUP_READ,
                java.nio.file.attribute.PosixFilePermission.GROUP_WRITE,
                java.nio.file.attribute.PosixFilePermission.OTHERS_READ,
                java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE));
        if (!open.isEmpty()) {
            throw new IllegalArgumentException("--join-token-file " + file + " is readable or writable by its group "
                    + "or others (mode " + java.nio.file.attribute.PosixFilePermissions.toString(attributes.permissions())
                    + "): make it private with chmod 600 " + file);
        }
        try {
            String text = java.nio.file.Files.readString(file, java.nio.charset.StandardCharsets.UTF_8);
            int newline = text.indexOf('\n');
            String token = (newline < 0 ? text : text.substring(0, newline)).strip();
            if (token.isEmpty()) {
                throw new IllegalArgumentException("--join-token-file " + file + " is empty");
            }
            return token;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("--join-token-file " + file + " cannot be read: " + e.getMessage());
        }
    }

    /** The host name up to its first dot, as Slurm names nodes. */
    static String shortName(String hostname) {
        if (hostname == null) {
            return null;
        }
        String h = hostname.strip();
        int dot = h.indexOf('.');
        return dot > 0 ? h.substring(0, dot) : h;
    }

    private static URI controllerUri(String text) {
        try {
            URI uri = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new IllegalArgumentException("--controller must be an http(s) URL, got '" + text + "'");
            }
            return uri;
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("--controller")) {
                throw e;
            }
            throw new IllegalArgumentException("--controller must be an http(s) URL, got '" + text + "'");
        }
    }

    private static Integer positiveInt(Map<String, String> values, String option, boolean zeroAllowed) {
        Long value = number(values, option);
        if (value == null) {
            return null;
        }
        if (value > Integer.MAX_VALUE || value < (zeroAllowed ? 0 : 1)) {
            throw new IllegalArgumentException(option + " must be " + (zeroAllowed ? "0 or more" : "positive")
                    + ", got '" + values.get(option) + "'");
        }
        return value.intValue();
    }

    private static Long positiveLong(Map<String, String> values, String option) {
        Long value = number(values, option);
        if (value != null && value < 1) {
            throw new IllegalArgumentException(option + " must be positive, got '" + values.get(option) + "'");
        }
        return value;
    }

    private static Long number(Map<String, String> values, String option) {
        String text = values.get(option);
        if (text == null) {
            return null;
        }
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " must be a whole number, got '" + text + "'");
        }
    }

    @Override
    public String toString() {
        return "AgentOptions[controller=" + controller + ", joinToken=" + (joinToken == null ? "none" : "(given)")
                + ", name=" + name + ", workDir=" + workDir + ", gpus=" + gpus + ", gpuType=" + gpuType
                + ", features=" + features + ", cpus=" + cpus + ", memoryMb=" + memoryMb + ", containerRuntime="
                + containerRuntime + ", ociRunCommand=" + ociRunCommand + ", imageCacheMb=" + imageCacheMb + ", cgroupRoot=" + cgroupRoot + "]";
    }
}
