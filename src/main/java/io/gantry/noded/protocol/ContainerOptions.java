package io.gantry.noded.protocol;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;


/**
 * pyxis's {@code --container-*} options and Slurm's {@code --container=PATH}, read the same way by
 * sbatch's command line and {@code #SBATCH} lines and by srun, into a {@link ContainerSpec} (the
 * controller's checks of a spec are {@code io.gantry.jobs.ContainerFlags}).
 *
 * <p>As pyxis: {@code --container-mounts} and {@code --container-env} take comma lists and add up
 * over repeated options; a mount is {@code SRC[:DST[:FLAGS]]} (DST defaults to SRC, flags joined with
 * {@code +}); {@code --container-name=NAME[:auto]}. Unlike pyxis, where a later option contradicts an
 * earlier one ({@code --container-writable} then {@code --container-readonly}) the later wins, because
 * sbatch's command line is passed after the script's directives and must override them; mount flags are
 * {@code ro} or {@code rw} only; mount paths must be absolute (a node has no idea where srun ran).
 */
public final class ContainerOptions {

    /** Long option name to whether it takes a value, in the order {@code --help} lists them. */
    public static final Map<String, Boolean> OPTIONS;

    /** pyxis options Gantry reads but does not act on (each takes a value unless named in {@link #IGNORED_FLAGS}). */
    public static final Set<String> IGNORED = Set.of("container-save", "container-entrypoint-log",
            "container-unshare");
    /** Of {@link #IGNORED}, the ones that take no value. */
    public static final Set<String> IGNORED_FLAGS = Set.of("container-entrypoint-log");

    static {
        Map<String, Boolean> options = new LinkedHashMap<>();
        options.put("container-image", true);
        options.put("container-mounts", true);
        options.put("container-workdir", true);
        options.put("container-name", true);
        options.put("container-env", true);
        options.put("container-mount-home", false);
        options.put("no-container-mount-home", false);
        options.put("container-remap-root", false);
        options.put("no-container-remap-root", false);
        options.put("container-writable", false);
        options.put("container-readonly", false);
        options.put("container-entrypoint", false);
        options.put("no-container-entrypoint", false);
        options.put("container", true);
        OPTIONS = java.util.Collections.unmodifiableMap(options);
    }

