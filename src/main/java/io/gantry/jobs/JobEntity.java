package io.gantry.jobs;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import jakarta.persistence.Version;

import io.gantry.engine.PendingReason;

@Entity
@Table(name = "jobs")
class JobEntity {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;
    private long jobId;
    private int arrayTaskId;
    private String arraySpec;
    private Integer arrayMaxRunning;
    private String name;
    @Column(name = "user_name")
    private String user;
    private String account;
    private String partitions;
    private String partition;
    private String qos;
    @Enumerated(EnumType.STRING)
    private JobState state;
    private String reason;
    @Enumerated(EnumType.STRING)
    private Hold hold;
    private long priority;
    private Instant submitTime;
    private Instant eligibleTime;
    private Instant beginTime;
    private Instant startTime;
    private Instant endTime;
    private Instant expectedStartTime;
    private long timeLimitSeconds;
    private int minNodes;
    private Integer maxNodes;
    private int tasks;
    private int cpusPerTask;
    private Integer ntasksPerNode;
    private long memoryMb;
    private int gpus;
    private int gpusPerNode;
    private String gpuType;
    private String constraints;
    private boolean exclusive;
    private String nodelist;
    private String exclude;
    private String dependency;
    private int nice;
    private String workdir;
    /**
     * A new job's script and environment, for {@link JobInserts}, which stores them once per job id
     * in {@code job_scripts} (an array's tasks share them). Not columns of {@code jobs}: a row read
     * back has neither; {@link JobScripts} reads them where they are needed.
     */
    @Transient
    private String script;
    @Transient
    private String environment;
    @Column(name = "stdout_path")
    private String stdout;
    @Column(name = "stderr_path")
    private String stderr;
    private boolean requeue;
    private int requeueCount;
    private String reservation;
    private String comment;
    private Long simulatedRunSeconds;
    private Integer simulatedExitCode;
    private String umask;
    /** For a job that named no memory: its first partition's default per node, shown until it runs. */
    private Long defaultMemoryMb;
    @Column(name = "signal_spec")
    private String signal;
    @Column(name = "switches_spec")
    private String switches;
    private Long timeMinSeconds;
    @Column(name = "segment_size")
    private Integer segment;
    private String exclusiveMode;
    private Integer shards;
    /** The container its batch script runs in, as {@link ContainerJson} writes it; null for none. */
    private String containerSpec;
    /** The digest its batch host resolved the container's image to (the agent's IMAGE report); null before. */
    private String containerImageDigest;
    private Integer exitCode;
    private String allocatedNodes;
    private String allocation;
    private boolean cancelRequested;
    @Enumerated(EnumType.STRING)
    private JobState endState;
    /** The node that runs the batch script: the first of the allocation. */
    private String batchHost;
    /** Whether the batch host's agent has said it started the script. */
    private boolean launched;
    /** The run's peak memory as its node measured it; null when not known. */
    private Long maxRssBytes;
    /** The run's CPU time (all its processes) as its node measured it; null when not known. */
    private Long totalCpuMillis;
    /** Who suspended it with scontrol suspend (it keeps what it holds until resumed); null otherwise. */
    private String suspendedBy;
    /**
     * The options it keeps as asked, one column each; null when Hibernate reads a row whose columns are
     * all null ({@link #options()} answers {@link JobOptions#NONE} then).
     */
    @jakarta.persistence.Embedded
    private JobOptions options;
    @Version
    private long version;

    protected JobEntity() {
    }

    JobEntity(long jobId, int arrayTaskId, JobSpec spec, String user, Instant now, String environmentText) {
        this.jobId = jobId;
        this.arrayTaskId = arrayTaskId;
        this.arraySpec = spec.array();
        this.arrayMaxRunning = spec.arrayMaxRunning();
        this.name = spec.name();
        this.user = user;
        this.account = spec.account();
        this.partitions = String.join(",", spec.partitions());
        this.qos = spec.qos();
        this.state = JobState.PENDING;
        this.hold = spec.hold();
        this.submitTime = now;
        this.beginTime = spec.beginTime();
        this.options = spec.options();
        this.eligibleTime = spec.beginTime() != null && spec.beginTime().isAfter(now) ? spec.beginTime() : now;
        // What squeue shows at once: the job's reason from its submission on, before any cycle.
        this.reason = spec.hold() == Hold.ADMIN ? PendingReason.JOB_HELD_ADMIN.slurmName()
                : spec.hold() == Hold.USER ? PendingReason.JOB_HELD_USER.slurmName()
                : spec.dependency() != null ? PendingReason.DEPENDENCY.slurmName()
                : eligibleTime.isAfter(now) ? PendingReason.BEGIN_TIME.slurmName()
                : PendingReason.NONE.slurmName();
        this.timeLimitSeconds = spec.timeLimitSeconds();
        this.minNodes = spec.minNodes();
        this.maxNodes = spec.maxNodes();
        this.tasks = spec.tasks();
        this.cpusPerTask = spec.cpusPerTask();
        this.ntasksPerNode = spec.ntasksPerNode();
        this.memoryMb = spec.memoryMb();
        this.gpus = spec.gpus();
        this.gpusPerNode = spec.gpusPerNode();
        this.gpuType = spec.gpuType();
        this.constraints = spec.constraints();
        this.exclusive = spec.exclusive();
        this.nodelist = spec.nodelist();
        this.exclude = spec.exclude();
        this.dependency = spec.dependency();
        this.nice = spec.nice();
        this.workdir = spec.workdir();
        this.environment = environmentText;
        this.script = spec.script();
        this.stdout = spec.stdout();
        this.stderr = spec.stderr();
        this.requeue = spec.requeue();
        this.reservation = spec.reservation();
        this.comment = spec.comment();
        this.simulatedRunSeconds = spec.simulatedRunSeconds();
        this.simulatedExitCode = spec.simulatedExitCode();
        this.umask = spec.umask();
        this.signal = spec.signal();
        this.switches = spec.switches();
        this.timeMinSeconds = spec.timeMinSeconds();
        this.segment = spec.segment();
        this.exclusiveMode = spec.exclusiveMode();
        this.shards = spec.shards();
        this.containerSpec = ContainerJson.write(spec.container());
        this.defaultMemoryMb = spec.defaultMemoryMb();
    }

