package io.gantry.jobs;

import static io.gantry.jobs.SubmissionDraft.first;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.gantry.api.GantryException.FieldError;
import io.gantry.api.InputBounds;
import io.gantry.api.InputText;
import io.gantry.cluster.ClusterLayout;
import io.gantry.engine.Hostlist;
import io.gantry.engine.HostlistException;

/**
 * The steps of a submission beside its resource shape: its environment, the nodes it names or
 * excludes, its paths and texts, umask, signal, switches, container and simulated run. Each reads the
 * {@link SubmissionDraft}, sets what it settles there and adds a field error for each mistake; and
 * {@link #located} moves an error about a value a directive gave to that directive's script line.
 */
final class SubmissionOptions {

    /** The most characters the environment as stored may have: the store's column size. */
    static final int MAX_ENVIRONMENT = 1_048_576;
    /** How many unknown node names an error shows before it only counts them. */
    private static final int NAMES_SHOWN = 5;
    /** The most characters a compressed nodelist or exclude list may have: the store's column size. */
    static final int MAX_HOSTLIST_TEXT = 4000;

    private SubmissionOptions() {
    }

    /** {@code --export}'s assignments, then the JSON's variables, each a valid name; within the store's column. */
    static void environment(SubmissionDraft d) {
        Map<String, String> environment = new java.util.TreeMap<>(exported(d.directives.export()));
        if (d.json.environment() != null) {
            for (Map.Entry<String, String> variable : d.json.environment().entrySet()) {
                if (variable.getValue() == null) {
                    d.error("environment." + variable.getKey(), "must not be null (leave the "
                            + "variable out, or give \"\" for an empty value)");
                } else {
                    environment.put(variable.getKey(), variable.getValue());
                }
            }
        }
        for (String key : environment.keySet()) {
            if (key == null || !key.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                d.error("environment", "'" + key + "' is not a valid variable name");
            }
        }
        if (!environment.isEmpty() && EnvironmentText.encode(environment).length() > MAX_ENVIRONMENT) {
            d.error("environment", "holds more than " + MAX_ENVIRONMENT + " characters");
        }
        d.environment = environment;
    }

    /** {@code --export=A=1,B=2}: the assignments become the job's environment; ALL, NONE and bare names add nothing. */
    private static Map<String, String> exported(String export) {
        Map<String, String> environment = new java.util.TreeMap<>();
        if (export == null) {
            return environment;
        }
        for (String item : export.split(",")) {
            int eq = item.indexOf('=');
            if (eq > 0) {
                environment.put(item.substring(0, eq).strip(), item.substring(eq + 1));
            }
        }
        return environment;
    }

    /** {@code -w} and {@code -x}: known nodes, and no more listed than the job may have. */
    static void hostlists(SubmissionDraft d) {
        JobSubmission json = d.json;
        SbatchOptions directives = d.directives;
        d.nodelistField = d.fieldOf("nodelist", json.nodelist());
        d.excludeField = d.fieldOf("exclude", json.exclude());
        Hostlist listed = hostlist(d.nodelistField, first(json.nodelist(), directives.nodelist(), null), d.layout,
                d.errors);
        Hostlist excluded = hostlist(d.excludeField, first(json.exclude(), directives.exclude(), null), d.layout,
                d.errors);
        d.nodelist = listed == null ? null : listed.compressed();
        d.exclude = excluded == null ? null : excluded.compressed();
        if (listed != null) {
            int distinct = new java.util.HashSet<>(listed.hosts()).size();
            Integer most = d.maxNodes != null ? d.maxNodes : d.minNodes > 0 ? Integer.valueOf(d.minNodes) : null;
            if (most != null && distinct > most) {
                d.error(d.nodelistField, "names " + distinct + " nodes but the job asks for at most "
                        + most + " (nodes" + (d.maxNodes != null ? "/maxNodes" : "") + ", -N): every listed node is"
                        + " part of the allocation");
            }
        }
    }