    /** The longest image reference or path. */
    public static final int MAX_IMAGE = 1024;
    /** The longest path (bundle, workdir, a mount's side): PATH_MAX less its NUL. */
    public static final int MAX_PATH = 4095;
    /** The longest container name. */
    public static final int MAX_NAME = 128;
    /** The most mounts and variable names a container may list. */
    public static final int MAX_ITEMS = 256;

    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]+");
    public static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    // Docker's reference grammar, with enroot's [USER@][REGISTRY#] in front (pyxis hands the image to enroot).
    private static final String HOST = "(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*"
            + "[A-Za-z0-9])?)*|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?";
    private static final String COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
    public static final Pattern IMAGE = Pattern.compile("(?:docker://)?(?:[A-Za-z0-9._+-]+@)?(?:" + HOST + "#)?"
            + "(?:" + HOST + "/)?" + COMPONENT + "(?:/" + COMPONENT + ")*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
            + "(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?");

    private ContainerOptions() {
    }

    /**
     * pyxis's environment variables, each the default of one option (or of a pair of flags: true
     * sets the first, false the second); an option given on the command line or in the script wins.
     */
    private static final Map<String, String[]> ENVIRONMENT = new LinkedHashMap<>();

    static {
        ENVIRONMENT.put("PYXIS_CONTAINER_IMAGE", new String[] {"container-image"});
        ENVIRONMENT.put("PYXIS_CONTAINER_MOUNTS", new String[] {"container-mounts"});
        ENVIRONMENT.put("PYXIS_CONTAINER_WORKDIR", new String[] {"container-workdir"});
        ENVIRONMENT.put("PYXIS_CONTAINER_NAME", new String[] {"container-name"});
        ENVIRONMENT.put("PYXIS_CONTAINER_ENV", new String[] {"container-env"});
        ENVIRONMENT.put("PYXIS_CONTAINER_MOUNT_HOME", new String[] {"container-mount-home", "no-container-mount-home"});
        ENVIRONMENT.put("PYXIS_CONTAINER_REMAP_ROOT", new String[] {"container-remap-root", "no-container-remap-root"});
        ENVIRONMENT.put("PYXIS_CONTAINER_ENTRYPOINT", new String[] {"container-entrypoint", "no-container-entrypoint"});
        ENVIRONMENT.put("PYXIS_CONTAINER_WRITABLE", new String[] {"container-writable", "container-readonly"});
        ENVIRONMENT.put("PYXIS_CONTAINER_READONLY", new String[] {"container-readonly", "container-writable"});
    }

    /**
     * {@code given} with what pyxis's {@code PYXIS_CONTAINER_*} variables in {@code environment} add, as
     * pyxis reads them in sbatch and srun: each fills only a field no option gave (a variable alone can
     * ask for a container); a boolean one takes 1/true/yes/y or 0/false/no/n and is ignored otherwise.
     * @return {@code given} itself when no variable adds anything
     * @throws IllegalArgumentException naming the variable whose value is malformed
     */
    public static ContainerSpec withEnvironment(ContainerSpec given, Map<String, String> environment) {
        Builder fromEnvironment = new Builder();
        for (Map.Entry<String, String[]> variable : ENVIRONMENT.entrySet()) {
            String value = environment.get(variable.getKey());
            if (value == null) {
                continue;
            }
            String[] options = variable.getValue();
            try {
                if (options.length == 1) {
                    fromEnvironment.apply(options[0], value);
                } else {
                    Boolean on = switch (value) {
                        case "1", "true", "yes", "y" -> true;
                        case "0", "false", "no", "n" -> false;
                        default -> null;
                    };
                    // READONLY only when WRITABLE said nothing, as pyxis reads them in that order
                    if (on != null && (!variable.getKey().equals("PYXIS_CONTAINER_READONLY")
                            || fromEnvironment.writable == null)) {
                        fromEnvironment.apply(on ? options[0] : options[1], null);
                    }
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(variable.getKey() + ": " + e.getMessage());
            }
        }
        ContainerSpec defaults = fromEnvironment.build();
        if (defaults == null) {
            return given;
        }
        if (given == null) {
            return defaults;
        }
        return new ContainerSpec(first(given.image(), defaults.image()), first(given.bundle(), defaults.bundle()),
                first(given.mounts(), defaults.mounts()), first(given.workdir(), defaults.workdir()),
                first(given.name(), defaults.name()), first(given.env(), defaults.env()),
                first(given.mountHome(), defaults.mountHome()), first(given.remapRoot(), defaults.remapRoot()),
                first(given.writable(), defaults.writable()), first(given.entrypoint(), defaults.entrypoint()));
    }

    private static <T> T first(T given, T fallback) {
        return given != null ? given : fallback;
    }

    /** Whether {@code longName} is one of the container options this class reads. */
    public static boolean reads(String longName) {
        return OPTIONS.containsKey(longName);
    }

    /**
     * What the container options given so far ask for. {@link #apply} takes each as it comes;
     * {@link #build} is null when none was given.
     */
    public static final class Builder {
        private boolean given;
        private String image;
        private String bundle;
        private final List<String> mounts = new ArrayList<>();
        private String workdir;
        private String name;
        private final LinkedHashSet<String> env = new LinkedHashSet<>();
        private Boolean mountHome;
        private Boolean remapRoot;
        private Boolean writable;
        private Boolean entrypoint;

        /**
         * Takes one option.
         * @param longName its name without dashes, one of {@link #OPTIONS}
         * @param value its value, null for a flag
         * @throws IllegalArgumentException with pyxis's reason when the value is malformed
         */
        public void apply(String longName, String value) {
            given = true;
            switch (longName) {
                case "container-image" -> image = required(longName, value);
                case "container" -> bundle = required(longName, value);
                case "container-mounts" -> {
                    for (String item : required(longName, value).split(",", -1)) {
                        mounts.add(mount(item));
                    }
                }
                case "container-workdir" -> workdir = required(longName, value);
                case "container-name" -> name = containerName(required(longName, value));
                case "container-env" -> {
                    for (String item : required(longName, value).split(",", -1)) {
                        if (item.isEmpty()) {
                            throw new IllegalArgumentException("invalid format: '" + value + "' (NAME[,NAME...])");
                        }
                        env.add(item);
                    }
                }
                case "container-mount-home" -> mountHome = true;
                case "no-container-mount-home" -> mountHome = false;
                case "container-remap-root" -> remapRoot = true;
                case "no-container-remap-root" -> remapRoot = false;
                case "container-writable" -> writable = true;
                case "container-readonly" -> writable = false;
                case "container-entrypoint" -> entrypoint = true;
                case "no-container-entrypoint" -> entrypoint = false;
                default -> throw new IllegalArgumentException("is not a container option");
            }
        }

        /** The container asked for, or null when no container option was given. */
        public ContainerSpec build() {
            if (!given) {
                return null;
            }
            return new ContainerSpec(image, bundle, mounts.isEmpty() ? null : mounts, workdir, name,
                    env.isEmpty() ? null : List.copyOf(env), mountHome, remapRoot, writable, entrypoint);
        }

        private static String required(String longName, String value) {
            if (value == null || value.isEmpty()) {
                throw new IllegalArgumentException("argument required");
            }
            return value;
        }

        /** pyxis's {@code SRC[:DST[:FLAGS]]} as {@code SRC:DST} or {@code SRC:DST:ro|rw}. */
        private static String mount(String item) {
            String[] parts = item.split(":", 3);
            if (parts[0].isEmpty() || (parts.length > 1 && parts[1].isEmpty())) {
                throw new IllegalArgumentException("invalid format: '" + item + "' (SRC:DST[:ro|rw])");
            }
            String source = parts[0];
            String target = parts.length > 1 ? parts[1] : source;
            if (parts.length < 3 || parts[2].isEmpty()) {
                return source + ":" + target;
            }
            String mode = null;
            for (String flag : parts[2].split("\\+", -1)) {
                if (!flag.equals("ro") && !flag.equals("rw")) {
                    throw new IllegalArgumentException("mount flag '" + flag + "' in '" + item
                            + "' is not supported: Gantry takes ro or rw");
                }
                mode = flag;
            }
            return source + ":" + target + ":" + mode;
        }

        /** pyxis's {@code NAME[:FLAGS]}: only {@code auto}, pyxis's default, is taken. */
        private static String containerName(String value) {
            int colon = value.indexOf(':');
            if (colon < 0) {
                return value;
            }
            String flags = value.substring(colon + 1);
            if (!flags.isEmpty() && !flags.equals("auto")) {
                throw new IllegalArgumentException("flag '" + flags + "' is not supported: Gantry creates a named "
                        + "container on its first use and reuses it after (pyxis's auto)");
            }
            if (colon == 0) {
                throw new IllegalArgumentException("empty name");
            }
            return value.substring(0, colon);
        }
    }
}
