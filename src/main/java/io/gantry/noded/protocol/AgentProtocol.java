package io.gantry.noded.protocol;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The wire format between node agents and the controller (JSON over HTTP). The agent starts
 * every exchange, so it works through NAT and proxies and the controller holds no socket per
 * idle node:
 * <ol>
 * <li>{@code POST /api/v1/agents/register} with {@code Authorization: Bearer <join token>} (first
 * time) or {@code Bearer <node credential>} (restart): the agent says what it has and which jobs
 * it still runs; the answer names its node, (on a join) its new credential, timings, and the
 * commands that bring the two sides in line.</li>
 * <li>{@code POST /api/v1/agents/{node}/poll} with the node credential: the heartbeat and the long
 * poll in one. It answers at once when commands wait, otherwise after at most
 * {@link Registered#pollSeconds()}. With {@code sync} set (after a reconnect, and now and then)
 * the controller reconciles the listed running jobs against the store.</li>
 * <li>{@code POST /api/v1/agents/{node}/reports} with the node credential: job starts and ends,
 * retried by the agent until acknowledged (the controller ignores repeats).</li>
 * <li>{@code POST /api/v1/agents/{node}/output} with the node credential: the answer to an
 * OUTPUT_READ command, part of a job's output file (what {@code GET /api/v1/jobs/{id}/output} shows).</li>
 * </ol>
 * Jobs are named by their display id ({@code "42"}, or {@code "42_7"} for an array task).
 */
public final class AgentProtocol {

    public static final String BASE = "/api/v1/agents";
    public static final String REGISTER = BASE + "/register";

    private AgentProtocol() {
    }

    public static String poll(String node) {
        return BASE + "/" + node + "/poll";
    }

    public static String reports(String node) {
        return BASE + "/" + node + "/reports";
    }

    /** One GPU as {@code nvidia-smi} (or {@code --gpus}) describes it. */
    @Schema(name = "AgentGpu")
    public record Gpu(int index, String uuid, String model) {
    }

    /** One MIG instance as {@code nvidia-smi -L} lists it: its GPU, profile ({@code 1g.10gb}) and UUID. */
    @Schema(name = "AgentMigDevice")
    public record MigDevice(int gpu, String profile, String uuid) {
    }

    /**
     * What an agent has, and the jobs it still runs (display ids). {@code gpus} are the whole GPUs;
     * GPUs split into MIG instances are not among them, their instances are in {@code mig}.
     */
    @Schema(name = "AgentRegistration", description = "Bounded: at most " + Registration.MAX_CPUS + " cpus, "
            + Registration.MAX_MEMORY_MB + " memoryMb, " + Registration.MAX_GPUS + " gpus and mig instances, "
            + Registration.MAX_FEATURES + " features (" + Registration.MAX_FEATURES_TEXT + " characters together), "
            + Registration.MAX_RUNNING_JOBS + " runningJobs; names and "
            + "words (gpuType, features, MIG profiles) " + Registration.MAX_WORD + " characters, UUIDs, models and "
            + "agentVersion " + Registration.MAX_TEXT + "; past any of these the registration is refused (400 naming "
            + "the field) and changes nothing")
    public record Registration(String name, int cpus, long memoryMb, List<Gpu> gpus, String gpuType,
            List<String> features, String agentVersion, List<String> runningJobs,
            @Schema(description = "Set when the agent does not run as root: the only Unix account it can run jobs as")
            String jobUser,
            @Schema(description = "Its MIG instances in nvidia-smi -L order; empty or null for none")
            List<MigDevice> mig) {

        // The bounds the controller holds registrations and polls to, checked before anything is applied:
        // each is far beyond any real machine, and well inside what the store's columns and the engine hold.
        public static final int MAX_CPUS = 65_536;
        /** 1 PiB. */
        public static final long MAX_MEMORY_MB = 1L << 30;
        /** Whole GPUs, and MIG instances: as many as a node may have (the engine's bound). */
        public static final int MAX_GPUS = 64;
        public static final int MAX_GPU_INDEX = 1023;
        public static final int MAX_FEATURES = 64;
        /** The features joined by commas (as the store keeps them). */
        public static final int MAX_FEATURES_TEXT = 1_024;
        /** Display ids of running jobs (each at most {@link #MAX_JOB_ID} characters). */
        public static final int MAX_RUNNING_JOBS = 20_000;
        public static final int MAX_JOB_ID = 32;
        /** A node name, GPU type, feature or MIG profile (the store keeps 64 characters). */
        public static final int MAX_WORD = 64;
        /** A GPU's or MIG instance's UUID, a GPU model, the agent's version. */
        public static final int MAX_TEXT = 128;
        /** A Unix account name. */
        public static final int MAX_USER = 32;
        /** A poll's health message (the node's reason keeps the first 300 characters). */
        public static final int MAX_HEALTH_MESSAGE = 4_096;

        public Registration(String name, int cpus, long memoryMb, List<Gpu> gpus, String gpuType,
                List<String> features, String agentVersion, List<String> runningJobs, String jobUser) {
            this(name, cpus, memoryMb, gpus, gpuType, features, agentVersion, runningJobs, jobUser, null);
        }

        public Registration(String name, int cpus, long memoryMb, List<Gpu> gpus, String gpuType,
                List<String> features, String agentVersion, List<String> runningJobs) {
            this(name, cpus, memoryMb, gpus, gpuType, features, agentVersion, runningJobs, null, null);
        }
    }

    /**
     * The controller's answer to a registration. {@code credential} is set only on a join with the
     * join token; a restart keeps the credential it has. {@code state} and {@code reason} are the
     * node's state after registering (DRAIN with a reason when it has less than configured).
     */
    @Schema(name = "AgentRegistered")
    public record Registered(String node, String credential, int pollSeconds, int killWaitSeconds,
            int syncSeconds, String state, String reason, List<Command> commands, NodeSettings settings) {

        public Registered(String node, String credential, int pollSeconds, int killWaitSeconds,
                int syncSeconds, String state, String reason, List<Command> commands) {
            this(node, credential, pollSeconds, killWaitSeconds, syncSeconds, state, reason, commands, null);
        }
    }

    /**
     * How the controller wants this node's jobs run ({@code gantry.agents.*}): whether jobs may run as
     * root, the health check program and its interval (null: none), and the prolog and epilog
     * programs run as root around each job (null: none). Null as a whole means the defaults.
     */
    @Schema(name = "AgentNodeSettings")
    public record NodeSettings(boolean allowRootJobs, String healthCheck, int healthCheckIntervalSeconds,
            boolean gpuHealthCheck, String prolog, String epilog,
            @Schema(description = "How often the agent reads its GPUs' use with nvidia-smi, in milliseconds "
                    + "(gantry.agents.gpu-sample-interval); 0: never") long gpuSampleIntervalMillis) {

        public static final NodeSettings DEFAULTS = new NodeSettings(false, null, 60, true, null, null, 10_000);

        public NodeSettings(boolean allowRootJobs, String healthCheck, int healthCheckIntervalSeconds,
                boolean gpuHealthCheck, String prolog, String epilog) {
            this(allowRootJobs, healthCheck, healthCheckIntervalSeconds, gpuHealthCheck, prolog, epilog, 10_000);
        }
    }

    /** A heartbeat; {@code sync} asks the controller to reconcile {@code runningJobs} against the store. */
    @Schema(name = "AgentPoll")
    public record Poll(List<String> runningJobs, boolean sync, Health health,
            @Schema(description = "The GPU readings taken since the last poll that got through, oldest first; "
                    + "null or empty: none (no GPUs nvidia-smi answers for, or sampling off). At most "
                    + GpuSample.MAX_PER_POLL) List<GpuSample> gpuSamples) {

        public Poll(List<String> runningJobs, boolean sync, Health health) {
            this(runningJobs, sync, health, null);
        }

        public Poll(List<String> runningJobs, boolean sync) {
            this(runningJobs, sync, null, null);
        }
    }

    /**
     * One reading of one GPU by {@code nvidia-smi}: when, which GPU (index and UUID), the job holding
     * it then (display id; null: none), and what it read. A value the GPU does not report
     * ({@code [N/A]}, {@code [Not Supported]}) is null, never 0. {@code seconds} is the time the reading
     * stands for: since the GPU's previous reading (at most three intervals), so sums of it are GPU-seconds.
     */
    @Schema(name = "AgentGpuSample")
    public record GpuSample(Instant time, int index, String uuid, String jobId,
            @Schema(description = "utilization.gpu, percent") Double utilization,
            @Schema(description = "memory.used, MiB") Long memoryUsedMb,
            @Schema(description = "memory.total, MiB") Long memoryTotalMb,
            @Schema(description = "power.draw, watts") Double powerWatts,
            @Schema(description = "temperature.gpu, degrees Celsius") Double temperatureC,
            @Schema(description = "ecc.errors.uncorrected.volatile.total") Long eccUncorrected,
            double seconds) {

        /** The most readings one poll carries: the agent keeps the rest for the next. */
        public static final int MAX_PER_POLL = 4_096;
    }

    /**
     * The node's own verdict on itself, from its health checks: {@code healthy} false with what
     * failed in {@code message} drains the node; true again resumes it when the check drained it.
     * Null in a poll: nothing checked yet, or no check configured.
     */
    @Schema(name = "AgentHealth")
    public record Health(boolean healthy, String message) {
    }

    @Schema(name = "AgentCommands")
    public record Commands(List<Command> commands) {
    }

    @Schema(name = "AgentCommandType")
    public enum CommandType {
        /** Start the job's batch script on this node. Repeats of a job already started are ignored. */
        LAUNCH,
        /** Stop the job: SIGTERM to its process group, SIGKILL after the kill wait; report it ended as {@code endState}. */
        KILL,
        /** The job's time limit changed: {@code timeLimitSeconds} from its start (0: none). */
        UPDATE,
        /** Start this node's tasks of a job step ({@code step}), inside the job's fence, as its owner. */
        STEP_LAUNCH,
        /** Signal every task of a job step on this node ({@code step.signal}: TERM, then KILL after the kill wait). */
        STEP_SIGNAL,
        /**
         * Read part of a job's output or error file ({@code output}) and send it to
         * {@link #output(String)}, answered or not (the controller waits for it).
         */
        OUTPUT_READ,
        /**
         * Send {@code signal.signal} to the job's processes on this node that {@code signal.scope} names
         * (scancel --signal); nothing more follows (no KILL after the kill wait). An agent that does not
         * know this command skips it.
         */
        JOB_SIGNAL,
        /**
         * Write {@code input} to a step task's standard input (or resize its terminal). An agent that
         * does not know this command skips it.
         */
        STEP_INPUT,
        /**
         * A fence of an {@code srun --mpi=pmi2} step is complete on every node: {@code step.nodeId} is its
         * number, {@code step.environment} every key-value pair its tasks put since the last one (see
         * {@link PmiProtocol}).
         */
        PMI_FENCE,
        /**
         * Report the live usage of this node's tasks of step {@code step.stepId} (sstat) to
         * {@code StepStatProtocol.stepStats(node)}, with the request's id from {@code detail}.
         */
        STEP_STAT,
        /**
         * The job's run is over (it ended, or went back to the queue): a node that is not its batch host
         * drops what the job left there (its named containers); its tasks were killed already. An agent
         * that does not know this command skips it.
         */
        JOB_ENDED,
        /**
         * Freeze the job's processes on this node (suspended for a preemptor, PreemptMode SUSPEND): the
         * cgroup freezer, else SIGSTOP. An agent that does not know this command skips it.
         */
        JOB_SUSPEND,
        /** Thaw the job's processes on this node (resumed). An agent that does not know this command skips it. */
        JOB_RESUME
    }

    /** Which of a job's processes on a node a JOB_SIGNAL reaches. */
    @Schema(name = "AgentSignalScope")
    public enum SignalScope {
        /** The batch shell, everything it started, and the srun steps' tasks (scancel --full). */
        JOB,
        /** The batch shell alone (scancel --batch). */
        BATCH,
        /** The srun steps' tasks alone (scancel --signal without -b or -f). */
        STEPS,
        /** All but the batch shell: what it started and the srun steps' tasks (--signal without B:). */
        CHILDREN
    }

    /** A JOB_SIGNAL's signal (a name without SIG, as kill -s takes it, or a number) and whom it reaches. */
    @Schema(name = "AgentJobSignal")
    public record JobSignal(String signal, SignalScope scope) {
    }

    /**
     * {@code launch} is set for LAUNCH; {@code endState} (e.g. CANCELLED) and {@code detail} for KILL;
     * {@code signal} for JOB_SIGNAL.
     */
    @Schema(name = "AgentCommand")
    public record Command(CommandType type, String jobId, Launch launch, String endState, String detail,
            Long timeLimitSeconds, StepTasks step, OutputRead output, JobSignal signal, StepInput input) {

        public Command(CommandType type, String jobId, Launch launch, String endState, String detail,
                Long timeLimitSeconds, StepTasks step, OutputRead output, JobSignal signal) {
            this(type, jobId, launch, endState, detail, timeLimitSeconds, step, output, signal, null);
        }

        public static Command stepInput(StepInput input) {
            return new Command(CommandType.STEP_INPUT, input.jobId(), null, null, null, null, null, null, null, input);
        }

        public Command(CommandType type, String jobId, Launch launch, String endState, String detail,
                Long timeLimitSeconds, StepTasks step, OutputRead output) {
            this(type, jobId, launch, endState, detail, timeLimitSeconds, step, output, null);
        }

        public Command(CommandType type, String jobId, Launch launch, String endState, String detail,
                Long timeLimitSeconds, StepTasks step) {
            this(type, jobId, launch, endState, detail, timeLimitSeconds, step, null, null);
        }

        public static Command jobSignal(String jobId, String signal, SignalScope scope) {
            return new Command(CommandType.JOB_SIGNAL, jobId, null, null, null, null, null, null,
                    new JobSignal(signal, scope));
        }

        public static Command outputRead(String jobId, OutputRead read) {
            return new Command(CommandType.OUTPUT_READ, jobId, null, null, null, null, null, read);
        }

        public Command(CommandType type, String jobId, Launch launch, String endState, String detail) {
            this(type, jobId, launch, endState, detail, null, null);
        }

        public Command(CommandType type, String jobId, Launch launch, String endState, String detail,
                Long timeLimitSeconds) {
            this(type, jobId, launch, endState, detail, timeLimitSeconds, null);
        }

        public static Command stepLaunch(StepTasks step) {
            return new Command(CommandType.STEP_LAUNCH, step.jobId(), null, null, null, null, step);
        }

        public static Command stepSignal(String jobId, int stepId, String signal) {
            return new Command(CommandType.STEP_SIGNAL, jobId, null, null, null, null,
                    new StepTasks(jobId, stepId, null, List.of(), null, null, Map.of(), signal));
        }

        /** The merged pairs of fence {@code round} of step {@code jobId.stepId} (see {@link PmiProtocol}). */
        public static Command pmiFence(String jobId, int stepId, int round, Map<String, String> pairs) {
            return new Command(CommandType.PMI_FENCE, jobId, null, null, null, null,
                    new StepTasks(jobId, stepId, null, List.of(), null, round, pairs, null));
        }

        /** A STEP_STAT: the step's usage on the node, answered with {@code requestId}. */
        public static Command stepStat(String jobId, int stepId, String requestId) {
            return new Command(CommandType.STEP_STAT, jobId, null, null, requestId, null,
                    new StepTasks(jobId, stepId, null, List.of(), null, null, Map.of(), null));
        }

        public static Command launch(Launch launch) {
            return new Command(CommandType.LAUNCH, launch.jobId(), launch, null, null, null);
        }

        /** JOB_SUSPEND, or JOB_RESUME when not {@code frozen}. */
        public static Command suspend(String jobId, boolean frozen) {
            return new Command(frozen ? CommandType.JOB_SUSPEND : CommandType.JOB_RESUME, jobId, null, null, null,
                    null);
        }

        public static Command jobEnded(String jobId) {
            return new Command(CommandType.JOB_ENDED, jobId, null, null, null, null);
        }

        public static Command kill(String jobId, String endState, String detail) {
            return new Command(CommandType.KILL, jobId, null, endState, detail, null);
        }

        public static Command update(String jobId, long timeLimitSeconds) {
            return new Command(CommandType.UPDATE, jobId, null, null, null, timeLimitSeconds);
        }
    }

    /**
     * Everything a node needs to run a job's batch script. {@code nodelist} is the whole
     * allocation as a Slurm hostlist, {@code nodes} the same expanded; {@code gpuIndices} are this
     * node's allocated GPUs (what {@code CUDA_VISIBLE_DEVICES} is set to). {@code workdir},
     * {@code stdout} and {@code stderr} may be null (the agent's work dir, {@code gantry-%j.out}, and
     * stdout). {@code stdout}/{@code stderr} still hold Slurm's {@code %} patterns; the agent expands them.
     */
    @Schema(name = "AgentLaunch")
    public record Launch(String jobId, long arrayJobId, Integer arrayTaskId, String name, String user, String account,
            String partition, String qos, String script, String workdir, Map<String, String> environment,
            String stdout, String stderr, long timeLimitSeconds, Instant startTime, String nodelist,
            List<String> nodes, int tasks, int cpusPerTask, int cpusOnNode, long memoryMbOnNode,
            List<Integer> gpuIndices, JobIdentity identity,
            @Schema(description = "The MIG instances it holds on this node, as indices into the node's MIG "
                    + "instances (nvidia-smi -L order); null or empty for none") List<Integer> migIndices,
            @Schema(description = "The GPU its shards are on (--gres=shard:N); null for none") Integer shardGpu,
            @Schema(description = "What Slurm tells a job about its allocation and where it comes from; null from "
                    + "a controller that sends none") JobContext context,
            @Schema(description = "The container its batch script runs in; null to run on the node") ContainerSpec container) {

        public Launch(String jobId, long arrayJobId, Integer arrayTaskId, String name, String user, String account,
                String partition, String qos, String script, String workdir, Map<String, String> environment,
                String stdout, String stderr, long timeLimitSeconds, Instant startTime, String nodelist,
                List<String> nodes, int tasks, int cpusPerTask, int cpusOnNode, long memoryMbOnNode,
                List<Integer> gpuIndices, JobIdentity identity, List<Integer> migIndices, Integer shardGpu,
                JobContext context) {
            this(jobId, arrayJobId, arrayTaskId, name, user, account, partition, qos, script, workdir, environment,
                    stdout, stderr, timeLimitSeconds, startTime, nodelist, nodes, tasks, cpusPerTask, cpusOnNode,
                    memoryMbOnNode, gpuIndices, identity, migIndices, shardGpu, context, null);
        }

        public Launch(String jobId, long arrayJobId, Integer arrayTaskId, String name, String user, String account,
                String partition, String qos, String script, String workdir, Map<String, String> environment,
                String stdout, String stderr, long timeLimitSeconds, Instant startTime, String nodelist,
                List<String> nodes, int tasks, int cpusPerTask, int cpusOnNode, long memoryMbOnNode,
                List<Integer> gpuIndices, JobIdentity identity, List<Integer> migIndices, Integer shardGpu) {
            this(jobId, arrayJobId, arrayTaskId, name, user, account, partition, qos, script, workdir, environment,
                    stdout, stderr, timeLimitSeconds, startTime, nodelist, nodes, tasks, cpusPerTask, cpusOnNode,
                    memoryMbOnNode, gpuIndices, identity, migIndices, shardGpu, null);
        }

        public Launch(String jobId, long arrayJobId, Integer arrayTaskId, String name, String user, String account,
                String partition, String qos, String script, String workdir, Map<String, String> environment,
                String stdout, String stderr, long timeLimitSeconds, Instant startTime, String nodelist,
                List<String> nodes, int tasks, int cpusPerTask, int cpusOnNode, long memoryMbOnNode,
                List<Integer> gpuIndices, JobIdentity identity) {
            this(jobId, arrayJobId, arrayTaskId, name, user, account, partition, qos, script, workdir, environment,
                    stdout, stderr, timeLimitSeconds, startTime, nodelist, nodes, tasks, cpusPerTask, cpusOnNode,
                    memoryMbOnNode, gpuIndices, identity, null, null, null);
        }

        public Launch(String jobId, long arrayJobId, Integer arrayTaskId, String name, String user, String account,
                String partition, String qos, String script, String workdir, Map<String, String> environment,
                String stdout, String stderr, long timeLimitSeconds, Instant startTime, String nodelist,
                List<String> nodes, int tasks, int cpusPerTask, int cpusOnNode, long memoryMbOnNode,
                List<Integer> gpuIndices) {
            this(jobId, arrayJobId, arrayTaskId, name, user, account, partition, qos, script, workdir, environment,
                    stdout, stderr, timeLimitSeconds, startTime, nodelist, nodes, tasks, cpusPerTask, cpusOnNode,
                    memoryMbOnNode, gpuIndices, null, null, null, null);
        }

        /** Who the job runs as and how it is signalled; never null on the agent (defaults when absent). */
        public JobIdentity identityOrDefault() {
            return identity != null ? identity : new JobIdentity(user, null, null);
        }
    }

    /**
     * The rest of what Slurm 22.05 puts into a job's environment and launchers read
     * ({@code SLURM_JOB_CPUS_PER_NODE}, {@code SLURM_TASKS_PER_NODE}, {@code SLURM_CLUSTER_NAME}, ...):
     * {@code cpusPerNode} and {@code tasksPerNode} in Slurm's compressed form over the whole allocation
     * ({@code 2(x2)}), {@code ntasksPerNode} and {@code gpusPerNode} as asked (null: not asked), how many
     * times it was requeued, and for an array task its array's task count, lowest and highest index and
     * step (null for a job that is no array task).
     */
    @Schema(name = "AgentJobContext")
    public record JobContext(String clusterName, String cpusPerNode, String tasksPerNode, Integer ntasksPerNode,
            Integer gpusPerNode, int restartCount, Integer arrayTaskCount, Integer arrayTaskMin,
            Integer arrayTaskMax, Integer arrayTaskStep) {
    }

    /**
     * Who runs a job and how it is warned: {@code unixUser} is the Unix account (the Gantry user's
     * name, or its {@code gantry.agents.user-map} entry); {@code umask} the octal umask it was
     * submitted with (null: 0077); {@code signal} Slurm's {@code --signal=[B:]SIG[@seconds]} (null:
     * none), sent that many seconds before the time limit.
     */
    @Schema(name = "AgentJobIdentity")
    public record JobIdentity(String unixUser, String umask, String signal) {
    }

    /**
     * One node's share of a job step: its tasks ({@code procId} global rank, {@code localId} rank on
     * this node, {@code gpuIndices} the task's own GPUs or null to see all the node's GPUs of the
     * job), the command each task runs ({@code argv}), its working directory, and the environment
     * on top of the job's own ({@code SLURM_STEP_ID}, {@code SLURM_NODEID}, {@code SLURM_STEP_NODELIST},
     * {@code MASTER_ADDR}, ...; per task the agent adds {@code SLURM_PROCID}, {@code SLURM_LOCALID}
     * and {@code CUDA_VISIBLE_DEVICES}). {@code signal} is set only in a STEP_SIGNAL command.
     */
    @Schema(name = "AgentStepTasks")
    public record StepTasks(String jobId, int stepId, List<String> argv, List<StepTask> tasks, String workdir,
            Integer nodeId, Map<String, String> environment, String signal,
            @Schema(description = "The container the step's tasks run in; null to run on the node")
            ContainerSpec container) {

        public StepTasks(String jobId, int stepId, List<String> argv, List<StepTask> tasks, String workdir,
                Integer nodeId, Map<String, String> environment, String signal) {
            this(jobId, stepId, argv, tasks, workdir, nodeId, environment, signal, null);
        }
    }

    @Schema(name = "AgentStepTask")
    public record StepTask(int procId, int localId, List<Integer> gpuIndices,
            @Schema(description = "Where the task's standard input comes from: null for /dev/null") TaskStdin stdin) {

        public StepTask(int procId, int localId, List<Integer> gpuIndices) {
            this(procId, localId, gpuIndices, null);
        }
    }

    /**
     * A task whose standard input srun relays (STEP_INPUT commands): on a pseudo-terminal of
     * {@code rows} x {@code cols} when {@code terminal}, else a pipe.
     */
    @Schema(name = "AgentTaskStdin")
    public record TaskStdin(boolean terminal, Integer rows, Integer cols) {
    }

    /**
     * Input for one task of a step (STEP_INPUT): {@code data} (base64) for its standard input, numbered
     * per step by {@code seq} from 1 so a repeat is written once; {@code eof} closes it; {@code rows}
     * and {@code cols} resize its terminal.
     */
    @Schema(name = "AgentStepInput")
    public record StepInput(String jobId, int stepId, int procId, long seq, String data, boolean eof, Integer rows,
            Integer cols) {
    }

    /**
     * What a node's tasks of a step did: {@code OUTPUT} carries {@code data} a task wrote to
     * {@code stream} (stdout or stderr; in order, by {@code seq} per task from 0), {@code ENDED} a
     * task's exit ({@code exitCode}, or {@code signal} when a signal ended it). A task that could not
     * start is ENDED with exit code 1 and {@code data} saying why.
     */
    @Schema(name = "AgentStepReport")
    public record StepReport(String jobId, int stepId, int procId, StepReportType type, String stream, long seq,
            String data, Integer exitCode, Integer signal) {
    }

    @Schema(name = "AgentStepReportType")
    public enum StepReportType {
        OUTPUT, ENDED,
        /** A node's part of a fence of an {@code srun --mpi=pmi2} step (see {@link PmiProtocol}). */
        PMI_FENCE,
        /** A task of an {@code srun --mpi=pmi2} step aborted: the step is killed on every node (see {@link PmiProtocol}). */
        PMI_ABORT
    }

    @Schema(name = "AgentStepReports")
    public record StepReports(List<StepReport> reports) {
    }

    /**
     * Asks for up to {@code maxBytes} of a job's {@code stream} ({@code stdout} or {@code stderr}) from
     * byte {@code offset}; the answer ({@link OutputChunk}) carries {@code requestId} back.
     */
    @Schema(name = "AgentOutputRead")
    public record OutputRead(String requestId, String stream, long offset, int maxBytes) {
    }

    /**
     * An agent's answer to an OUTPUT_READ: {@code data} (base64 in JSON) is the file's bytes from
     * {@code offset}, {@code size} the file's whole length now, {@code running} whether the job still
     * runs here. {@code problem} instead says why there is nothing to read: the agent does not know the
     * job (it never ran here, or the agent restarted since), the job sends that stream into its output
     * file ({@code merged}), or the file cannot be read.
     */
    @Schema(name = "AgentOutputChunk")
    public record OutputChunk(String requestId, String jobId, String stream, long offset, byte[] data, long size,
            boolean running, OutputProblem problem, String detail) {
    }

    @Schema(name = "AgentOutputProblem")
    public enum OutputProblem {
        /** This agent has no record of the job: it did not run here, or ran before the agent restarted. */
        UNKNOWN_JOB,
        /** The job has no file of its own for stderr: its errors go into its output file. */
        MERGED,
        /** The file does not exist, is not a regular file of the job's owner, or cannot be read. */
        UNREADABLE
    }

    public static String output(String node) {
        return BASE + "/" + node + "/output";
    }

    public static String stepReports(String node) {
        return BASE + "/" + node + "/step-reports";
    }

    @Schema(name = "AgentReportType")
    public enum ReportType {
        STARTED, ENDED,
        /**
         * The image of the job's container (or of one of its steps, {@code image.stepId}) is on the node:
         * pulled now, or found in the node's cache; {@code detail} says so for the job's events. Sent
         * before STARTED for the batch script's image. An agent's controller that does not know it skips it.
         */
        IMAGE
    }

    /**
     * A container image as a node has it: what was asked ({@code reference}), the digest it resolved to,
     * whether this node pulled it now ({@code pulled}, else it was in its cache) and in how many seconds,
     * and the step it is for (null: the batch script).
     */
    @Schema(name = "AgentContainerImage")
    public record ContainerImage(String reference, String digest, boolean pulled, double seconds, Integer stepId,
            @Schema(description = "Set while the node is still pulling the image: the bytes it has so far "
                    + "(0 when the pull starts); null when the image is there") Long pullingBytes) {

        public ContainerImage(String reference, String digest, boolean pulled, double seconds, Integer stepId) {
            this(reference, digest, pulled, seconds, stepId, null);
        }
    }

    /**
     * A job's start or end on its node. For ENDED: {@code state} is COMPLETED, FAILED, TIMEOUT,
     * CANCELLED or OUT_OF_MEMORY; {@code exitCode} the script's exit status (null when killed by a
     * signal), {@code signal} the signal that ended it (null when it exited).
     */
    @Schema(name = "AgentReport")
    public record Report(String jobId, ReportType type, Instant time, String state, Integer exitCode, Integer signal,
            String detail, Usage usage,
            @Schema(description = "The start time of the run reported on, as its launch gave it: a report about an "
                    + "earlier run of a requeued job is acknowledged and ignored")
            Instant runStart,
            @Schema(description = "For IMAGE: the image the node has") ContainerImage image) {

        public Report(String jobId, ReportType type, Instant time, String state, Integer exitCode, Integer signal,
                String detail, Usage usage, Instant runStart) {
            this(jobId, type, time, state, exitCode, signal, detail, usage, runStart, null);
        }

        public Report(String jobId, ReportType type, Instant time, String state, Integer exitCode, Integer signal,
                String detail) {
            this(jobId, type, time, state, exitCode, signal, detail, null, null);
        }

        public Report(String jobId, ReportType type, Instant time, String state, Integer exitCode, Integer signal,
                String detail, Usage usage) {
            this(jobId, type, time, state, exitCode, signal, detail, usage, null);
        }
    }

    /** What a job used on its node, from its cgroup (null fields: not known). */
    @Schema(name = "AgentJobUsage")
    public record Usage(Long maxRssBytes, Long cpuTimeMillis) {
    }

    @Schema(name = "AgentReports")
    public record Reports(List<Report> reports) {
    }

    /** How many reports changed something; repeats of reports already applied are acknowledged too. */
    @Schema(name = "AgentReportsAccepted")
    public record ReportsAccepted(int applied) {
    }
}