    /**
     * A {@code -w}/{@code -x} list, expanded (at most {@link SubmissionResolver#MAX_HOSTS} names, refused
     * before expanding more) and checked: every name a configured or registered node, the compressed form
     * within the store's column. Unknown names are reported as the first few and a count, so a huge list
     * costs no huge message. Null when none was given or it is invalid (the problem added to {@code errors}).
     */
    private static Hostlist hostlist(String field, String expression, ClusterLayout layout, List<FieldError> errors) {
        if (expression == null || expression.isBlank()) {
            return null;
        }
        Hostlist hosts;
        try {
            hosts = Hostlist.parse(expression, SubmissionResolver.MAX_HOSTS);
        } catch (HostlistException e) {
            errors.add(new FieldError(field, e.getMessage()));
            return null;
        }
        List<String> unknown = new ArrayList<>(NAMES_SHOWN);
        int unknownCount = 0;
        for (String host : new java.util.LinkedHashSet<>(hosts.hosts())) {
            if (!layout.nodes().containsKey(host)) {
                if (unknown.size() < NAMES_SHOWN) {
                    unknown.add(host);
                }
                unknownCount++;
            }
        }
        if (unknownCount > 0) {
            errors.add(new FieldError(field, unknownNodes(unknown, unknownCount)));
            return null;
        }
        String compressed = hosts.compressed();
        if (compressed.length() > MAX_HOSTLIST_TEXT) {
            errors.add(new FieldError(field, "is " + compressed.length() + " characters long as a compressed hostlist;"
                    + " at most " + MAX_HOSTLIST_TEXT + " (name ranges of nodes, as in gpu[001-512])"));
            return null;
        }
        return hosts;
    }

    /** "unknown nodes 'a', 'b', 'c' and 99,997 more (100,000 in all): ..." with at most {@link #NAMES_SHOWN} names. */
    static String unknownNodes(List<String> shown, int count) {
        return (count == 1 ? "unknown node " : "unknown nodes ") + io.gantry.api.InputText.someOf(shown, count)
                + ": neither configured nor registered";
    }

    /** {@code -D}, {@code -o}, {@code -e} and {@code --comment}. */
    static void paths(SubmissionDraft d) {
        d.workdir = first(d.json.workdir(), d.directives.workdir(), null);
        d.stdout = first(d.json.stdout(), d.directives.stdout(), null);
        d.stderr = first(d.json.stderr(), d.directives.stderr(), null);
        d.comment = first(d.json.comment(), d.directives.comment(), null);
    }

    /**
     * Every text within its store column, the working directory absolute, and no control characters
     * in any name or path.
     */
    static void texts(SubmissionDraft d) {
        JobSubmission json = d.json;
        // Field, its sbatch option (for the script line when a directive gave it), JSON value, value, limit.
        Object[][] limits = {{"workdir", "chdir", json.workdir(), d.workdir, SubmissionLimits.PATH},
            {"stdout", "output", json.stdout(), d.stdout, SubmissionLimits.PATH},
            {"stderr", "error", json.stderr(), d.stderr, SubmissionLimits.PATH},
            {"comment", "comment", json.comment(), d.comment, SubmissionLimits.COMMENT},
            {"account", "account", json.account(), d.account, SubmissionLimits.ACCOUNT},
            {"qos", "qos", json.qos(), d.qos, SubmissionLimits.QOS},
            {"constraints", "constraint", json.constraints(), d.constraints, SubmissionLimits.CONSTRAINTS},
            {"gpuType", "gpus", json.gpuType(), d.gpuType, SubmissionLimits.GPU_TYPE},
            {"reservation", "reservation", json.reservation(), d.reservation, SubmissionLimits.RESERVATION},
            {"dependency", "dependency", json.dependency(), d.dependency, SubmissionLimits.DEPENDENCY},
            {"array", "array", json.array(), d.array, SubmissionLimits.ARRAY}};
        for (Object[] limit : limits) {
            InputBounds.text(d.where((String) limit[0], (String) limit[1], limit[2]), (String) limit[3],
                    (int) limit[4], d.errors);
        }
        if (d.workdir != null && !d.workdir.isEmpty() && !d.workdir.startsWith("/")) {
            // The agent starts the job in it on a node that has no idea where it was submitted from:
            // sbatch resolves a relative --chdir against its own directory before sending it.
            d.error(d.where("workdir", "chdir", json.workdir()),
                    "must be an absolute path (it is '" + InputText.shown(d.workdir) + "'): a relative one means "
                            + "nothing on the job's nodes");
        }
        String[][] texts = {{"name", d.name}, {"workdir", d.workdir}, {"stdout", d.stdout}, {"stderr", d.stderr},
            {"comment", d.comment}, {"account", d.account}, {"qos", d.qos}, {"partition", json.partition()},
            {"constraints", d.constraints}, {"gpuType", d.gpuType}, {"reservation", d.reservation},
            {"dependency", d.dependency}, {"array", d.array}};
        for (String[] text : texts) {
            if (ControlCharacters.in(text[1])) {
                d.error(text[0], "must not hold control characters (it holds " + ControlCharacters.first(text[1]) + ")");
            }
        }
    }

