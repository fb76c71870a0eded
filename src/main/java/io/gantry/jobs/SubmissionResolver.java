package io.gantry.jobs;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.function.LongPredicate;

import org.springframework.stereotype.Component;

import io.gantry.api.GantryException;
import io.gantry.api.GantryException.FieldError;
import io.gantry.api.InputBounds;
import io.gantry.api.InputText;
import io.gantry.api.ProblemType;
import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.ClusterService;
import io.gantry.engine.Constraint;
import io.gantry.engine.Engine;
import io.gantry.engine.Feasibility;
import io.gantry.engine.Hostlist;
import io.gantry.engine.HostlistException;
import io.gantry.engine.JobId;
import io.gantry.engine.Node;
import io.gantry.engine.Partition;
import io.gantry.engine.PendingJob;
import io.gantry.engine.PendingReason;
import io.gantry.engine.Request;
import io.gantry.engine.Snapshot;
import io.gantry.engine.Switch;
import io.gantry.engine.Tres;
import io.gantry.security.CurrentUser;

/**
 * Turns a submission into a {@link JobSpec}: {@code #SBATCH} directives fill what the JSON leaves
 * out, partition defaults fill the rest, and everything a user can get wrong is reported at once,
 * naming the JSON field or the script line. A request that could never run is refused here rather
 * than left pending forever.
 */
@Component
class SubmissionResolver {

    private static final int MAX_NAME = SubmissionLimits.NAME;
    /** The most characters the environment as stored may have: the store's column size. */
    static final int MAX_ENVIRONMENT = 1_048_576;
    /** The most names a nodelist or exclude list may expand to; more is refused before expanding. */
    static final int MAX_HOSTS = 65_536;
    /** How many unknown node names an error shows before it only counts them. */
    private static final int NAMES_SHOWN = 5;
    /** The most characters a compressed nodelist or exclude list may have: the store's column size. */
    static final int MAX_HOSTLIST_TEXT = 4000;

    private final ClusterService cluster;
    private final Charges charges;
    private final AccountedJobs accounted;
    private final JobsProperties properties;
    private final Engine engine = new Engine();
    private final Clock clock;
    private volatile Shapes shapes;

    SubmissionResolver(ClusterService cluster, Charges charges, AccountedJobs accounted,
            JobsProperties properties, Clock clock) {
        this.cluster = cluster;
        this.charges = charges;
        this.accounted = accounted;
        this.properties = properties;
        this.clock = clock;
    }

    /** Who may name which advance reservation; the reservations feature answers. */
    private ReservationAccess reservations = (name, user, account) -> Optional.of("unknown reservation '" + name + "'");

    @org.springframework.beans.factory.annotation.Autowired
    void reservationAccess(ReservationAccess access) {
        this.reservations = access;
    }

    record Resolved(JobSpec spec, List<String> warnings) {
    }

    record Change(Long timeLimitSeconds, String partitions, String summary) {
    }

    Resolved resolve(JobSubmission json, CurrentUser caller, LongPredicate jobExists) {
        if (json == null) {
            throw GantryException.badRequest("body", "is required: a JSON object describing the job");
        }
        long maxScript = properties.maxScriptBytes().toBytes();
        long scriptBytes = json.script() == null ? 0 : utf8Length(json.script());
        if (scriptBytes > maxScript) {
            throw GantryException.badRequest("script", "is " + scriptBytes + " bytes long (UTF-8); at most " + maxScript
                    + " (gantry.jobs.max-script-bytes)");
        }
        Instant now = clock.instant();
        List<FieldError> errors = new ArrayList<>();
        SbatchOptions directives = parseScript(json.script() == null ? "" : json.script(), errors);
        List<String> warnings = new ArrayList<>(directives.warnings());
        ClusterLayout layout = cluster.layout();

        String name = first(json.name(), directives.name(), "job");
        if (name.isBlank() || name.length() > MAX_NAME) {
            errors.add(new FieldError("name", "must be 1 to " + MAX_NAME + " characters on one line"));
        }

        List<String> partitions = partitions(first(json.partition(), directives.partition(), null), layout, errors);

        String account = first(json.account(), directives.account(), null);
        String qos = first(json.qos(), directives.qos(), null);
        Charge charge = charge(caller.username(), account, qos, errors);
        if (charge != null) {
            account = charge.account();
            qos = charge.qos();
        }

        int minNodes = positiveOrZero("nodes", first(json.nodes(), directives.nodes(), 0), errors);
        Integer maxNodes = first(json.maxNodes(), directives.maxNodes(), null);
        if (maxNodes != null && maxNodes < Math.max(minNodes, 1)) {
            errors.add(new FieldError("maxNodes", "must be at least nodes (" + minNodes + "), was " + maxNodes));
        }
        Integer ntasksPerNode = first(json.ntasksPerNode(), directives.ntasksPerNode(), null);
        if (ntasksPerNode != null && ntasksPerNode < 1) {
            errors.add(new FieldError("ntasksPerNode", "must be at least 1, was " + ntasksPerNode));
        }
        Integer tasksGiven = first(json.tasks(), directives.tasks(), null);
        int tasks = tasksGiven != null ? tasksGiven
                : ntasksPerNode != null ? intProduct("ntasksPerNode", Math.max(minNodes, 1), ntasksPerNode, errors)
                : Math.max(minNodes, 1);
        if (tasks < 1) {
            errors.add(new FieldError("tasks", "must be at least 1, was " + tasks));
        }
        int gpus = positiveOrZero("gpus", first(json.gpus(), directives.gpus(), 0), errors);
        int gpusPerNode = positiveOrZero("gpusPerNode", first(json.gpusPerNode(), directives.gpusPerNode(), 0), errors);
        Integer gpusPerTask = first(json.gpusPerTask(), directives.gpusPerTask(), null);
        if (gpusPerTask != null) {
            if (gpusPerTask < 1) {
                errors.add(new FieldError("gpusPerTask", "must be at least 1, was " + gpusPerTask));
            } else if (gpus == 0 && gpusPerNode == 0) {
                gpus = intProduct("gpusPerTask", gpusPerTask, Math.max(tasks, 1), errors);
            }
        }
        if (gpus > 0 && gpusPerNode > 0) {
            errors.add(new FieldError("gpus", "ask for GPUs in total (gpus, -G) or per node (gpusPerNode, --gres), not both"));
        }
        String gpuType = first(json.gpuType(), directives.gpuType(), null);
        int cpusPerTask = first(json.cpusPerTask(), directives.cpusPerTask(), 1);
        Integer cpusPerGpu = first(json.cpusPerGpu(), directives.cpusPerGpu(), null);
        if (cpusPerGpu != null && cpusPerGpu > 0 && (gpus > 0 || gpusPerNode > 0) && tasks > 0) {
            long totalGpus = gpus > 0 ? gpus : (long) gpusPerNode * Math.max(minNodes, 1);
            long perTask = Math.max(cpusPerTask, ceilDiv(cpusPerGpu * totalGpus, tasks));
            if (perTask > Integer.MAX_VALUE) {
                errors.add(new FieldError("cpusPerGpu", "asks for " + perTask + " CPUs per task; at most "
                        + Integer.MAX_VALUE));
            } else {
                cpusPerTask = (int) perTask;
            }
        }
        if (cpusPerTask < 1) {
            errors.add(new FieldError("cpusPerTask", "must be at least 1, was " + cpusPerTask));
        }
        long memoryMb = memoryPerNode(json, directives, tasks, cpusPerTask, minNodes, ntasksPerNode, gpus,
                gpusPerNode, errors);

        String constraints = first(json.constraints(), directives.constraints(), null);
        Constraint constraint = Constraint.NONE;
        if (constraints != null) {
            try {
                constraint = Constraint.parse(constraints);
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("constraints", e.getMessage()));
            }
        }
        String exclusiveMode = first(json.exclusiveMode(), directives.exclusiveMode(), null);
        if (json.exclusiveMode() != null && !ExclusiveMode.NAMES.contains(json.exclusiveMode())) {
            errors.add(new FieldError("exclusiveMode", "must be user, mcs or topo (as --exclusive=user|mcs|topo), was '"
                    + json.exclusiveMode() + "'"));
            exclusiveMode = null;
        }
        if (json.exclusiveMode() != null && Boolean.FALSE.equals(json.exclusive())) {
            errors.add(new FieldError("exclusive", "is false, but exclusiveMode '" + json.exclusiveMode()
                    + "' asks for an exclusive job; leave exclusive out or set it true"));
        }
        boolean exclusive = first(json.exclusive(), directives.exclusive(), false) || exclusiveMode != null;