    Long id() { return id; }
    long jobId() { return jobId; }
    int arrayTaskId() { return arrayTaskId; }
    String arraySpec() { return arraySpec; }
    Integer arrayMaxRunning() { return arrayMaxRunning; }
    String name() { return name; }
    String user() { return user; }
    String account() { return account; }
    List<String> partitions() { return Arrays.asList(partitions.split(",")); }
    String partition() { return partition; }
    String qos() { return qos; }
    JobState state() { return state; }
    String reason() { return reason; }
    Hold hold() { return hold; }
    long priority() { return priority; }
    Instant submitTime() { return submitTime; }
    Instant eligibleTime() { return eligibleTime; }
    Instant beginTime() { return beginTime; }
    JobOptions options() { return options == null ? JobOptions.NONE : options; }
    Instant startTime() { return startTime; }
    Instant endTime() { return endTime; }
    Instant expectedStartTime() { return expectedStartTime; }
    long timeLimitSeconds() { return timeLimitSeconds; }
    int minNodes() { return minNodes; }
    Integer maxNodes() { return maxNodes; }
    int tasks() { return tasks; }
    int cpusPerTask() { return cpusPerTask; }
    Integer ntasksPerNode() { return ntasksPerNode; }
    long memoryMb() { return memoryMb; }
    int gpus() { return gpus; }
    int gpusPerNode() { return gpusPerNode; }
    String gpuType() { return gpuType; }
    String constraints() { return constraints; }
    boolean exclusive() { return exclusive; }
    String nodelist() { return nodelist; }
    String exclude() { return exclude; }
    String dependency() { return dependency; }
    int nice() { return nice; }
    String workdir() { return workdir; }
    /** The submitted environment text of a job not yet stored; null on a row read from the store. */
    String submittedEnvironment() { return environment; }
    /** The submitted script of a job not yet stored; null on a row read from the store. */
    String submittedScript() { return script; }
    String stdout() { return stdout; }
    String stderr() { return stderr; }
    boolean requeue() { return requeue; }
    int requeueCount() { return requeueCount; }
    String reservation() { return reservation; }
    String comment() { return comment; }
    Long simulatedRunSeconds() { return simulatedRunSeconds; }
    Integer simulatedExitCode() { return simulatedExitCode; }
    String umask() { return umask; }
    String signal() { return signal; }
    String switches() { return switches; }
    Long timeMinSeconds() { return timeMinSeconds; }
    Integer segment() { return segment; }

    String exclusiveMode() { return exclusiveMode; }
    Integer shards() { return shards; }
    String containerSpec() { return containerSpec; }
    io.gantry.noded.protocol.ContainerSpec container() { return ContainerJson.read(containerSpec); }
    String containerImageDigest() { return containerImageDigest; }

    /** The digest the batch host resolved the container's image to: the image this run really has. */
    void recordImageDigest(String digest) {
        this.containerImageDigest = digest;
    }
    Long defaultMemoryMb() { return defaultMemoryMb; }
    Integer exitCode() { return exitCode; }
    String allocatedNodes() { return allocatedNodes; }
    String allocation() { return allocation; }
    boolean cancelRequested() { return cancelRequested; }
    Long maxRssBytes() { return maxRssBytes; }
    Long totalCpuMillis() { return totalCpuMillis; }
    long version() { return version; }

    void schedulingDecision(String reason, long priority, Instant expectedStart) {
        this.reason = reason;
        this.priority = priority;
        this.expectedStartTime = expectedStart;
    }