    /**
     * The umask asked for, else the one sbatch passes from the user's shell in SLURM_UMASK (as 4 octal
     * digits), else null: the agent's default.
     */
    static void umask(SubmissionDraft d) {
        String given = d.json.umask();
        String value = given != null ? given : d.environment.get(JobUmask.VARIABLE);
        if (value == null) {
            return;
        }
        try {
            d.umask = JobUmask.parse(value);
        } catch (IllegalArgumentException e) {
            d.error("umask", (given != null ? "" : JobUmask.VARIABLE + " in environment: ") + e.getMessage());
        }
    }

    /** {@code --signal}, in {@link JobSignal}'s canonical form. */
    static void signal(SubmissionDraft d) {
        d.signal = d.directives.signal();
        if (d.json.signal() != null) {
            try {
                d.signal = JobSignal.parse(d.json.signal()).toString();
            } catch (IllegalArgumentException e) {
                d.error("signal", e.getMessage());
            }
        }
    }

    /** {@code --switches}, in {@link JobSwitches}'s stored form. */
    static void switches(SubmissionDraft d) {
        d.switches = d.directives.switches();
        try {
            if (d.json.switches() != null) {
                d.switches = JobSwitches.parse(d.json.switches()).toString();
            }
            d.switchLimit = d.switches == null ? null : JobSwitches.stored(d.switches);
        } catch (IllegalArgumentException e) {
            d.error("switches", e.getMessage());
        }
    }

    /** The {@code #SBATCH} option each container field comes from, for errors about a directive's value. */
    private static final Map<String, String> CONTAINER_OPTIONS = Map.of("image", "container-image", "bundle",
            "container", "mounts", "container-mounts", "workdir", "container-workdir", "name", "container-name",
            "env", "container-env");

    /**
     * The container the batch script runs in: the JSON's whole when it gives one (as the JSON wins over
     * directives field by field elsewhere, and a container's fields only make sense together), else the
     * {@code #SBATCH --container*} lines'. Its mistakes name the JSON field ({@code container.mounts[1]})
     * or the script line of the directive that gave the value.
     */
    static void container(SubmissionDraft d) {
        JobSubmission json = d.json;
        SbatchOptions directives = d.directives;
        io.gantry.noded.protocol.ContainerSpec container = json.container() != null ? json.container()
                : directives.container();
        for (FieldError error : ContainerFlags.check(container, "container", true)) {
            if (json.container() != null) {
                d.errors.add(error);
                continue;
            }
            String field = error.field().substring("container.".length()).replaceFirst("\\[.*", "");
            String option = CONTAINER_OPTIONS.getOrDefault(field, "container-image");
            Integer line = directives.lineOf(option);
            if (line == null) {
                // the fault is one of the flags given without an image: the first container line names it
                line = io.gantry.noded.protocol.ContainerOptions.OPTIONS.keySet().stream().map(directives::lineOf)
                        .filter(java.util.Objects::nonNull).min(Integer::compare).orElse(null);
            }
            d.errors.add(line == null ? error : new FieldError("script:" + line, "--" + option + ": " + error.message()));
        }
        d.container = container;
    }

    /** How long a simulated node pretends the job runs. */
    static void simulatedRun(SubmissionDraft d) {
        d.simulatedRun = d.json.simulatedRunSeconds();
        if (d.simulatedRun != null && (d.simulatedRun < 0 || d.simulatedRun > InputBounds.MAX_DURATION.toSeconds())) {
            d.error("simulatedRunSeconds", "must be 0 to " + InputBounds.MAX_DURATION.toSeconds());
        }
    }

