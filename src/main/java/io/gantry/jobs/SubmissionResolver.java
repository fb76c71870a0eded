package io.gantry.jobs;

import static io.gantry.jobs.SubmissionDraft.first;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;

import org.springframework.stereotype.Component;

import io.gantry.api.GantryException;
import io.gantry.api.GantryException.FieldError;
import io.gantry.api.InputBounds;
import io.gantry.api.ProblemType;
import io.gantry.api.RecordSizes;
import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.ClusterService;
import io.gantry.engine.Constraint;
import io.gantry.engine.Tres;
import io.gantry.security.CurrentUser;

/**
 * Turns a submission into a {@link JobSpec}: {@code #SBATCH} directives fill what the JSON leaves
 * out, partition defaults fill the rest, and everything a user can get wrong is reported at once,
 * naming the JSON field or the script line. A request that could never run is refused here rather
 * than left pending forever.
 * <p>
 * {@link #resolve} reads as the steps a submission goes through, each settling part of a
 * {@link SubmissionDraft} and adding a field error for every mistake: the shape's steps are in
 * {@link SubmissionShape}, the options beside it in {@link SubmissionOptions}, those that need the
 * accounting, reservations or the clock here, and "could it ever run" in {@link SubmissionFeasibility}.
 * All errors are answered together as one 400 problem.
 */
@Component
class SubmissionResolver {

    private static final int MAX_NAME = SubmissionLimits.NAME;
    /** The most names a nodelist or exclude list may expand to; more is refused before expanding. */
    static final int MAX_HOSTS = 65_536;

    private final ClusterService cluster;
    private final Charges charges;
    private final AccountedJobs accounted;
    private final JobsProperties properties;
    private final Clock clock;
    /** Who may name which advance reservation; the reservations feature answers. */
    private final ReservationAccess reservations;
    private final SubmissionFeasibility feasibility;
    private volatile LargestNodes largestNodes;

    SubmissionResolver(ClusterService cluster, Charges charges, AccountedJobs accounted,
            JobsProperties properties, Clock clock, ReservationAccess reservations) {
        this.cluster = cluster;
        this.charges = charges;
        this.accounted = accounted;
        this.properties = properties;
        this.clock = clock;
        this.reservations = reservations;
        this.feasibility = new SubmissionFeasibility(cluster);
    }

    record Resolved(JobSpec spec, List<String> warnings) {
    }

    record Change(Long timeLimitSeconds, String partitions, String summary) {
    }

    Resolved resolve(JobSubmission json, CurrentUser caller, LongPredicate jobExists) {
        checkBody(json);
        List<FieldError> scriptErrors = new ArrayList<>();
        SbatchOptions directives = parseScript(json.script() == null ? "" : json.script(), scriptErrors);
        SubmissionDraft d = new SubmissionDraft(json, directives, scriptErrors, caller, cluster.layout(),
                clock.instant());
        name(d);
        d.partitions = partitions(first(json.partition(), directives.partition(), null), d.layout, d.errors);
        charge(d);
        SubmissionShape.nodesAndTasks(d);
        SubmissionShape.gpus(d);
        SubmissionShape.cpus(d);
        SubmissionShape.memory(d);
        SubmissionShape.constraints(d);
        SubmissionShape.exclusive(d);
        timeLimits(d);
        SubmissionShape.sharedGpus(d);
        SubmissionShape.segment(d);
        array(d);
        dependency(d, jobExists);
        holdAndNice(d);
        SubmissionOptions.environment(d);
        reservation(d);
        beginTime(d);
        deadline(d);
        SubmissionOptions.hostlists(d);
        SubmissionOptions.paths(d);
        SubmissionOptions.texts(d);
        SubmissionOptions.umask(d);
        SubmissionOptions.signal(d);
        SubmissionOptions.switches(d);
        SubmissionOptions.container(d);
        SubmissionOptions.simulatedRun(d);
        submitLimits(d);
        FieldError impossible = feasibility.neverRuns(d, clock.instant().getEpochSecond());
        refuseIfWrong(d, impossible);
        Long defaultMemory = d.memoryMb > 0 ? null
                : defaultMemory(d.partitions, d.layout, d.minNodes, d.tasks, d.cpusPerTask, d.ntasksPerNode,
                        d.exclusive);
        return new Resolved(d.spec(defaultMemory), d.warnings);
    }

