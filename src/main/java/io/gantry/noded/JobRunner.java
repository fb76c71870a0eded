package io.gantry.noded;

import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.AgentProtocol.NodeSettings;
import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.AgentProtocol.ReportType;
import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepTasks;
import io.gantry.noded.protocol.StepStatProtocol;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs of this node: carries out the controller's LAUNCH, KILL and UPDATE commands (and hands
 * STEP_LAUNCH and STEP_SIGNAL to the job's {@link JobSteps}), knows which
 * scripts still run (what the agent lists in its polls), pins each job to cores of its own while
 * there are free ones, and at start stops what an earlier agent run left behind. Every start and
 * end goes to the report sink in the order it happened; a job that cannot start is reported FAILED
 * with the reason, and never stops the agent.
 */
final class JobRunner implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);
    private static final Pattern JOB_ID = Pattern.compile("[0-9A-Za-z][0-9A-Za-z_.-]{0,63}");
    /** How often running tasks' usage is read for sstat's peaks (Slurm's JobAcctGatherFrequency, 30 s, is coarser). */
    private static final long USAGE_SECONDS = 5;

    private final AgentDirs dirs;
    private final Clock clock;
    private final Consumer<Report> reports;
    private final OomWatch oomWatch;
    private final UnixAccount agentAccount;
    private final JobProcess.Fences fences;
    private final int onlineCpus;
    private final ScheduledExecutorService timers;
    private final List<URI> controllers;
    private final JobSteps steps;
    /** Starts step tasks and signals them, in the order asked, off the poll loop. */
    private final ExecutorService stepLauncher;
    private final JobOutputFiles outputs = new JobOutputFiles();
    private final Map<String, JobProcess> running = new LinkedHashMap<>();
    private final StepUsageMeter usage = new StepUsageMeter();
    /** Reads the tasks' usage now and then, on a thread of its own so /proc scans never hold up the timers. */
    private final ScheduledExecutorService usageSampler = Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("step-usage"));
    private final Map<String, List<Integer>> pinned = new HashMap<>();
    /** The start time of the latest run of each job this agent was asked to start. */
    private final Map<String, Instant> latestRun = new HashMap<>();
    /** Runs waiting for an earlier run of the same job to stop here. */
    private final Map<String, Launch> deferred = new HashMap<>();
    private volatile String node;
    private volatile List<String> migUuids = List.of();
    private volatile Duration killWait = Duration.ofSeconds(30);
    private volatile NodeSettings nodeSettings = NodeSettings.DEFAULTS;
    /** Jobs whose container is being made ready (their image pulled) before their script starts. */
    private final Map<String, Launch> preparing = new HashMap<>();
    /** Pulls images and copies root file systems off the poll loop, several jobs at once. */
    private final ExecutorService containerPreparer = Executors.newCachedThreadPool(
            DaemonThreads.named("container-prepare"));
    private ContainerRuntime.Settings containerSettings = ContainerRuntime.Settings.defaults();
    private volatile ContainerRuntime containers;

    /**
     * @param stepReports where step tasks' output and exits go
     * @param controllers the controllers the agent talks to, which srun inside jobs calls too
     */
    JobRunner(String node, AgentDirs dirs, Clock clock, Consumer<Report> reports, Consumer<StepReport> stepReports,
            UnixAccount agentAccount, JobProcess.Fences fences, List<URI> controllers) {
        this.node = node;
        this.controllers = List.copyOf(controllers);
        this.dirs = dirs;
        this.clock = clock;
        this.reports = reports;
        this.agentAccount = agentAccount;
        this.fences = fences;
        this.oomWatch = OomWatch.ofOwnCgroup();
        this.onlineCpus = Runtime.getRuntime().availableProcessors();
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "job-timers");
            t.setDaemon(true);
            return t;
        });
        this.steps = new JobSteps(timers, stepReports);
        this.steps.onStepOver(this::stepOver);
        usageSampler.scheduleWithFixedDelay(this::sampleUsage, USAGE_SECONDS, USAGE_SECONDS, TimeUnit.SECONDS);
        this.stepLauncher = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "step-launches");
            t.setDaemon(true);
            return t;
        });
    }

    /** How this node runs containers (its runtime, image cache limit, GPU device files); before any job. */
    synchronized void useContainers(ContainerRuntime.Settings settings) {
        this.containerSettings = settings;
        this.containers = null;
    }

    /** The node's container runtime, made on first use (its cache directory is root's alone). */
    synchronized ContainerRuntime containers() {
        if (containers == null) {
            containers = new ContainerRuntime(dirs.root().resolve("containers"), containerSettings, clock);
        }
        return containers;
    }

    /** The node name, kill wait and settings from the controller's latest Registered answer. */
    void configure(String node, Duration killWait, NodeSettings settings) {
        this.node = node;
        this.killWait = killWait;
        this.nodeSettings = settings == null ? NodeSettings.DEFAULTS : settings;
    }

    void apply(List<Command> commands) {
        if (commands == null) {
            return;
        }
        for (Command command : commands) {
            if (command == null || command.type() == null) {
                continue;
            }
            switch (command.type()) {
                case LAUNCH -> {
                    if (command.launch() != null) {
                        launch(command.launch());
                    }
                }
                case KILL -> kill(command.jobId(), command.endState(), command.detail());
                case UPDATE -> update(command.jobId(), command.timeLimitSeconds());
                case STEP_LAUNCH -> {
                    if (command.step() != null) {
                        launchStep(command.step());
                    }
                }
                case OUTPUT_READ -> {
                    // answered by the agent's output reader (Agent), off the poll loop
                }
                case STEP_STAT -> {
                    // answered by the agent's output reader (Agent), off the poll loop
                }
                case JOB_SIGNAL -> {
                    if (command.signal() != null) {
                        signal(command.jobId(), command.signal());
                    }
                }
                case STEP_INPUT -> {
                    AgentProtocol.StepInput input = command.input();
                    if (input != null) {
                        // after the launch of its step, which may still be starting
                        onStepLauncher(() -> steps.input(input));
                    }
                }
                case JOB_ENDED -> jobEnded(command.jobId());
                case JOB_SUSPEND -> suspend(command.jobId(), true);
                case JOB_RESUME -> suspend(command.jobId(), false);
                case PMI_FENCE -> {
                    if (command.step() != null) {
                        steps.pmiFence(command.step());
                    }
                }
                case STEP_SIGNAL -> {
                    if (command.step() != null) {
                        // after the launches asked for before it, which may still be starting
                        Duration wait = killWait;
                        onStepLauncher(() -> steps.signal(command.step().jobId(), command.step().stepId(),
                                command.step().signal(), wait));
                    }
                }
            }
        }
    }

    /** A step's last task here ended: its own (unnamed) container here goes, off the caller's lock. */
    private void stepOver(String jobId, int stepId) {
        ContainerRuntime runtime = containers; // not under this lock: the steps' lock is held here
        if (runtime != null) {
            try {
                containerPreparer.execute(() -> runtime.endStep(jobId, stepId));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // the agent is stopping
            }
        }
    }

    /**
     * The usage of this node's running tasks of a step, for a STEP_STAT command ({@code stepId}
     * {@link StepStatProtocol#BATCH_STEP}: the batch script, when it runs here).
     */
    StepStatProtocol.StepUsage stepUsage(String jobId, int stepId, String requestId) {
        List<StepUsageMeter.Target> targets = new ArrayList<>();
        if (stepId == StepStatProtocol.BATCH_STEP) {
            batchTarget(jobId).ifPresent(targets::add);
        } else {
            targets.addAll(steps.usageTargets(jobId, stepId));
        }
        return new StepStatProtocol.StepUsage(requestId, jobId, stepId, usage.read(targets, false));
    }

    /** Reads every running task's usage (and each batch script's), so sstat's maxima include peaks between reads. */
    private void sampleUsage() {
        try {
            List<StepUsageMeter.Target> targets = new ArrayList<>(steps.usageTargets(null, null));
            List<String> jobIds;
            synchronized (this) {
                jobIds = new ArrayList<>(running.keySet());
            }
            jobIds.forEach(id -> batchTarget(id).ifPresent(targets::add));
            usage.read(targets, true);
        } catch (RuntimeException e) {
            log.warn("cannot read the step tasks' usage: {}", e.toString());
        }
    }

    /** The batch script of a job running here: the job's processes that are not its srun tasks. */
    private Optional<StepUsageMeter.Target> batchTarget(String jobId) {
        JobProcess job;
        synchronized (this) {
            job = running.get(jobId);
        }
        if (job == null || job.fence() == null) {
            return Optional.empty();
        }
        Set<Long> pids = new HashSet<>(job.fence().pids());
        pids.removeAll(steps.taskPids(jobId));
        return Optional.of(new StepUsageMeter.Target(jobId, StepStatProtocol.BATCH_STEP, 0, job.pid(), pids));
    }

    /** Part of a job's output or error file, for an OUTPUT_READ command. */
    AgentProtocol.OutputChunk readOutput(String jobId, AgentProtocol.OutputRead read) {
        boolean stillRunning;
        synchronized (this) {
            stillRunning = running.containsKey(jobId);
        }
        return outputs.read(jobId, read, stillRunning);
    }

    /**
     * Starts the job unless this agent already runs or ran this very start of it (a job requeued
     * after preemption or a node failure starts again with a new start time, and runs again).
     */
    synchronized void launch(Launch launch) {
        String id = launch.jobId();
        if (id == null || !JOB_ID.matcher(id).matches() || id.contains("..")) {
            log.warn("ignoring a launch with an unusable job id '{}'", id);
            return;
        }
        JobProcess current = running.get(id);
        if (current != null) {
            if (!sameRun(current.launch().startTime(), launch.startTime()) && newRun(id, launch.startTime())) {
                // a newer run of the job (requeued) while an earlier one still runs here: that one is
                // obsolete; the new one starts once it is gone
                log.info("job {}: a new run starts once the earlier one still running here has stopped", id);
                deferred.put(id, launch);
                current.stop("CANCELLED", "replaced by a newer run of the job");
            }
            return;
        }
        if (preparing.containsKey(id)) {
            if (!sameRun(preparing.get(id).startTime(), launch.startTime()) && newRun(id, launch.startTime())) {
                preparing.put(id, launch); // the run being prepared is obsolete: the newer one starts instead
            }
            return;
        }
        if (!newRun(id, launch.startTime())) {
            return;
        }
        if (launch.container() != null) {
            preparing.put(id, launch);
            containerPreparer.execute(() -> startInContainer(launch));
            return;
        }
        start(launch, null);
    }

    /**
     * Makes the job's container ready (its image pulled, or found in the node's cache, and reported
     * IMAGE), then starts the script in it, unless the job was stopped or replaced meanwhile.
     */
    private void startInContainer(Launch launch) {
        String id = launch.jobId();
        ContainerRuntime runtime = containers();
        ContainerRuntime.Prepared prepared;
        try {
            JobProcess.Settings settings = settings();
            UnixAccount owner = JobProcess.owner(launch.identityOrDefault().unixUser(), agentAccount,
                    settings.nodeSettingsOrDefault(), settings.node());
            prepared = runtime.prepare(id, "batch", launch.container(), owner, settings.node(),
                    pullProgress(id, null, launch.container(), launch.startTime()));
        } catch (JobProcess.StartFailure | RuntimeException e) {
            String detail = e instanceof JobProcess.StartFailure ? e.getMessage()
                    : "the agent of " + node + " could not prepare its container: " + e;
            runtime.endJob(id);
            synchronized (this) {
                if (preparing.remove(id, launch)) {
                    failed(launch, detail);
                }
            }
            return;
        }
        AgentProtocol.ContainerImage image = prepared.report(null);
        if (image != null) {
            reports.accept(new Report(id, ReportType.IMAGE, clock.instant(), null, null, null,
                    prepared.detail(node), null, launch.startTime(), image));
        }
        synchronized (this) {
            if (!preparing.remove(id, launch)) {
                runtime.endJob(id); // stopped while its image came, or replaced by a newer run
                Launch newer = preparing.get(id);
                if (newer != null) {
                    containerPreparer.execute(() -> startInContainer(newer));
                }
                return;
            }
            start(launch, prepared);
        }
    }

    /** Starts the script, in {@code container} when not null; a job that cannot start is reported FAILED. */
    private synchronized void start(Launch launch, ContainerRuntime.Prepared container) {
        String id = launch.jobId();
        List<Integer> cpus = freeCpus(launch.cpusOnNode());
        JobProcess.InContainer inContainer = container == null ? null
                : (owner, env, workdir, script) -> containers().command(container, new ContainerRuntime.Process(
                        id + "-batch", batchArgs(launch.script()), env, workdir, launch.memoryMbOnNode(),
                        GpuDevices.Grant.of(launch), script), owner);
        try {
            JobProcess job = JobProcess.start(launch, settings(), cpus, timers, reports, this::ended, inContainer);
            running.put(id, job); // its end, even if it came already, waits for this lock to remove it
            job.outputFiles().ifPresent(f -> outputs.remember(id, f));
            pinned.put(id, cpus);
        } catch (JobProcess.StartFailure e) {
            failed(launch, e.getMessage());
            if (container != null) {
                containers().endJob(id);
            }
        } catch (RuntimeException e) {
            log.error("job {}: unexpected failure while starting it", id, e);
            failed(launch, "the agent of " + node + " could not start it: " + e);
            if (container != null) {
                containers().endJob(id);
            }
        }
    }

    /** The batch script as the container runs it: itself when it names its interpreter, else with /bin/sh. */
    static List<String> batchArgs(String script) {
        return script != null && script.startsWith("#!") ? List.of(ContainerRuntime.SCRIPT)
                : List.of("/bin/sh", ContainerRuntime.SCRIPT);
    }

    /** IMAGE reports of a pull under way for the job's events: its start, then how far it is. */
    private ContainerImages.Progress pullProgress(String jobId, Integer stepId, io.gantry.noded.protocol.ContainerSpec spec,
            Instant runStart) {
        return (digest, bytes, seconds) -> reports.accept(new Report(jobId, ReportType.IMAGE, clock.instant(), null,
                null, null, null, null, runStart, new AgentProtocol.ContainerImage(spec.image(), digest, false,
                        Math.round(seconds * 1000) / 1000.0, stepId, bytes)));
    }

    /**
     * A job whose batch script ran elsewhere is over: its containers here go after the kill wait, as
     * after a KILL (its steps' tasks were stopped by their steps' end). Nothing here waits: it runs on the
     * poll loop, and must not hold the step launcher either (a kill there waits for the launcher itself).
     */
    private synchronized void jobEnded(String jobId) {
        if (jobId == null || running.containsKey(jobId) || preparing.containsKey(jobId)) {
            return; // its batch script runs here: its end takes care of it
        }
        if (containers != null) {
            ContainerRuntime runtime = containers;
            timers.schedule(() -> runtime.endJob(jobId), killWait.toMillis() + 1000, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Starts this node's tasks of a step, inside the job's batch fence when its script runs here: on
     * the step launcher, not on the caller's thread, which is the agent's poll loop and must keep
     * polling (the controller's heartbeat) while a step with many tasks or a large environment starts.
     * Launches and step signals keep their order there; a kill of the job in between stops the launch.
     */
    synchronized void launchStep(StepTasks step) {
        String id = step.jobId();
        if (id == null || !JOB_ID.matcher(id).matches() || id.contains("..")) {
            log.warn("ignoring a step launch with an unusable job id '{}'", id);
            return;
        }
        JobProcess batch = running.get(id);
        JobProcess.Settings settings = settings();
        long ticket = steps.ticket();
        if (step.container() != null) {
            onStepLauncher(() -> steps.launch(step, batch, settings, ticket, stepContainer(step, batch, settings)));
            return;
        }
        onStepLauncher(() -> steps.launch(step, batch, settings, ticket));
    }

    /**
     * The container a step's tasks run in here, made ready (and its image reported IMAGE for the
     * step); when it cannot be, every task fails with the reason.
     */
    private JobSteps.InContainer stepContainer(StepTasks step, JobProcess batch, JobProcess.Settings settings) {
        ContainerRuntime runtime = containers();
        Map<String, String> stepEnv = step.environment() == null ? Map.of() : step.environment();
        ContainerRuntime.Prepared prepared;
        try {
            UnixAccount owner = batch != null ? batch.owner() : JobProcess.owner(stepEnv.get("SLURM_JOB_USER"),
                    agentAccount, settings.nodeSettingsOrDefault(), settings.node());
            prepared = runtime.prepare(step.jobId(), "s" + step.stepId(), step.container(), owner, settings.node(),
                    pullProgress(step.jobId(), step.stepId(), step.container(), batch == null ? null
                            : batch.launch().startTime()));
        } catch (JobProcess.StartFailure e) {
            String detail = e.getMessage();
            return (spec, task) -> {
                throw new JobProcess.StartFailure(detail);
            };
        }
        AgentProtocol.ContainerImage image = prepared.report(step.stepId());
        if (image != null) {
            Instant runStart = batch == null ? null : batch.launch().startTime();
            reports.accept(new Report(step.jobId(), ReportType.IMAGE, clock.instant(), null, null, null,
                    prepared.detail(settings.node()), null, runStart, image));
        }
        long memoryMb = batch != null ? batch.launch().memoryMbOnNode() : memoryMb(stepEnv.get("SLURM_MEM_PER_NODE"));
        return (spec, task) -> {
            ContainerRuntime.Command command = runtime.command(prepared, new ContainerRuntime.Process(
                    step.jobId() + "-" + step.stepId() + "-" + task.procId(), spec.argv(), spec.environment(),
                    spec.workdir(), memoryMb, GpuDevices.Grant.whole(task.gpuIndices() == null ? List.of()
                            : task.gpuIndices()), null, ContainerRuntime.TerminalSize.of(task.stdin())),
                    spec.owner());
            return ContainerRuntime.taskArgv(command);
        };
    }

    private static long memoryMb(String value) {
        try {
            return value == null ? 0 : Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private void onStepLauncher(Runnable work) {
        try {
            stepLauncher.execute(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    log.error("a step launch or signal failed", e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.info("the agent is stopping: a step launch or signal is dropped");
        }
    }

    private JobProcess.Settings settings() {
        return new JobProcess.Settings(node, dirs, killWait, clock, oomWatch, nodeSettings, agentAccount, fences,
                controllers, migUuids);
    }

    /** The UUIDs of this node's MIG instances (nvidia-smi -L order), which jobs on MIG instances see. */
    void useMigDevices(List<String> uuids) {
        this.migUuids = List.copyOf(uuids);
    }

    /** Records a run of the job; false when it is the run this agent was last asked to start (a repeat). */
    private boolean newRun(String id, Instant start) {
        if (latestRun.containsKey(id) && sameRun(latestRun.get(id), start)) {
            return false;
        }
        latestRun.put(id, start);
        return true;
    }

    /**
     * Whether two start times name the same run: the controller's store keeps microseconds while a
     * launch built as the job starts may carry nanoseconds, so they match to the millisecond.
     */
    static boolean sameRun(Instant a, Instant b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Math.abs(java.time.Duration.between(a, b).toNanos()) <= 1_000_000;
    }

    private void failed(Launch launch, String detail) {
        log.info("job {} ended: FAILED before it started: {}", launch.jobId(), detail);
        reports.accept(new Report(launch.jobId(), ReportType.ENDED, clock.instant(), "FAILED", 1, null, detail, null,
                launch.startTime()));
    }

    /**
     * The {@code count} lowest cores no running job is pinned to, or none (no pinning) when that
     * many are not free or the job wants the whole machine.
     */
    private List<Integer> freeCpus(int count) {
        if (count <= 0 || count >= onlineCpus) {
            return List.of();
        }
        Set<Integer> busy = new HashSet<>();
        pinned.values().forEach(busy::addAll);
        List<Integer> free = new ArrayList<>();
        for (int cpu = 0; cpu < onlineCpus && free.size() < count; cpu++) {
            if (!busy.contains(cpu)) {
                free.add(cpu);
            }
        }
        return free.size() == count ? List.copyOf(free) : List.of();
    }

    /**
     * Stops a job with the controller's end state, its step tasks here included, or reports it ended
     * at once when it does not run here. A job that ran only step tasks here has no batch to report.
     */
    synchronized void kill(String jobId, String endState, String detail) {
        String state = endState == null || endState.isBlank() ? "CANCELLED" : endState;
        JobProcess job = running.get(jobId);
        deferred.remove(jobId);
        Launch waiting = preparing.remove(jobId);
        if (waiting != null) {
            steps.kill(jobId, killWait);
            log.info("job {} ended: {} while its container was being prepared on {}", jobId, state, node);
            reports.accept(new Report(jobId, ReportType.ENDED, clock.instant(), state, null, null,
                    detail == null ? "stopped before its container was ready on " + node : detail, null,
                    waiting.startTime()));
            return;
        }
        boolean onlyTasksHere = steps.kill(jobId, killWait);
        if (job == null && onlyTasksHere) {
            log.info("job {}: stopping its step tasks on {} ({})", jobId, node, state);
            if (containers != null) {
                // its containers go once its tasks had their kill wait
                ContainerRuntime runtime = containers;
                timers.schedule(() -> runtime.endJob(jobId), killWait.toMillis() + 5000, TimeUnit.MILLISECONDS);
            }
            return;
        }
        if (job == null) {
            log.info("job {} ended: {} (a kill for a job not running on {})", jobId, state, node);
            reports.accept(new Report(jobId, ReportType.ENDED, clock.instant(), state, null, null,
                    "not running on " + node));
            return;
        }
        log.info("job {}: stopping it as {}", jobId, state);
        job.stop(state, detail);
    }

    /**
     * Sends a job's processes on this node the signal a user asked for (scancel --signal): the batch
     * shell, what it started and the srun steps' tasks, or the part of them the scope names. Each
     * process gets it once, and nothing follows it.
     */
    synchronized void signal(String jobId, AgentProtocol.JobSignal request) {
        String name = JobSteps.signalName(request.signal());
        AgentProtocol.SignalScope scope = request.scope() == null ? AgentProtocol.SignalScope.JOB : request.scope();
        if (name == null) {
            log.warn("job {}: ignoring the unknown signal '{}'", jobId, request.signal());
            return;
        }
        JobProcess job = running.get(jobId);
        switch (scope) {
            case BATCH -> {
                boolean sent = job != null && job.signalBatchShell(name);
                log.info("job {}: SIG{} to its batch shell{}", jobId, name, sent ? "" : ": none runs here");
            }
            case STEPS -> {
                steps.signalTasks(jobId, name);
                log.info("job {}: SIG{} to its step tasks on {}", jobId, name, node);
            }
            case JOB, CHILDREN -> {
                int batch = job == null ? 0
                        : job.signalBatchStep(name, scope == AgentProtocol.SignalScope.JOB, steps.taskPids(jobId));
                steps.signalTasks(jobId, name);
                log.info("job {}: SIG{} to {} process(es) of its batch step{} and its step tasks on {}", jobId, name,
                        batch, scope == AgentProtocol.SignalScope.CHILDREN ? " (not the batch shell)" : "", node);
            }
        }
    }

    /**
     * Freezes (suspended for a preemptor) or thaws (resumed) a job's processes on this node: its batch
     * step, which holds the step tasks here, or the step tasks of a job whose batch runs elsewhere.
     */
    synchronized void suspend(String jobId, boolean frozen) {
        JobProcess job = running.get(jobId);
        boolean done = job != null ? job.suspend(frozen) : steps.freeze(jobId, frozen);
        log.info("job {}: {} on {}{}", jobId, frozen ? "suspended" : "resumed", node, done ? "" : " (nothing to "
                + (frozen ? "freeze" : "thaw") + " here)");
    }

    /** A running job's new time limit. */
    synchronized void update(String jobId, Long timeLimitSeconds) {
        JobProcess job = running.get(jobId);
        if (job != null && timeLimitSeconds != null) {
            job.updateTimeLimit(timeLimitSeconds);
        }
    }

    /** The display ids of the jobs whose scripts still run. */
    synchronized List<String> runningJobs() {
        List<String> ids = new ArrayList<>(running.keySet());
        preparing.keySet().stream().filter(id -> !running.containsKey(id)).forEach(ids::add);
        return ids;
    }

    /** Which running job holds each whole GPU (nvidia-smi index to display id), for {@link GpuSampler}. */
    synchronized Map<Integer, String> gpuHolders() {
        return GpuSampler.holders(running);
    }

    private synchronized void ended(JobProcess job) {
        if (running.remove(job.jobId(), job)) {
            pinned.remove(job.jobId());
            steps.killNow(job.jobId()); // a job's steps end with its script, as in Slurm
            if (containers != null) {
                containers.endJob(job.jobId());
            }
            Launch next = deferred.remove(job.jobId());
            if (next != null) {
                latestRun.remove(next.jobId());
                launch(next);
            }
        }
    }

    /**
     * Takes over the jobs an earlier run of this agent left running, as slurmd does after a restart:
     * each recorded under {@code state/jobs/<id>.pgid} with its launch, whose process still runs and
     * still looks like that job, is watched and controlled from now on and listed as running. A job
     * that ended while no agent watched is reported ended with the exit status it recorded. What
     * cannot be adopted (no launch on record) is killed, as {@link #killLeftovers()} does.
     *
     * @return how many jobs were adopted
     */
    synchronized int adoptLeftovers() {
        Path records = dirs.processRecords();
        if (!Files.isDirectory(records)) {
            return 0;
        }
        int adopted = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(records, "*.pgid")) {
            for (Path record : files) {
                String name = record.getFileName().toString();
                String jobId = name.substring(0, name.length() - ".pgid".length());
                Path launchFile = dirs.launchRecord(jobId);
                Launch launch = null;
                try {
                    launch = AgentJson.MAPPER.readValue(Files.readString(launchFile, StandardCharsets.UTF_8),
                            Launch.class);
                } catch (IOException | RuntimeException e) {
                    // an older agent's record, or none: the job cannot be adopted
                }
                long pid;
                try {
                    pid = Long.parseLong(Files.readString(record, StandardCharsets.UTF_8).strip());
                } catch (NumberFormatException e) {
                    log.warn("ignoring unreadable {}", record);
                    Files.deleteIfExists(record);
                    continue;
                }
                Optional<ProcessHandle> handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
                boolean alive = handle.isPresent() && ProcessGroups.alive(pid) && belongsToJob(pid, jobId);
                if (alive && launch != null && !running.containsKey(jobId)) {
                    try {
                        JobProcess job = JobProcess.adopt(launch, settings(), handle.get(), timers, reports,
                                this::ended);
                        running.put(jobId, job);
                        latestRun.put(jobId, launch.startTime());
                        job.outputFiles().ifPresent(f -> outputs.remember(jobId, f));
                        adopted++;
                        continue; // its records stay until it ends
                    } catch (JobProcess.StartFailure e) {
                        log.warn("job {}: cannot adopt it ({}); killing it", jobId, e.getMessage());
                    }
                }
                if (alive) {
                    ProcessGroups.signal(pid, "KILL");
                    log.warn("killed job {} (process group {}) left running by a previous agent run", jobId, pid);
                } else if (launch != null && !running.containsKey(jobId)) {
                    Report end = JobProcess.endedUnwatched(launch, dirs, clock, node);
                    log.info("job {} ended while the agent was down: {} exit code {}", jobId, end.state(),
                            end.exitCode());
                    reports.accept(end);
                }
                Files.deleteIfExists(record);
                Files.deleteIfExists(launchFile);
                if (Files.isDirectory(dirs.root().resolve("containers/run").resolve(jobId))) {
                    containers().endJob(jobId); // the containers of a job that ended while no agent watched
                }
            }
        } catch (IOException e) {
            log.warn("cannot look for jobs left by a previous agent run in {}: {}", records, e.toString());
        }
        return adopted;
    }

    /**
     * Kills every job an earlier agent run recorded under {@code state/jobs/<id>.pgid} whose process
     * group still exists (and still looks like that job), then forgets the record. The controller
     * learns from the next sync that those jobs are gone.
     *
     * @return how many groups were killed
     */
    int killLeftovers() {
        Path records = dirs.processRecords();
        if (!Files.isDirectory(records)) {
            return 0;
        }
        int killed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(records, "*.pgid")) {
            for (Path record : files) {
                String name = record.getFileName().toString();
                String jobId = name.substring(0, name.length() - ".pgid".length());
                try {
                    long pgid = Long.parseLong(Files.readString(record, StandardCharsets.UTF_8).strip());
                    if (ProcessGroups.alive(pgid) && belongsToJob(pgid, jobId)) {
                        ProcessGroups.signal(pgid, "KILL");
                        killed++;
                        log.warn("killed job {} (process group {}) left running by a previous agent run", jobId, pgid);
                    }
                } catch (NumberFormatException e) {
                    log.warn("ignoring unreadable {}", record);
                }
                Files.deleteIfExists(record);
            }
        } catch (IOException e) {
            log.warn("cannot look for jobs left by a previous agent run in {}: {}", records, e.toString());
        }
        return killed;
    }

    /**
     * Guards against a recycled process group id: the job's group leads its own session and its
     * processes carry {@code GANTRY_JOB_ID}. The first stage runs with nothing but {@code PATH} until it
     * execs the script, so a group that leads its session but shows no job environment yet is given up
     * to a second to show it (an agent restarted just as it launched the job).
     */
    private static boolean belongsToJob(long pgid, String jobId) {
        String variable = "GANTRY_JOB_ID=" + jobId;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (true) {
            boolean sessionLeader = ProcessGroups.members(pgid).stream().anyMatch(s -> s.session() == pgid);
            if (!sessionLeader) {
                return false;
            }
            if (ProcessGroups.anyMemberHasEnvironment(pgid, variable)) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /** Kills every job at once (the agent stops for good, or a test ends). */
    @Override
    public void close() {
        List<JobProcess> jobs;
        synchronized (this) {
            jobs = new ArrayList<>(running.values());
        }
        jobs.forEach(JobProcess::killNow);
        containerPreparer.shutdownNow();
        stepLauncher.shutdownNow();
        steps.killAll();
        timers.shutdownNow();
        usageSampler.shutdownNow();
    }
}