        Long timeGiven = first(json.timeLimitSeconds(), directives.timeLimitSeconds(), null);
        long timeLimit = timeLimit(timeGiven, partitions, layout, errors);
        if (charge != null && (timeGiven == null || timeGiven == 0) && charge.limits().maxWallSeconds() > 0) {
            // Like Slurm: a job that gives no time limit gets at most its QOS's MaxWall.
            timeLimit = Math.min(timeLimit, charge.limits().maxWallSeconds());
        }

        Long timeMin = first(json.timeMinSeconds(), directives.timeMinSeconds(), null);
        if (timeMin != null && (timeMin <= 0 || timeMin > timeLimit)) {
            errors.add(new FieldError(fieldOf("timeMinSeconds", json.timeMinSeconds(), directives),
                    "must be positive and at most the time limit (" + io.gantry.engine.SlurmTime.format(timeLimit)
                            + "), was " + timeMin + " s"));
            timeMin = null;
        }

        Integer shards = sharedGpus(json, directives, gpus, gpusPerNode, gpuType, minNodes, maxNodes, exclusive,
                errors);

        Integer segment = first(json.segment(), directives.segment(), null);
        if (segment != null && (segment < 1 || minNodes < 1 || minNodes % segment != 0)) {
            errors.add(new FieldError(fieldOf("segment", json.segment(), directives), minNodes < 1
                    ? "needs a node count (-N) that is a multiple of it, and none was given"
                    : "must be at least 1 and divide the node count (" + minNodes + "), was " + segment));
            segment = null;
        }

        String array = first(json.array(), directives.array(), null);
        List<Integer> taskIds = List.of();
        Integer arrayMaxRunning = null;
        if (array != null) {
            try {
                ArraySpec spec = ArraySpec.parse(array, properties.maxArraySize());
                taskIds = spec.taskIds();
                arrayMaxRunning = spec.maxRunning();
            } catch (JobSpecException e) {
                errors.add(new FieldError("array", e.getMessage()));
            }
        }

        String dependency = first(json.dependency(), directives.dependency(), null);
        // One too long is refused with the other lengths below, unparsed: its job ids are not looked up one by one.
        if (dependency != null && dependency.length() <= SubmissionLimits.DEPENDENCY) {
            try {
                for (DependencySpec.Condition condition : DependencySpec.parse(dependency).conditions()) {
                    if (condition.jobId() > 0 && !jobExists.test(condition.jobId())) {
                        errors.add(new FieldError("dependency", "job " + condition.jobId() + " does not exist"));
                    }
                }
            } catch (JobSpecException e) {
                errors.add(new FieldError("dependency", e.getMessage()));
            }
        }

        boolean held = first(json.hold(), directives.hold(), false);
        int nice = first(json.nice(), directives.nice(), 0);
        checkNice(nice, caller, errors);