    /** A body at all, and a script within {@code gantry.jobs.max-script-bytes}: checked before anything is parsed. */
    private void checkBody(JobSubmission json) {
        if (json == null) {
            throw GantryException.badRequest("body", "is required: a JSON object describing the job");
        }
        // The record's @Size limits, as @Valid checked them, at a fraction of the cost (see RecordSizes).
        RecordSizes.check(json);
        long maxScript = properties.maxScriptBytes().toBytes();
        long scriptBytes = json.script() == null ? 0 : utf8Length(json.script());
        if (scriptBytes > maxScript) {
            throw GantryException.badRequest("script", "is " + scriptBytes + " bytes long (UTF-8); at most " + maxScript
                    + " (gantry.jobs.max-script-bytes)");
        }
    }

    /**
     * Every mistake at once, each at the JSON field or script line that gave the value, as one 400
     * problem; else, when the job could never run, that alone.
     */
    private static void refuseIfWrong(SubmissionDraft d, FieldError impossible) {
        if (!d.errors.isEmpty()) {
            List<FieldError> all = new ArrayList<>(d.errors);
            if (impossible != null) {
                all.add(impossible);
            }
            List<FieldError> located = SubmissionOptions.located(all, d.json, d.directives);
            throw new GantryException(ProblemType.VALIDATION, SubmissionOptions.summary(located), located);
        }
        if (impossible != null) {
            List<FieldError> located = SubmissionOptions.located(List.of(impossible), d.json, d.directives);
            throw new GantryException(ProblemType.VALIDATION, "This job could never run: " + impossible.message(),
                    located);
        }
    }

    /** {@code -J}: one line, within the store's column. */
    private static void name(SubmissionDraft d) {
        d.name = first(d.json.name(), d.directives.name(), "job");
        if (d.name.isBlank() || d.name.length() > MAX_NAME) {
            d.error("name", "must be 1 to " + MAX_NAME + " characters on one line");
        }
    }

    /** {@code -A} and {@code -q}: the account and QOS the job is charged to, defaults filled in. */
    private void charge(SubmissionDraft d) {
        d.account = first(d.json.account(), d.directives.account(), null);
        d.qos = first(d.json.qos(), d.directives.qos(), null);
        d.charge = charge(d.caller.username(), d.account, d.qos, d.errors);
        if (d.charge != null) {
            d.account = d.charge.account();
            d.qos = d.charge.qos();
        }
    }

    /** {@code -t} (capped by the QOS's MaxWall when not given, as Slurm does) and {@code --time-min}. */
    private void timeLimits(SubmissionDraft d) {
        Long timeGiven = first(d.json.timeLimitSeconds(), d.directives.timeLimitSeconds(), null);
        d.timeLimit = timeLimit(timeGiven, d.partitions, d.layout, d.errors);
        long maxWall = d.charge == null ? 0 : maxWall(d.charge.limits(), d.partitions);
        if ((timeGiven == null || timeGiven == 0) && maxWall > 0) {
            // Like Slurm: a job that gives no time limit gets at most its QOS's MaxWall (its partition QOS's first).
            d.timeLimit = Math.min(d.timeLimit, maxWall);
        }
        d.timeMin = first(d.json.timeMinSeconds(), d.directives.timeMinSeconds(), null);
        if (d.timeMin != null && (d.timeMin <= 0 || d.timeMin > d.timeLimit)) {
            d.error(d.fieldOf("timeMinSeconds", d.json.timeMinSeconds()),
                    "must be positive and at most the time limit (" + io.gantry.engine.SlurmTime.format(d.timeLimit)
                            + "), was " + d.timeMin + " s");
            d.timeMin = null;
        }
    }

    /** {@code -a}: the array's task ids and its running limit, within {@code gantry.jobs.max-array-size}. */
    private void array(SubmissionDraft d) {
        d.array = first(d.json.array(), d.directives.array(), null);
        if (d.array != null) {
            try {
                ArraySpec spec = ArraySpec.parse(d.array, properties.maxArraySize());
                d.taskIds = spec.taskIds();
                d.arrayMaxRunning = spec.maxRunning();
            } catch (JobSpecException e) {
                d.error("array", e.getMessage());
            }
        }
    }