    /**
     * Starts the job on its allocation (a job of {@code -N min-max} on the nodes it got). One started
     * under its {@code --time-min} keeps the shorter limit it runs with as its time limit, as in Slurm.
     */
    void start(String partition, Instant start, String allocatedNodes, String allocation, long priority,
            long timeLimitSeconds) {
        this.timeLimitSeconds = Math.min(this.timeLimitSeconds, timeLimitSeconds);
        this.state = JobState.RUNNING;
        this.reason = PendingReason.NONE.slurmName();
        this.partition = partition;
        this.startTime = start;
        this.expectedStartTime = null;
        this.allocatedNodes = allocatedNodes;
        this.allocation = allocation;
        this.priority = priority;
        this.batchHost = allocation == null || allocation.isEmpty() ? null
                : allocation.substring(0, allocation.indexOf(':'));
        this.launched = false;
    }

    /** A new row's job id, given when its submission is committed. */
    void assignJobId(long jobId) {
        this.jobId = jobId;
    }

    void markLaunched() {
        this.launched = true;
    }

    String batchHost() {
        return batchHost;
    }

    boolean launched() {
        return launched;
    }

    void requestCancel() {
        this.cancelRequested = true;
        if (state != JobState.SUSPENDED || suspendedBy != null) {
            // A job suspended for its preemptor holds nothing: it stays SUSPENDED until its node confirms the
            // kill; one an operator suspended holds what it had, and gives it back once stopped, as a running one.
            this.state = JobState.COMPLETING;
        }
        this.endState = JobState.CANCELLED;
    }

    /** Preempted in mode SUSPEND: its processes are frozen and what it held goes to its preemptor. */
    void suspend() {
        this.state = JobState.SUSPENDED;
    }

    /** Suspended by an operator (scontrol suspend): frozen, and keeping all it holds until resumed. */
    void suspendBy(String operator) {
        this.state = JobState.SUSPENDED;
        this.suspendedBy = operator;
    }

    /** Resumed on what it held before it was suspended. */
    void resume() {
        this.state = JobState.RUNNING;
        this.suspendedBy = null;
    }

    String suspendedBy() {
        return suspendedBy;
    }

    /**
     * Ends the job with what its run used as its node measured it; a job cancelled while it ran ends
     * CANCELLED whatever its exit.
     */
    void end(JobState finalState, Integer exitCode, Instant at, MeasuredUsage usage) {
        this.state = endState != null ? endState : finalState;
        this.exitCode = exitCode;
        this.endTime = at;
        this.maxRssBytes = usage.maxRssBytes();
        this.totalCpuMillis = usage.totalCpuMillis();
        this.reason = PendingReason.NONE.slurmName();
        this.expectedStartTime = null;
    }

    /**
     * A running job is stopped by a rule ({@link JobClockRule}): it stops on its nodes and ends in
     * {@code endState} when they confirm, as slurmctld marks it COMPLETING with its end state.
     */
    void stopToEnd(JobState endState) {
        this.cancelRequested = true;
        this.state = JobState.COMPLETING;
        this.endState = endState;
    }

    /** A pending job ends in {@code endState} without starting. */
    void endPending(JobState endState, Instant at) {
        this.state = endState;
        this.endTime = at;
        this.reason = PendingReason.NONE.slurmName();
        this.expectedStartTime = null;
    }

    void cancelPending(Instant at) {
        endPending(JobState.CANCELLED, at);
    }

    /** Cancelled while pending because its dependency can never be satisfied, which stays its reason, as in Slurm. */
    void cancelForInvalidDependency(Instant at) {
        cancelPending(at);
        this.reason = PendingReason.DEPENDENCY_NEVER_SATISFIED.slurmName();
    }

    void setHold(Hold hold, Instant now) {
        this.hold = hold;
        this.reason = switch (hold) {
            case USER -> PendingReason.JOB_HELD_USER.slurmName();
            case ADMIN -> PendingReason.JOB_HELD_ADMIN.slurmName();
            case NONE -> dependency != null ? PendingReason.DEPENDENCY.slurmName()
                    : eligibleTime != null && eligibleTime.isAfter(now) ? PendingReason.BEGIN_TIME.slurmName()
                    : PendingReason.NONE.slurmName();
        };
    }

    void requeue(Instant at) {
        this.state = JobState.PENDING;
        this.requeueCount++;
        this.reason = PendingReason.BEGIN_TIME.slurmName();
        this.eligibleTime = at;
        this.startTime = null;
        this.endTime = null;
        this.exitCode = null;
        this.maxRssBytes = null;
        this.totalCpuMillis = null;
        // the next run resolves its image again, maybe on another node, maybe to a newer digest
        this.containerImageDigest = null;
        this.allocatedNodes = null;
        this.allocation = null;
        this.partition = null;
        this.cancelRequested = false;
        this.endState = null;
        this.batchHost = null;
        this.launched = false;
        this.suspendedBy = null;
    }

    void update(String name, Long timeLimitSeconds, String partitions, String qos, Integer nice, String constraints) {
        if (name != null) {
            this.name = name;
        }
        if (timeLimitSeconds != null) {
            this.timeLimitSeconds = timeLimitSeconds;
        }
        if (partitions != null) {
            this.partitions = partitions;
        }
        if (qos != null) {
            this.qos = qos;
        }
        if (nice != null) {
            this.nice = nice;
        }
        if (constraints != null) {
            this.constraints = constraints.isBlank() ? null : constraints;
        }
    }
}