        Map<String, String> environment = new java.util.TreeMap<>(exported(directives.export()));
        if (json.environment() != null) {
            for (Map.Entry<String, String> variable : json.environment().entrySet()) {
                if (variable.getValue() == null) {
                    errors.add(new FieldError("environment." + variable.getKey(), "must not be null (leave the "
                            + "variable out, or give \"\" for an empty value)"));
                } else {
                    environment.put(variable.getKey(), variable.getValue());
                }
            }
        }
        for (String key : environment.keySet()) {
            if (key == null || !key.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                errors.add(new FieldError("environment", "'" + key + "' is not a valid variable name"));
            }
        }
        if (!environment.isEmpty() && EnvironmentText.encode(environment).length() > MAX_ENVIRONMENT) {
            errors.add(new FieldError("environment", "holds more than " + MAX_ENVIRONMENT + " characters"));
        }
        String reservation = first(json.reservation(), directives.reservation(), null);
        if (reservation != null) {
            reservations.refusal(reservation, caller.username(), account)
                    .ifPresent(why -> errors.add(new FieldError("reservation", why)));
        }
        Instant beginTime = beginTime(json, directives, now, errors);
        String nodelistField = fieldOf("nodelist", json.nodelist(), directives);
        String excludeField = fieldOf("exclude", json.exclude(), directives);
        Hostlist listed = hostlist(nodelistField, first(json.nodelist(), directives.nodelist(), null), layout, errors);
        Hostlist excluded = hostlist(excludeField, first(json.exclude(), directives.exclude(), null), layout, errors);
        String nodelist = listed == null ? null : listed.compressed();
        String exclude = excluded == null ? null : excluded.compressed();
        if (listed != null) {
            int distinct = new java.util.HashSet<>(listed.hosts()).size();
            Integer most = maxNodes != null ? maxNodes : minNodes > 0 ? Integer.valueOf(minNodes) : null;
            if (most != null && distinct > most) {
                errors.add(new FieldError(nodelistField, "names " + distinct + " nodes but the job asks for at most "
                        + most + " (nodes" + (maxNodes != null ? "/maxNodes" : "") + ", -N): every listed node is"
                        + " part of the allocation"));
            }
        }
        String workdir = first(json.workdir(), directives.workdir(), null);
        String stdout = first(json.stdout(), directives.stdout(), null);
        String stderr = first(json.stderr(), directives.stderr(), null);
        String comment = first(json.comment(), directives.comment(), null);
        // Field, its sbatch option (for the script line when a directive gave it), JSON value, value, limit.
        Object[][] limits = {{"workdir", "chdir", json.workdir(), workdir, SubmissionLimits.PATH},
            {"stdout", "output", json.stdout(), stdout, SubmissionLimits.PATH},
            {"stderr", "error", json.stderr(), stderr, SubmissionLimits.PATH},
            {"comment", "comment", json.comment(), comment, SubmissionLimits.COMMENT},
            {"account", "account", json.account(), account, SubmissionLimits.ACCOUNT},
            {"qos", "qos", json.qos(), qos, SubmissionLimits.QOS},
            {"constraints", "constraint", json.constraints(), constraints, SubmissionLimits.CONSTRAINTS},
            {"gpuType", "gpus", json.gpuType(), gpuType, SubmissionLimits.GPU_TYPE},
            {"reservation", "reservation", json.reservation(), reservation, SubmissionLimits.RESERVATION},
            {"dependency", "dependency", json.dependency(), dependency, SubmissionLimits.DEPENDENCY},
            {"array", "array", json.array(), array, SubmissionLimits.ARRAY}};
        for (Object[] limit : limits) {
            InputBounds.text(where((String) limit[0], (String) limit[1], limit[2], directives), (String) limit[3],
                    (int) limit[4], errors);
        }
        if (workdir != null && !workdir.isEmpty() && !workdir.startsWith("/")) {
            // The agent starts the job in it on a node that has no idea where it was submitted from:
            // sbatch resolves a relative --chdir against its own directory before sending it.
            errors.add(new FieldError(where("workdir", "chdir", json.workdir(), directives),
                    "must be an absolute path (it is '" + InputText.shown(workdir) + "'): a relative one means "
                            + "nothing on the job's nodes"));
        }
        String[][] texts = {{"name", name}, {"workdir", workdir}, {"stdout", stdout}, {"stderr", stderr},
            {"comment", comment}, {"account", account}, {"qos", qos}, {"partition", json.partition()},
            {"constraints", constraints}, {"gpuType", gpuType}, {"reservation", reservation},
            {"dependency", dependency}, {"array", array}};
        for (String[] text : texts) {
            if (ControlCharacters.in(text[1])) {
                errors.add(new FieldError(text[0], "must not hold control characters (it holds "
                        + ControlCharacters.first(text[1]) + ")"));
            }
        }
        String umask = umask(json.umask(), environment, errors);
        String signal = directives.signal();
        if (json.signal() != null) {
            try {
                signal = JobSignal.parse(json.signal()).toString();
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("signal", e.getMessage()));
            }
        }
        String switches = directives.switches();
        JobSwitches switchLimit = null;
        try {
            if (json.switches() != null) {
                switches = JobSwitches.parse(json.switches()).toString();
            }
            switchLimit = switches == null ? null : JobSwitches.parse(switches);
        } catch (IllegalArgumentException e) {
            errors.add(new FieldError("switches", e.getMessage()));
        }
        io.gantry.agent.protocol.ContainerSpec container = container(json, directives, errors);
        Long simulatedRun = json.simulatedRunSeconds();
        if (simulatedRun != null && (simulatedRun < 0 || simulatedRun > InputBounds.MAX_DURATION.toSeconds())) {
            errors.add(new FieldError("simulatedRunSeconds", "must be 0 to " + InputBounds.MAX_DURATION.toSeconds()));
        }

        if (charge != null && errors.isEmpty()) {
            long gpuTotal = gpus > 0 ? gpus : (long) gpusPerNode * Math.max(minNodes, 1);
            Tres tres = new Tres((long) tasks * cpusPerTask, product(memoryMb, Math.max(minNodes, 1)), gpuTotal,
                    Math.max(minNodes, 1));
            submitLimits(charge, caller.username(), timeLimit, tres, taskIds.isEmpty() ? 1 : taskIds.size(), errors);
        }
        // Whether the job could ever run is asked even when other fields are wrong, as long as none of
        // them shapes the request (an unknown account, a bad dependency): one answer names every mistake.
        FieldError impossible = null;
        if (errors.stream().allMatch(SubmissionResolver::leavesRequestWhole)) {
            Request request = Request.builder().nodes(minNodes).tasks(tasks).cpusPerTask(cpusPerTask)
                    .memoryMb(memoryMb).typedGpus(gpuType, gpus, gpusPerNode).shards(shards == null ? 0 : shards)
                    .constraint(constraint)
                    .exclusive(exclusive).nodelist(nodelist).exclude(exclude)
                    .switches(switchLimit == null ? 0 : switchLimit.count())
                    .switchWaitSeconds(switchLimit == null ? 0 : switchLimit.waitSeconds())
                    .maxNodes(maxNodes == null ? 0 : maxNodes).timeMinSeconds(timeMin == null ? 0 : timeMin)
                    .segment(segment == null ? 0 : segment).topoExclusive(ExclusiveMode.TOPO.equals(exclusiveMode)).build();
            Feasibility feasibility = feasibility(request, partitions, timeLimit, caller, qos, account);
            if (!feasibility.fits()) {
                String field = switch (feasibility.cause()) {
                    case NODELIST -> nodelistField;
                    case EXCLUDE -> excludeField;
                    case REQUEST -> request.sharesGpus() && feasibility.reason() == PendingReason.BAD_CONSTRAINTS
                            ? (request.shards() > 0 ? "shards" : "gpuType") : fieldOf(feasibility, gpusPerNode > 0 && gpus == 0);
                };
                String message = feasibility.message();
                if (feasibility.reason() == io.gantry.engine.PendingReason.BAD_CONSTRAINTS && gpuType != null) {
                    java.util.SortedSet<String> types = gpuTypes(partitions, layout);
                    if (!types.contains(gpuType)) {
                        field = "gpuType";
                        message = "no node in " + String.join(",", partitions) + " has GPUs of type '" + gpuType + "'"
                                + (types.isEmpty() ? "; its nodes have no typed GPUs" : "; it has " + String.join(", ", types));
                    }
                }
                impossible = new FieldError(field, message);
            }
        }
        if (!errors.isEmpty()) {
            List<FieldError> all = new ArrayList<>(errors);
            if (impossible != null) {
                all.add(impossible);
            }
            List<FieldError> located = located(all, json, directives);
            throw new GantryException(ProblemType.VALIDATION, summary(located), located);
        }
        if (impossible != null) {
            List<FieldError> located = located(List.of(impossible), json, directives);
            throw new GantryException(ProblemType.VALIDATION, "This job could never run: " + impossible.message(), located);
        }
        JobSpec spec = new JobSpec(name, json.script(), partitions, account, qos, minNodes, maxNodes, tasks,
                cpusPerTask, ntasksPerNode, memoryMb, gpus, gpusPerNode, gpuType, timeLimit, constraints, exclusive,
                dependency, array, arrayMaxRunning, taskIds, held ? Hold.USER : Hold.NONE, nice,
                workdir, environment, stdout, stderr, first(json.requeue(), directives.requeue(), true), reservation,
                beginTime, nodelist, exclude, comment, simulatedRun, json.simulatedExitCode(), umask, signal,
                switches, timeMin, segment, memoryMb > 0 ? null : defaultMemory(partitions, layout, minNodes, tasks, cpusPerTask, ntasksPerNode,
                        exclusive), exclusiveMode, shards, container);
        return new Resolved(spec, warnings);
    }

    /** Checks a PATCH of a pending job against the same rules as a submission. */
    Change checkUpdate(JobEntity job, JobViews.JobUpdate update, CurrentUser caller) {
        List<FieldError> errors = new ArrayList<>();
        if (update.nice() != null) {
            checkNice(update.nice(), caller, errors);
        }
        ClusterLayout layout = cluster.layout();
        List<String> partitions = update.partition() == null ? job.partitions()
                : partitions(update.partition(), layout, errors);
        Long time = null;
        if (update.timeLimitSeconds() != null) {
            time = timeLimit(update.timeLimitSeconds(), partitions, layout, errors);
        }
        if (update.qos() != null || time != null) {
            String qos = update.qos() != null ? update.qos() : job.qos();
            Charge charge = charge(job.user(), job.account(), qos, errors);
            if (charge != null) {
                long gpuTotal = job.gpus() > 0 ? job.gpus() : (long) job.gpusPerNode() * Math.max(job.minNodes(), 1);
                Tres tres = new Tres((long) job.tasks() * job.cpusPerTask(),
                        job.memoryMb() * Math.max(job.minNodes(), 1), gpuTotal, Math.max(job.minNodes(), 1));
                // The job counts in its QOS already; moving to another one adds it there.
                int adding = charge.qos().equals(job.qos()) ? 0 : 1;
                submitLimits(charge, job.user(), time != null ? time : job.timeLimitSeconds(), tres, adding, errors);
            }
        }
        if (update.name() != null && (update.name().isBlank() || update.name().length() > MAX_NAME)) {
            errors.add(new FieldError("name", "must be 1 to " + MAX_NAME + " characters"));
        } else if (ControlCharacters.in(update.name())) {
            errors.add(new FieldError("name", "must not hold control characters (it holds "
                    + ControlCharacters.first(update.name()) + ")"));
        }
        if (ControlCharacters.in(update.constraints())) {
            errors.add(new FieldError("constraints", "must not hold control characters (it holds "
                    + ControlCharacters.first(update.constraints()) + ")"));
        }
        if (update.constraints() != null && !update.constraints().isBlank()) {
            try {
                Constraint.parse(update.constraints());
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError("constraints", e.getMessage()));
            }
        }
        if (!errors.isEmpty()) {
            throw new GantryException(ProblemType.VALIDATION, summary(errors), errors);
        }
        List<String> changed = new ArrayList<>();
        if (update.name() != null) changed.add("name");
        if (time != null) changed.add("timeLimitSeconds=" + time);
        if (update.partition() != null) changed.add("partition=" + String.join(",", partitions));
        if (update.qos() != null) changed.add("qos=" + update.qos());
        if (update.nice() != null) changed.add("nice=" + update.nice());
        if (update.constraints() != null) changed.add("constraints=" + update.constraints());
        return new Change(time, update.partition() == null ? null : String.join(",", partitions),
                String.join(", ", changed));
    }

    /**
     * What a job that names no memory gets per node in its first partition, for the API to show while
     * it waits; the engine decides the real amount per partition as it places the job (the node count
     * it derives is estimated here the way it derives it, from the partition's largest node).
     */
    private Long defaultMemory(List<String> partitions, ClusterLayout layout, int minNodes, int tasks,
            int cpusPerTask, Integer ntasksPerNode, boolean exclusive) {
        ClusterLayout.PartitionSpec partition = partitions.isEmpty() ? null : layout.partitions().get(partitions.get(0));
        if (partition == null || partition.nodes().isEmpty()) {
            return null;
        }
        LargestNode largest = largestNodes(layout).get(partition.name());
        io.gantry.engine.MemoryDefault memoryDefault = partition.memoryDefault();
        if (exclusive || memoryDefault.wholeNode()) {
            return largest.memoryMb();
        }
        if (memoryDefault.perNodeMb() > 0) {
            return memoryDefault.perNodeMb();
        }
        long nodeCount = minNodes > 0 ? minNodes
                : Math.max(1, ceilDiv(tasks, Math.max(1, largest.cpus() / cpusPerTask)));
        long cpusPerNode = (ntasksPerNode != null ? ntasksPerNode : ceilDiv(tasks, nodeCount)) * (long) cpusPerTask;
        return memoryDefault.perCpuMb() * cpusPerNode;
    }

    /** The most memory and CPUs of any one node of a partition. */
    private record LargestNode(long memoryMb, int cpus) {
    }

    /** Per partition, computed once per layout: a partition may hold thousands of nodes, a submission needs only these. */
    private record LargestNodes(ClusterLayout layout, Map<String, LargestNode> byPartition) {
    }

    private volatile LargestNodes largestNodes;

    private Map<String, LargestNode> largestNodes(ClusterLayout layout) {
        LargestNodes known = largestNodes;
        if (known != null && known.layout() == layout) {
            return known.byPartition();
        }
        Map<String, LargestNode> byPartition = new java.util.HashMap<>();
        for (ClusterLayout.PartitionSpec partition : layout.partitions().values()) {
            long memory = 0;
            int cpus = 0;
            for (String name : partition.nodes()) {
                ClusterLayout.NodeSpec node = layout.nodes().get(name);
                if (node != null) {
                    memory = Math.max(memory, node.memoryMb());
                    cpus = Math.max(cpus, node.cpus());
                }
            }
            byPartition.put(partition.name(), new LargestNode(memory, cpus == 0 ? 1 : cpus));
        }
        largestNodes = new LargestNodes(layout, byPartition);
        return byPartition;
    }

    /**
     * The umask asked for, else the one sbatch passes from the user's shell in SLURM_UMASK (as 4 octal
     * digits), else null: the agent's default.
     */
    private static String umask(String given, Map<String, String> environment, List<FieldError> errors) {
        String value = given != null ? given : environment.get(JobUmask.VARIABLE);
        if (value == null) {
            return null;
        }
        try {
            return JobUmask.parse(value);
        } catch (IllegalArgumentException e) {
            errors.add(new FieldError("umask", (given != null ? "" : JobUmask.VARIABLE + " in environment: ")
                    + e.getMessage()));
            return null;
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
    private static io.gantry.agent.protocol.ContainerSpec container(JobSubmission json, SbatchOptions directives,
            List<FieldError> errors) {
        io.gantry.agent.protocol.ContainerSpec container = json.container() != null ? json.container()
                : directives.container();
        for (FieldError error : ContainerFlags.check(container, "container", true)) {
            if (json.container() != null) {
                errors.add(error);
                continue;
            }
            String field = error.field().substring("container.".length()).replaceFirst("\\[.*", "");
            String option = CONTAINER_OPTIONS.getOrDefault(field, "container-image");
            Integer line = directives.lineOf(option);
            if (line == null) {
                // the fault is one of the flags given without an image: the first container line names it
                line = io.gantry.agent.protocol.ContainerOptions.OPTIONS.keySet().stream().map(directives::lineOf)
                        .filter(java.util.Objects::nonNull).min(Integer::compare).orElse(null);
            }
            errors.add(line == null ? error : new FieldError("script:" + line, "--" + option + ": " + error.message()));
        }
        return container;
    }

    /** The account and QOS the job is charged to, or null with the reasons added to {@code errors}. */
    private Charge charge(String user, String account, String qos, List<FieldError> errors) {
        try {
            return charges.charge(user, account, qos);
        } catch (GantryException e) {
            errors.addAll(e.errors());
            return null;
        }
    }

    /** The QOS and association limits checked at submit time, each named as Slurm names it. */
    private void submitLimits(Charge charge, String user, long timeLimit, Tres tres, int adding,
            List<FieldError> errors) {
        io.gantry.engine.Qos q = charge.limits();
        String name = "QOS '" + q.name() + "'";
        if (q.maxWallSeconds() > 0 && timeLimit > q.maxWallSeconds()) {
            errors.add(new FieldError("timeLimitSeconds", "MaxWallDurationPerJob: " + name + " allows at most "
                    + io.gantry.engine.SlurmTime.format(q.maxWallSeconds()) + " per job; the job asks for "
                    + io.gantry.engine.SlurmTime.format(timeLimit)));
        }
        Tres max = q.maxTresPerJob();
        if (!tres.fitsWithin(max)) {
            errors.add(new FieldError("qos", "MaxTRESPerJob: " + name + " allows at most " + max
                    + " per job; the job asks for " + tres));
        }
        if (adding > 0 && charge.maxSubmitJobsPerUser() != null) {
            long held = accounted.ofUserInQos(user, q.name());
            if (held + adding > charge.maxSubmitJobsPerUser()) {
                errors.add(new FieldError("qos", "MaxSubmitJobsPerUser: " + name + " allows "
                        + charge.maxSubmitJobsPerUser() + " pending or running jobs per user; user '" + user
                        + "' has " + held + " and this submission adds " + adding));
            }
        }
        if (adding > 0 && charge.associationMaxSubmitJobs() != null) {
            long held = accounted.ofUserInAccount(user, charge.account());
            if (held + adding > charge.associationMaxSubmitJobs()) {
                errors.add(new FieldError("account", "MaxSubmitJobs: the association of user '" + user
                        + "' in account '" + charge.account() + "' allows " + charge.associationMaxSubmitJobs()
                        + " pending or running jobs; they have " + held + " and this submission adds " + adding));
            }
        }
    }

    /**
     * The script's directives. Bad ones become errors naming their line ({@code script:3}), added to
     * {@code errors}; the good ones still count, so the same answer reports every other mistake too
     * instead of one round per kind of error.
     */
    private SbatchOptions parseScript(String script, List<FieldError> errors) {
        try {
            return SbatchDirectives.parse(script, properties.maxArraySize());
        } catch (SbatchException e) {
            e.errors().forEach(err -> errors.add(new FieldError("script:" + err.line(), err.option() + ": " + err.message())));
            return e.usable() != null ? e.usable() : SbatchDirectives.parse("", properties.maxArraySize());
        }
    }

    /** Fields whose mistakes leave the resource request as asked (the job's shape, partitions and time). */
    private static final java.util.Set<String> BESIDE_THE_REQUEST = java.util.Set.of("account", "qos", "name",
            "dependency", "array", "workdir", "stdout", "stderr", "comment", "reservation", "beginTime", "signal",
            "umask", "environment", "simulatedRunSeconds", "simulatedExitCode", "nice", "hold", "requeue");

    /** Whether {@code field} names part of the container, which leaves the resource request as asked. */
    private static boolean container(String field) {
        return field.equals("container") || field.startsWith("container.");
    }
    /** Directives, as scripts spell them, whose mistakes leave the resource request as asked. */
    private static final java.util.Set<String> DIRECTIVES_BESIDE_THE_REQUEST = java.util.Set.of("-A", "--account",
            "-q", "--qos", "-J", "--job-name", "-d", "--dependency", "-a", "--array", "-o", "--output", "-e", "--error",
            "-D", "--chdir", "--comment", "-b", "--begin", "--nice", "--export", "--reservation", "--requeue",
            "--no-requeue", "--signal", "--mail-type", "--mail-user", "--open-mode");

    /** Whether the request can still be checked for "could it ever run" despite {@code error}. */
    private static boolean leavesRequestWhole(FieldError error) {
        if (error.field().startsWith("script:")) {
            int colon = error.message().indexOf(':');
            return colon > 0 && (DIRECTIVES_BESIDE_THE_REQUEST.contains(error.message().substring(0, colon))
                    || error.message().startsWith("--container"));
        }
        return BESIDE_THE_REQUEST.contains(error.field()) || container(error.field());
    }

    /** The GPU types of the partitions' nodes. */
    private static java.util.SortedSet<String> gpuTypes(List<String> partitions, ClusterLayout layout) {
        java.util.SortedSet<String> types = new java.util.TreeSet<>();
        for (String p : partitions) {
            ClusterLayout.PartitionSpec partition = layout.partitions().get(p);
            if (partition == null) {
                continue;
            }
            for (String n : partition.nodes()) {
                ClusterLayout.NodeSpec node = layout.nodes().get(n);
                if (node != null && node.gpus() > 0 && node.gpuType() != null) {
                    types.add(node.gpuType());
                }
            }
        }
        return types;
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

    private List<String> partitions(String given, ClusterLayout layout, List<FieldError> errors) {
        if (given == null || given.isBlank()) {
            ClusterLayout.PartitionSpec fallback = layout.defaultPartition();
            if (fallback == null) {
                errors.add(new FieldError("partition", "is required: this cluster has no default partition"));
                return List.of();
            }
            return List.of(fallback.name());
        }
        List<String> names = Arrays.stream(given.split(",")).map(String::strip).distinct().toList();
        for (String name : names) {
            if (!layout.partitions().containsKey(name)) {
                errors.add(new FieldError("partition", "unknown partition '" + name + "'; known: "
                        + String.join(", ", layout.partitions().keySet().stream().sorted().toList())));
            }
        }
        return names;
    }

    private long timeLimit(Long given, List<String> partitions, ClusterLayout layout, List<FieldError> errors) {
        if (given != null && given < -1) {
            errors.add(new FieldError("timeLimitSeconds", "must be positive, was " + given));
            return 1;
        }
        if (given != null && given > InputBounds.MAX_DURATION.toSeconds()) {
            errors.add(new FieldError("timeLimitSeconds", "must be at most " + InputBounds.MAX_DURATION.toSeconds()
                    + " (100 years; -1 or UNLIMITED for no limit), was " + given));
            return 1;
        }
        long unlimited = properties.unlimitedTimeSeconds();
        long limit;
        ClusterLayout.PartitionSpec first = partitions.isEmpty() ? null : layout.partitions().get(partitions.get(0));
        if (given == null || given == 0) {
            Long fallback = first == null ? null
                    : first.defaultTimeSeconds() != null ? first.defaultTimeSeconds() : first.maxTimeSeconds();
            limit = fallback == null ? unlimited : fallback;
        } else {
            limit = given == -1 ? unlimited : given;
        }
        boolean fitsOne = partitions.isEmpty() || partitions.stream().map(layout.partitions()::get)
                .anyMatch(p -> p == null || p.maxTimeSeconds() == null || limit <= p.maxTimeSeconds());
        if (!fitsOne && given != null && given != 0) {
            errors.add(new FieldError("timeLimitSeconds", "time limit " + io.gantry.engine.SlurmTime.format(limit)
                    + " is over the maximum of partition " + String.join(",", partitions) + " ("
                    + io.gantry.engine.SlurmTime.format(first.maxTimeSeconds()) + ")"));
        }
        return Math.max(1, limit);
    }

    private long memoryPerNode(JobSubmission json, SbatchOptions d, int tasks, int cpusPerTask, int minNodes,
            Integer ntasksPerNode, int gpus, int gpusPerNode, List<FieldError> errors) {
        Long perNode = first(json.memoryMb(), d.memoryMb(), null);
        Long perCpu = first(json.memPerCpuMb(), d.memPerCpuMb(), null);
        Long perGpu = first(json.memPerGpuMb(), d.memPerGpuMb(), null);
        int given = (perNode != null ? 1 : 0) + (perCpu != null ? 1 : 0) + (perGpu != null ? 1 : 0);
        if (given > 1) {
            errors.add(new FieldError("memoryMb", "give memory one way: per node (--mem), per CPU (--mem-per-cpu) "
                    + "or per GPU (--mem-per-gpu)"));
            return 0;
        }
        int nodes = Math.max(minNodes, 1);
        long tasksPerNode = ntasksPerNode != null ? ntasksPerNode : ceilDiv(tasks, nodes);
        long memory;
        if (perCpu != null) {
            memory = product(perCpu, tasksPerNode * cpusPerTask);
        } else if (perGpu != null) {
            long gpusPerNodeNow = gpusPerNode > 0 ? gpusPerNode : ceilDiv(gpus, nodes);
            memory = product(perGpu, Math.max(gpusPerNodeNow, 1));
        } else {
            memory = perNode == null ? 0 : perNode;
        }
        String field = perCpu != null ? "memPerCpuMb" : perGpu != null ? "memPerGpuMb" : "memoryMb";
        if (memory == OVERFLOW) {
            errors.add(new FieldError(field, "asks for more memory than can be counted (over " + Long.MAX_VALUE
                    + " MB per node)"));
            return 0;
        }
        if (memory < 0) {
            errors.add(new FieldError(field, "must be 0 or more, was " + memory));
            return 0;
        }
        if (product(memory, nodes) == OVERFLOW) {
            errors.add(new FieldError(field, memory + " MB on each of " + nodes + " nodes is more memory than can be "
                    + "counted"));
            return 0;
        }
        return memory;
    }

    /**
     * A {@code -w}/{@code -x} list, expanded (at most {@link #MAX_HOSTS} names, refused before expanding
     * more) and checked: every name a configured or registered node, the compressed form within the store's
     * column. Unknown names are reported as the first few and a count, so a huge list costs no huge message.
     * Null when none was given or it is invalid (the problem added to {@code errors}).
     */
    private static Hostlist hostlist(String field, String expression, ClusterLayout layout, List<FieldError> errors) {
        if (expression == null || expression.isBlank()) {
            return null;
        }
        Hostlist hosts;
        try {
            hosts = Hostlist.parse(expression, MAX_HOSTS);
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

    /** Where a value came from: the JSON field, else the script line of its directive {@code --option}. */
    private static String where(String field, String option, Object json, SbatchOptions directives) {
        Integer line = directives.lineOf(option);
        return json == null && line != null ? "script:" + line : field;
    }

    /** Where a value came from, for errors: the JSON field, else the script line of its directive. */
    private static String fieldOf(String field, Object json, SbatchOptions directives) {
        Integer line = directives.lineOf(field);
        return json == null && line != null ? "script:" + line : field;
    }

    private Feasibility feasibility(Request request, List<String> partitions, long timeLimit, CurrentUser caller,
            String qos, String account) {
        long now = clock.instant().getEpochSecond();
        PendingJob job = new PendingJob(JobId.of(0), caller.username(), account, qos, partitions, request, timeLimit,
                now, now, 0, null);
        Shapes shapes = shapes();
        Snapshot snapshot = Snapshot.builder().now(now).nodes(shapes.nodes()).partitions(shapes.partitions())
                .switches(shapes.switches()).build();
        // The engine keeps the cluster it built from these very lists (it compares them by identity), and
        // memoises lookups in it without locks: one submission at a time asks it, for microseconds.
        synchronized (engine) {
            return engine.feasibility(snapshot, job);
        }
    }

    /**
     * The configured cluster as "could this ever run" sees it. Feasibility ignores node and partition
     * states (every node is taken as up), so it is built once per cluster layout: building it per
     * submission (sorting every node by name, reading the partitions' states from the store) was
     * nearly all of a submission's CPU on a 1,000-node cluster. A node that joins through its agent
     * makes a new layout, and the next submission sees it.
     */
    private Shapes shapes() {
        Shapes built = shapes;
        io.gantry.cluster.ClusterLayout layout = cluster.layout();
        if (built == null || built.layout() != layout) {
            // Through a snapshot, so the lists kept are the snapshot's own immutable copies, which later
            // snapshots reuse as they are (List.copyOf of such a list is that list).
            io.gantry.cluster.ClusterService.EngineLayout shaped = cluster.engineShapes(layout);
            Snapshot first = Snapshot.builder().nodes(shaped.nodes()).partitions(shaped.partitions())
                    .switches(cluster.engineSwitches()).build();
            built = new Shapes(layout, first.nodes(), first.partitions(), first.switches());
            shapes = built;
        }
        return built;
    }

    private record Shapes(io.gantry.cluster.ClusterLayout layout, List<Node> nodes, List<Partition> partitions,
            List<Switch> switches) {
    }

    /**
     * The shards asked for (null for none), checked with a MIG request against the rest: shards and MIG
     * instances are one node's (Slurm's --gres is per node; Gantry gives them to one-node jobs only), and
     * exclude whole GPUs and each other.
     */
    private static Integer sharedGpus(JobSubmission json, SbatchOptions directives, int gpus, int gpusPerNode,
            String gpuType, int minNodes, Integer maxNodes, boolean exclusive, List<FieldError> errors) {
        Integer shards = first(json.shards(), directives.shards(), null);
        String shardField = fieldOf("shards", json.shards(), directives);
        boolean mig = Request.isMigProfile(gpuType);
        if (shards != null && (shards < 1 || shards > io.gantry.engine.Node.MAX_SHARDS_PER_GPU)) {
            errors.add(new FieldError(shardField, "must be 1 to " + io.gantry.engine.Node.MAX_SHARDS_PER_GPU
                    + " (as --gres=shard:N), was " + shards));
            return null;
        }
        if (shards != null && (gpus > 0 || gpusPerNode > 0)) {
            errors.add(new FieldError(shardField, "ask for GPU shards or " + (mig ? "MIG instances" : "whole GPUs")
                    + ", not both"));
            return null;
        }
        if (shards == null && !mig) {
            return null;
        }
        String field = shards != null ? shardField : "gpuType";
        String what = shards != null ? "GPU shards" : "MIG instances (" + gpuType + ")";
        if (mig && gpus == 0 && gpusPerNode == 0) {
            errors.add(new FieldError("gpuType", "names MIG profile " + gpuType + " but asks for no GPU; write "
                    + "--gres=gpu:" + gpuType + ":N"));
        } else if (minNodes > 1 || (maxNodes != null && maxNodes > 1)) {
            errors.add(new FieldError(field, what + " are for a job on one node; this one asks for "
                    + Math.max(minNodes, maxNodes == null ? 0 : maxNodes) + " nodes"));
        } else if (exclusive) {
            errors.add(new FieldError(field, what + " share a node's GPUs; they do not go with --exclusive"));
        }
        return shards;
    }

    /**
     * The field a never-feasible request is about. For "no node in gpu has 16 GPUs; ..." the first
     * resource no node has enough of: GPUs (gpus, or gpusPerNode when asked per node), CPUs
     * (cpusPerTask) or memory (memoryMb); a request too big only as a whole stays "request".
     */
    private static String fieldOf(Feasibility feasibility, boolean gpusPerNode) {
        String message = feasibility.message();
        return switch (feasibility.reason()) {
            case PARTITION_TIME_LIMIT -> "timeLimitSeconds";
            case PARTITION_NODE_LIMIT -> "nodes";
            case BAD_CONSTRAINTS -> "constraints";
            case PARTITION_CONFIG -> message.startsWith("invalid partition") ? "partition"
                    : LACKING_GPUS.matcher(message).lookingAt() ? (gpusPerNode ? "gpusPerNode" : "gpus")
                    : LACKING_CPUS.matcher(message).lookingAt() ? "cpusPerTask"
                    : LACKING_MEMORY.matcher(message).lookingAt() ? "memoryMb"
                    : "request";
            default -> "request";
        };
    }

    private static final java.util.regex.Pattern LACKING_GPUS = java.util.regex.Pattern.compile("no node in .* has \\d+ GPUs?;");
    private static final java.util.regex.Pattern LACKING_CPUS = java.util.regex.Pattern.compile("no node in .* has \\d+ CPUs?;");
    private static final java.util.regex.Pattern LACKING_MEMORY = java.util.regex.Pattern.compile("no node in .* has \\d+ MB of memory;");

    private static String summary(List<FieldError> errors) {
        return errors.stream().map(e -> e.field() + ": " + e.message()).reduce((a, b) -> a + "; " + b).orElse("");
    }

    private static int positiveOrZero(String field, int value, List<FieldError> errors) {
        if (value < 0) {
            errors.add(new FieldError(field, "must be 0 or more, was " + value));
            return 0;
        }
        return value;
    }

    /** Slurm's range for nice values; only an operator may lower a job's below 0 (raise its priority). */
    private static void checkNice(int nice, CurrentUser caller, List<FieldError> errors) {
        if (nice < -2147483645 || nice > 2147483645) {
            errors.add(new FieldError("nice", "must be between -2147483645 and 2147483645"));
        } else if (nice < 0 && !caller.isOperator()) {
            errors.add(new FieldError("nice", "only an operator may set a negative nice value"));
        }
    }

    /** Marks a product of user numbers too large for a long. */
    private static final long OVERFLOW = Long.MIN_VALUE;

    /** {@code a * b}, or {@link #OVERFLOW}. */
    private static long product(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            return OVERFLOW;
        }
    }

    /** {@code a * b} as an int; when it overflows, an error naming {@code field} and 1 in its place. */
    private static int intProduct(String field, int a, int b, List<FieldError> errors) {
        long product = (long) a * b;
        if (product > Integer.MAX_VALUE || product < Integer.MIN_VALUE) {
            errors.add(new FieldError(field, a + " times " + b + " is " + product + "; at most " + Integer.MAX_VALUE));
            return 1;
        }
        return (int) product;
    }

    /** The bytes {@code text} takes as UTF-8, counted without encoding it. */
    static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /**
     * The begin time from JSON, else from {@code --begin} resolved against now; an error when it falls
     * outside the years 1970..9999 ({@link InputBounds}), which no store column could hold.
     */
    private Instant beginTime(JobSubmission json, SbatchOptions directives, Instant now, List<FieldError> errors) {
        Instant begin;
        try {
            begin = json.beginTime() != null ? json.beginTime()
                    : directives.beginTime() == null ? null : directives.beginTime().resolve(now, clock.getZone());
        } catch (java.time.DateTimeException | ArithmeticException e) {
            errors.add(new FieldError(where("beginTime", "begin", json.beginTime(), directives),
                    "lies beyond any time that can be stored; at most " + InputBounds.LATEST));
            return null;
        }
        if (begin != null && !InputBounds.inRange(begin)) {
            errors.add(new FieldError(where("beginTime", "begin", json.beginTime(), directives),
                    InputBounds.rangeMessage(begin)));
            return null;
        }
        return begin;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    @SafeVarargs
    private static <T> T first(T... values) {
        for (T value : values) {
            if (value != null) {
                return value;
            }
        }
        return null;
    }
}