    /** {@code -d}: parsed, and every job it names one that exists; {@code --kill-on-invalid-dep} as given. */
    private static void dependency(SubmissionDraft d, LongPredicate jobExists) {
        d.dependency = first(d.json.dependency(), d.directives.dependency(), null);
        d.options.killOnInvalidDep(first(d.json.killOnInvalidDep(), d.directives.asked("kill-on-invalid-dep", Boolean.class)));
        // One too long is refused with the other lengths below, unparsed: its job ids are not looked up one by one.
        if (d.dependency != null && d.dependency.length() <= SubmissionLimits.DEPENDENCY) {
            try {
                for (DependencySpec.Condition condition : DependencySpec.parse(d.dependency).conditions()) {
                    if (condition.jobId() > 0 && !jobExists.test(condition.jobId())) {
                        d.error("dependency", "job " + condition.jobId() + " does not exist");
                    }
                }
            } catch (JobSpecException e) {
                d.error("dependency", e.getMessage());
            }
        }
    }

    /** {@code -H} and {@code --nice}. */
    private static void holdAndNice(SubmissionDraft d) {
        d.held = first(d.json.hold(), d.directives.hold(), false);
        d.nice = first(d.json.nice(), d.directives.nice(), 0);
        checkNice(d.nice, d.caller, d.errors);
    }

    /** {@code --reservation}: one the caller may use, as the reservations feature says. */
    private void reservation(SubmissionDraft d) {
        d.reservation = first(d.json.reservation(), d.directives.reservation(), null);
        if (d.reservation != null) {
            reservations.refusal(d.reservation, d.caller.username(), d.account)
                    .ifPresent(why -> d.error("reservation", why));
        }
    }

    /**
     * The begin time from JSON, else from {@code --begin} resolved against now; an error when it falls
     * outside the years 1970..9999 ({@link InputBounds}), which no store column could hold.
     */
    private void beginTime(SubmissionDraft d) {
        JobSubmission json = d.json;
        Instant begin;
        try {
            begin = json.beginTime() != null ? json.beginTime()
                    : d.directives.beginTime() == null ? null : d.directives.beginTime().resolve(d.now, clock.getZone());
        } catch (java.time.DateTimeException | ArithmeticException e) {
            d.error(d.where("beginTime", "begin", json.beginTime()),
                    "lies beyond any time that can be stored; at most " + InputBounds.LATEST);
            return;
        }
        if (begin != null && !InputBounds.inRange(begin)) {
            d.error(d.where("beginTime", "begin", json.beginTime()), InputBounds.rangeMessage(begin));
            return;
        }
        d.beginTime = begin;
    }

    /**
     * The deadline from JSON, else from {@code --deadline} resolved as {@code --begin} is: in the future
     * and not before the begin time, as slurmctld and sbatch refuse ("Incompatible begin and deadline time
     * specification"). Whether the job can still end by it is the scheduler's to judge, as time passes.
     */
    private void deadline(SubmissionDraft d) {
        JobSubmission json = d.json;
        String field = d.where("deadline", "deadline", json.deadline());
        // at a directive's line, the message names the option, as every relocated error does
        String option = field.equals("deadline") ? "" : "--deadline: ";
        Instant deadline;
        try {
            deadline = json.deadline() != null ? json.deadline()
                    : d.directives.asked("deadline", BeginTime.class) == null ? null
                    : d.directives.asked("deadline", BeginTime.class).resolve(d.now, clock.getZone());
        } catch (java.time.DateTimeException | ArithmeticException e) {
            d.error(field, option + "lies beyond any time that can be stored; at most " + InputBounds.LATEST);
            return;
        }
        if (deadline == null) {
            return;
        }
        if (!InputBounds.inRange(deadline)) {
            d.error(field, option + InputBounds.rangeMessage(deadline));
        } else if (!deadline.isAfter(d.now)) {
            d.error(field, option + "is " + deadline + ", which has already passed: a deadline must be in the future");
        } else if (d.beginTime != null && deadline.isBefore(d.beginTime)) {
            d.error(field, option + "is " + deadline + ", before the begin time " + d.beginTime
                    + " (incompatible begin and deadline time specification)");
        } else {
            d.options.deadline(deadline);
        }
    }