    /** The directives (long option names) that can give each JSON field its value. */
    private static final Map<String, List<String>> DIRECTIVES_OF = Map.ofEntries(
            Map.entry("name", List.of("job-name")), Map.entry("partition", List.of("partition")),
            Map.entry("account", List.of("account")), Map.entry("qos", List.of("qos")),
            Map.entry("nodes", List.of("nodes")), Map.entry("maxNodes", List.of("nodes")),
            Map.entry("tasks", List.of("ntasks")), Map.entry("cpusPerTask", List.of("cpus-per-task")),
            Map.entry("ntasksPerNode", List.of("ntasks-per-node")),
            Map.entry("memoryMb", List.of("mem", "mem-per-cpu", "mem-per-gpu")),
            Map.entry("memPerCpuMb", List.of("mem-per-cpu")), Map.entry("memPerGpuMb", List.of("mem-per-gpu")),
            Map.entry("gpus", List.of("gpus", "gres")), Map.entry("gpusPerNode", List.of("gpus-per-node", "gres")),
            Map.entry("gpusPerTask", List.of("gpus-per-task")), Map.entry("cpusPerGpu", List.of("cpus-per-gpu")),
            Map.entry("gpuType", List.of("gpus", "gres", "gpus-per-node", "gpus-per-task")),
            Map.entry("timeLimitSeconds", List.of("time")), Map.entry("timeMinSeconds", List.of("time-min")),
            Map.entry("constraints", List.of("constraint")), Map.entry("exclusive", List.of("exclusive")),
            Map.entry("exclusiveMode", List.of("exclusive")), Map.entry("dependency", List.of("dependency")),
            Map.entry("array", List.of("array")), Map.entry("hold", List.of("hold")), Map.entry("nice", List.of("nice")),
            Map.entry("workdir", List.of("chdir")), Map.entry("stdout", List.of("output")),
            Map.entry("stderr", List.of("error")), Map.entry("nodelist", List.of("nodelist")),
            Map.entry("exclude", List.of("exclude")), Map.entry("beginTime", List.of("begin")),
            Map.entry("reservation", List.of("reservation")), Map.entry("comment", List.of("comment")),
            Map.entry("signal", List.of("signal")), Map.entry("switches", List.of("switches")),
            Map.entry("segment", List.of("segment")));

    private static final Map<String, java.lang.reflect.Method> JSON_FIELDS = java.util.Arrays
            .stream(JobSubmission.class.getRecordComponents())
            .collect(java.util.stream.Collectors.toMap(java.lang.reflect.RecordComponent::getName,
                    java.lang.reflect.RecordComponent::getAccessor));

    /**
     * Errors about values the JSON left out and a directive gave are moved to that directive's line
     * ({@code script:LINE}, the message starting with the option), so an account named by
     * {@code #SBATCH -A} is reported at its line, not under an Account field the user left empty.
     */
    static List<FieldError> located(List<FieldError> errors, JobSubmission json, SbatchOptions directives) {
        List<FieldError> located = new ArrayList<>(errors.size());
        for (FieldError e : errors) {
            List<String> options = DIRECTIVES_OF.get(e.field());
            java.lang.reflect.Method accessor = JSON_FIELDS.get(e.field());
            Object given = null;
            if (accessor != null) {
                try {
                    given = accessor.invoke(json);
                } catch (ReflectiveOperationException impossible) {
                    throw new IllegalStateException(impossible);
                }
            }
            String option = null;
            Integer line = null;
            if (options != null && given == null) {
                for (String o : options) {
                    Integer l = directives.lineOf(o);
                    if (l != null && (line == null || l > line)) {
                        line = l;
                        option = o;
                    }
                }
            }
            located.add(line == null ? e : new FieldError("script:" + line, "--" + option + ": " + e.message()));
        }
        return located;
    }

    static String summary(List<FieldError> errors) {
        return errors.stream().map(e -> e.field() + ": " + e.message()).reduce((a, b) -> a + "; " + b).orElse("");
    }
}