    /** The QOS and association limits checked at submit time, once everything else is right. */
    private void submitLimits(SubmissionDraft d) {
        if (d.charge != null && d.errors.isEmpty()) {
            Tres tres = new Tres((long) d.tasks * d.cpusPerTask,
                    SubmissionShape.product(d.memoryMb, Math.max(d.minNodes, 1)), d.gpuTotal(),
                    Math.max(d.minNodes, 1));
            submitLimits(d.charge, d.caller.username(), d.partitions, d.timeLimit, tres,
                    d.taskIds.isEmpty() ? 1 : d.taskIds.size(), d.errors);
        }
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
                submitLimits(charge, job.user(), partitions, time != null ? time : job.timeLimitSeconds(), tres, adding,
                        errors);
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
            throw new GantryException(ProblemType.VALIDATION, SubmissionOptions.summary(errors), errors);
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
                : Math.max(1, SubmissionShape.ceilDiv(tasks, Math.max(1, largest.cpus() / cpusPerTask)));
        long cpusPerNode = (ntasksPerNode != null ? ntasksPerNode : SubmissionShape.ceilDiv(tasks, nodeCount)) * (long) cpusPerTask;
        return memoryDefault.perCpuMb() * cpusPerNode;
    }

    /** The most memory and CPUs of any one node of a partition. */
    private record LargestNode(long memoryMb, int cpus) {
    }

    /** Per partition, computed once per layout: a partition may hold thousands of nodes, a submission needs only these. */
    private record LargestNodes(ClusterLayout layout, Map<String, LargestNode> byPartition) {
    }

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

    /** The account and QOS the job is charged to, or null with the reasons added to {@code errors}. */
    private Charge charge(String user, String account, String qos, List<FieldError> errors) {
        try {
            return charges.charge(user, account, qos);
        } catch (GantryException e) {
            errors.addAll(e.errors());
            return null;
        }
    }

    /** How Slurm's sbatch words a refusal by a submit limit, before the limit that refused. */
    static final String POLICY = "Job violates accounting/QOS policy (job submit limit, user's size and/or time "
            + "limits): ";

    /** The QOS and association limits checked at submit time, each named as Slurm names it. */
    private void submitLimits(Charge charge, String user, List<String> partitions, long timeLimit, Tres tres,
            int adding, List<FieldError> errors) {
        io.gantry.engine.Qos q = charge.limits();
        String name = "QOS '" + q.name() + "'";
        // The per-job limits of the QOSes the job is held to in each of its partitions: refused when no
        // partition allows it, with the first partition's reasons.
        List<FieldError> perJob = null;
        for (String partition : partitions.isEmpty() ? java.util.Collections.<String>singletonList(null) : partitions) {
            List<FieldError> found = perJobLimits(q, partition, timeLimit, tres);
            if (perJob == null || found.isEmpty()) {
                perJob = found;
            }
            if (found.isEmpty()) {
                break;
            }
        }
        errors.addAll(perJob);
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
                errors.add(new FieldError("account", POLICY + "MaxSubmitJobs: the association of user '" + user
                        + "' in account '" + charge.account() + "' allows " + charge.associationMaxSubmitJobs()
                        + " pending or running jobs; they have " + held + " and this submission adds " + adding));
            }
        }
        if (adding > 0) {
            // GrpSubmitJobs at every level, from the user's association up to the root.
            for (Charge.GroupSubmitLimit g : charge.groupSubmitLimits()) {
                long held = g.user() != null ? accounted.ofUserInAccount(g.user(), g.account())
                        : accounted.inAccounts(g.accounts());
                if (held + adding > g.limit()) {
                    String who = g.user() != null ? "the association of user '" + g.user() + "' in account '"
                            + g.account() + "'" : "account '" + g.account() + "' (with the accounts below it)";
                    errors.add(new FieldError("account", POLICY + "GrpSubmitJobs: " + who + " allows " + g.limit()
                            + " pending or running jobs together; it has " + held + " and this submission adds "
                            + adding));
                }
            }
        }
    }

    /** The QOSes a job of QOS {@code q} is held to in {@code partition}: its partition's QOS too when it has one. */
    private List<io.gantry.engine.Qos> heldTo(io.gantry.engine.Qos q, String partition) {
        String partitionQos = partition == null ? null : cluster.partitionQos(partition);
        return io.gantry.engine.Qos.heldTo(q, partitionQos == null ? null : charges.engineQos(partitionQos));
    }

    /** The MaxWall a job of QOS {@code q} in the first of {@code partitions} is held to; 0 for none. */
    private long maxWall(io.gantry.engine.Qos q, List<String> partitions) {
        for (io.gantry.engine.Qos held : heldTo(q, partitions == null || partitions.isEmpty() ? null : partitions.get(0))) {
            if (held.maxWallSeconds() > 0) {
                return held.maxWallSeconds();
            }
        }
        return 0;
    }

    /**
     * MaxWall, MaxTRESPerJob and MinTRESPerJob of the QOSes a job of QOS {@code q} is held to in {@code partition}
     * (null: none named), each named as Slurm names it: at {@code qos} for the job's own QOS, at {@code partition}
     * for its partition's.
     */
    private List<FieldError> perJobLimits(io.gantry.engine.Qos q, String partition, long timeLimit, Tres tres) {
        List<FieldError> found = new ArrayList<>();
        for (io.gantry.engine.Qos held : heldTo(q, partition)) {
            boolean own = held.name().equals(q.name());
            String name = own ? "QOS '" + q.name() + "'" : "QOS '" + held.name() + "' of partition '" + partition + "'";
            String field = own ? "qos" : "partition";
            if (held.maxWallSeconds() > 0 && timeLimit > held.maxWallSeconds()) {
                found.add(new FieldError("timeLimitSeconds", "MaxWallDurationPerJob: " + name + " allows at most "
                        + io.gantry.engine.SlurmTime.format(held.maxWallSeconds()) + " per job; the job asks for "
                        + io.gantry.engine.SlurmTime.format(timeLimit)));
            }
            Tres max = held.maxTresPerJob();
            if (!tres.fitsWithin(max)) {
                found.add(new FieldError(field, "MaxTRESPerJob: " + name + " allows at most " + max
                        + " per job; the job asks for " + tres));
            }
            Tres min = held.minTresPerJob();
            if (tres.cpu() < min.cpu() || tres.nodes() < min.nodes() || tres.gpus() < min.gpus()) {
                // Slurm would keep it pending (QOSMinGRES, QOSMinCpuNotSatisfied) until changed: said at once here.
                found.add(new FieldError(field, "MinTRESPerJob: " + name + " requires at least " + min
                        + " per job; the job asks for " + tres));
            }
        }
        return found;
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

    private List<String> partitions(String given, ClusterLayout layout, List<FieldError> errors) {
        if (given == null || given.isBlank()) {
            ClusterLayout.PartitionSpec fallback = layout.defaultPartition();
            if (fallback == null) {
                errors.add(new FieldError("partition", "is required: this cluster has no default partition"));
                return List.of();
            }
            return accepting(List.of(fallback.name()), errors);
        }
        List<String> names = Arrays.stream(given.split(",")).map(String::strip).distinct().toList();
        boolean unknown = false;
        for (String name : names) {
            if (!layout.partitions().containsKey(name)) {
                unknown = true;
                errors.add(new FieldError("partition", "unknown partition '" + name + "'; known: "
                        + String.join(", ", layout.partitions().keySet().stream().sorted().toList())));
            }
        }
        return unknown ? names : accepting(names, errors);
    }

    /** The partitions, with an error when none of them takes new jobs (DRAIN or INACTIVE, as in Slurm). */
    private List<String> accepting(List<String> names, List<FieldError> errors) {
        if (names.stream().allMatch(cluster::refusesJobs)) {
            errors.add(new FieldError("partition", (names.size() == 1 ? "partition '" + names.get(0) + "' takes"
                    : "partitions " + String.join(", ", names) + " take") + " no new jobs (State=DRAIN or INACTIVE)"));
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

    /** Slurm's range for nice values; only an operator may lower a job's below 0 (raise its priority). */
    private static void checkNice(int nice, CurrentUser caller, List<FieldError> errors) {
        if (nice < -2147483645 || nice > 2147483645) {
            errors.add(new FieldError("nice", "must be between -2147483645 and 2147483645"));
        } else if (nice < 0 && !caller.isOperator()) {
            errors.add(new FieldError("nice", "only an operator may set a negative nice value"));
        }
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
}
