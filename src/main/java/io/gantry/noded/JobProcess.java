package io.gantry.noded;

import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.AgentProtocol.JobIdentity;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.AgentProtocol.NodeSettings;
import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.AgentProtocol.ReportType;
import io.gantry.noded.protocol.AgentProtocol.Usage;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One batch script running on this node as its owner. Started in two stages so that nothing the
 * job controls ever runs as root:
 * <ol>
 * <li>as root, the agent resolves the owner's Unix account, writes the script and the job's
 * environment into a fresh {@code jobs/<id>/} (then hands it to the owner), and starts
 * {@code setsid setpriv --reuid --regid --groups -- bash -c STAGE} with an environment holding
 * nothing but {@code PATH};</li>
 * <li>as the owner, {@link BatchStage#STAGE} waits until the agent has put it into the job's fence (its
 * cgroup), then enters the working directory, opens the output files (with the job's umask, so a
 * path the owner may not write fails the job) and execs the script with exactly the job's
 * environment. Whatever goes wrong before the exec is written to the agent's pipe and ends the
 * job FAILED with that reason.</li>
 * </ol>
 * A time limit, cancel or preemption sends SIGTERM to every process of the job, then SIGKILL after
 * the kill wait; {@code --signal} warns ahead of the limit. When the script exits the fence is
 * killed empty, so no daemon it left behind survives, and the end is reported with the job's peak
 * memory and CPU time.
 */
final class JobProcess {

    private static final Logger log = LoggerFactory.getLogger(JobProcess.class);

    /** Why a job could not start; the detail goes to the controller with an ENDED FAILED report. */
    static final class StartFailure extends Exception {
        StartFailure(String detail) {
            super(detail);
        }
    }

    /** Makes a job's fence (its cgroup), or returns null when the node has none to offer. */
    @FunctionalInterface
    interface Fences {
        JobFence create(String jobId, long memoryBytes, List<Integer> cpus, GpuDevices.Grant gpus) throws IOException;

        /** A fence for a job on whole GPUs {@code gpus} only. */
        default JobFence create(String jobId, long memoryBytes, List<Integer> cpus, List<Integer> gpus)
                throws IOException {
            return create(jobId, memoryBytes, cpus, GpuDevices.Grant.whole(gpus));
        }

        /** The fence a job an earlier agent run started still has, or null. */
        default JobFence existing(String jobId) {
            return null;
        }

        /** As {@link #existing(String)}, for a job with the GPUs {@code gpus}. */
        default JobFence existing(String jobId, GpuDevices.Grant gpus) {
            return existing(jobId);
        }

        Fences NONE = (jobId, memoryBytes, cpus, gpus) -> null;
    }

    /**
     * Where and how the jobs of this node run; {@code controllers} are the controller URLs the agent
     * uses, which {@code srun} inside a job calls too.
     */
    record Settings(String node, AgentDirs dirs, Duration killWait, Clock clock, OomWatch oomWatch,
            NodeSettings nodeSettings, UnixAccount agentAccount, Fences fences, List<URI> controllers,
            List<String> migUuids) {

        NodeSettings nodeSettingsOrDefault() {
            return nodeSettings == null ? NodeSettings.DEFAULTS : nodeSettings;
        }
    }

    private final Launch launch;
    private final Settings settings;
    private final UnixAccount owner;
    private final String workdir;
    /** The second stage as this agent started it; null for a job adopted from an earlier agent run. */
    private final Process process;
    private final ProcessHandle handle;
    private final Path statusFile;
    private final JobFence fence;
    /** Frozen for a preemptor (PreemptMode SUSPEND) until it resumes. */
    private boolean suspended;
    /**
     * Time spent frozen so far (and since when, while frozen): the time limit counts only the time the
     * job ran, as Slurm extends a suspended job's end by the time it was suspended.
     */
    private long suspendedNanos;
    private long suspendedSince;
    private final Path processRecord;
    private final Signals.Warning warning;
    private final ScheduledExecutorService timers;
    private final long startedNanos;
    private long timeLimitSeconds;
    private ScheduledFuture<?> deadline;
    private ScheduledFuture<?> warningTimer;
    private ScheduledFuture<?> killTimer;
    private String stopState;
    private String stopDetail;
    private boolean exited;

    private JobProcess(Launch launch, Settings settings, UnixAccount owner, String workdir, Process process,
            ProcessHandle handle, JobFence fence, Path processRecord, ScheduledExecutorService timers,
            long startedNanos) {
        this.launch = launch;
        this.settings = settings;
        this.owner = owner;
        this.workdir = workdir;
        this.process = process;
        this.handle = handle;
        this.startedNanos = startedNanos;
        this.statusFile = settings.dirs().jobDir(launch.jobId()).resolve("status");
        this.fence = fence;
        this.processRecord = processRecord;
        this.warning = Signals.parse(launch.identityOrDefault().signal());
        this.timers = timers;
        this.timeLimitSeconds = launch.timeLimitSeconds();
    }

    /**
     * Prepares and starts the job, as described on the class. STARTED is reported once the second
     * stage has set up (or ENDED FAILED with its reason when it could not); the end is reported
     * ENDED and passed to {@code onEnd}.
     *
     * @param cpus the cores to pin the job to (empty: no pinning)
     */
    static JobProcess start(Launch launch, Settings settings, List<Integer> cpus, ScheduledExecutorService timers,
            Consumer<Report> reports, Consumer<JobProcess> onEnd) throws StartFailure {
        return start(launch, settings, cpus, timers, reports, onEnd, null);
    }

    /**
     * How a batch script runs in a container: the runtime command that runs it (the script mounted
     * inside), made once the job's environment and directory are known.
     */
    @FunctionalInterface
    interface InContainer {
        ContainerRuntime.Command command(UnixAccount owner, Map<String, String> env, String workdir, Path script)
                throws StartFailure;
    }

    /** As {@link #start(Launch, Settings, List, ScheduledExecutorService, Consumer, Consumer)}, in {@code container} when not null. */
    static JobProcess start(Launch launch, Settings settings, List<Integer> cpus, ScheduledExecutorService timers,
            Consumer<Report> reports, Consumer<JobProcess> onEnd, InContainer container) throws StartFailure {
        String node = settings.node();
        NodeSettings nodeSettings = settings.nodeSettings() == null ? NodeSettings.DEFAULTS : settings.nodeSettings();
        JobIdentity identity = launch.identityOrDefault();
        UnixAccount owner = owner(identity.unixUser(), settings.agentAccount(), nodeSettings, node);
        boolean switchUser = settings.agentAccount().root() && owner.uid() != settings.agentAccount().uid();

        String workdir = launch.workdir() == null || launch.workdir().isBlank() ? owner.home() : launch.workdir();
        BatchStage.Prepared prepared = BatchStage.prepare(launch, settings, owner, workdir, switchUser, container);
        PrologEpilog.run(nodeSettings.prolog(), "prolog", launch, owner, node, true);
        JobFence cgroup = FenceSetup.cgroup(launch, settings, cpus);
        ProcessBuilder builder = BatchStage.command(prepared, cgroup, owner, switchUser, umask(identity.umask()));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            FenceSetup.release(cgroup);
            throw new StartFailure("cannot start the batch script on " + node + ": " + e.getMessage());
        }
        JobFence fence = FenceSetup.enter(process, cgroup, settings);
        Path record = settings.dirs().processRecord(launch.jobId());
        try {
            Files.writeString(settings.dirs().launchRecord(launch.jobId()), AgentJson.MAPPER.writeValueAsString(launch),
                    StandardCharsets.UTF_8);
            Files.writeString(record, Long.toString(process.pid()), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            log.warn("job {}: cannot record its process in {}: {}", launch.jobId(), record, e.toString());
        }
        JobProcess job = new JobProcess(launch, settings, owner, workdir, process, process.toHandle(), fence, record,
                timers, System.nanoTime());
        log.info("job {} launched as {} (uid {}): pid {}, output {}", launch.jobId(), owner.name(), owner.uid(),
                process.pid(), prepared.stdout());
        Thread watcher = new Thread(() -> job.watch(reports, onEnd, owner), "job-" + launch.jobId());
        watcher.setDaemon(true);
        watcher.start();
        return job;
    }

    /**
     * Takes over a job an earlier run of this agent started and that still runs ({@code pid}, its
     * second stage): it is watched, stopped, warned and timed as if started here, and its end is
     * reported with the exit status the second stage recorded.
     */
    static JobProcess adopt(Launch launch, Settings settings, ProcessHandle handle, ScheduledExecutorService timers,
            Consumer<Report> reports, Consumer<JobProcess> onEnd) throws StartFailure {
        // the job passed the node's rules when it started; the agent only needs to know its account again
        UnixAccount owner = owner(launch.identityOrDefault().unixUser(), settings.agentAccount(),
                new NodeSettings(true, null, 60, false, null, null), settings.node());
        String workdir = launch.workdir() == null || launch.workdir().isBlank() ? owner.home() : launch.workdir();
        JobFence fence = settings.fences().existing(launch.jobId(), GpuDevices.Grant.of(launch));
        if (fence == null) {
            fence = new ProcessGroupFence(handle.pid(), settings.oomWatch());
        }
        long ranMillis = launch.startTime() == null ? 0
                : Math.max(0, Duration.between(launch.startTime(), settings.clock().instant()).toMillis());
        JobProcess job = new JobProcess(launch, settings, owner, workdir, null, handle, fence,
                settings.dirs().processRecord(launch.jobId()), timers,
                System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(ranMillis));
        log.info("job {}: adopted from an earlier agent run (pid {}, running for {} s)", launch.jobId(), handle.pid(),
                ranMillis / 1000);
        Thread watcher = new Thread(() -> job.watch(reports, onEnd, owner), "job-" + launch.jobId());
        watcher.setDaemon(true);
        watcher.start();
        return job;
    }

    /**
     * How a job that ended while no agent watched it ended: the status its second stage recorded,
     * or FAILED with the reason when it recorded none.
     */
    static Report endedUnwatched(Launch launch, AgentDirs dirs, Clock clock, String node) {
        OptionalInt code = BatchStage.recordedStatus(dirs.jobDir(launch.jobId()).resolve("status"));
        if (code.isEmpty()) {
            return new Report(launch.jobId(), ReportType.ENDED, clock.instant(), "FAILED", null, null,
                    "ended while the agent of " + node + " was down; its exit status is unknown", null,
                    launch.startTime());
        }
        int c = code.getAsInt();
        Integer signal = c > 128 && c <= 128 + 64 ? c - 128 : null;
        return new Report(launch.jobId(), ReportType.ENDED, clock.instant(), c == 0 ? "COMPLETED" : "FAILED",
                signal == null ? c : null, signal, null, null, launch.startTime());
    }

    String jobId() {
        return launch.jobId();
    }

    Launch launch() {
        return launch;
    }

    /** The Unix account the job runs as on this node. */
    UnixAccount owner() {
        return owner;
    }

    /** The job's working directory on this node (its owner's home when it named none). */
    String workdir() {
        return workdir;
    }

    /** Where the job writes its output and errors; empty when its working directory or patterns are no paths. */
    java.util.Optional<JobOutputFiles.Files> outputFiles() {
        try {
            return java.util.Optional.of(JobOutputFiles.of(launch, Path.of(workdir), settings.node(), owner));
        } catch (java.nio.file.InvalidPathException e) {
            return java.util.Optional.empty();
        }
    }

    /** What holds the job's processes: its step tasks on this node go into it too. */
    JobFence fence() {
        return fence;
    }

    long pid() {
        return handle.pid();
    }

    boolean running() {
        return handle.isAlive();
    }

    /**
     * Freezes the job's processes (suspended for its preemptor) or thaws them (resumed); false when it
     * has ended or is being stopped, or its fence could not.
     */
    synchronized boolean suspend(boolean frozen) {
        if (exited || stopState != null) {
            return false;
        }
        boolean done = fence.freeze(frozen);
        if (done && frozen && !suspended) {
            suspendedSince = System.nanoTime();
        } else if (done && !frozen && suspended) {
            suspendedNanos += System.nanoTime() - suspendedSince;
        }
        suspended = frozen && done;
        if (done) {
            // frozen: no time-limit timer runs; thawed: they count on from where the job was stopped
            armTimers();
        }
        return done;
    }

    /**
     * Stops the job: SIGTERM to all its processes now, SIGKILL after the kill wait if any is left.
     * It will be reported ended as {@code endState}. Only the first stop counts.
     */
    synchronized void stop(String endState, String detail) {
        if (exited || stopState != null) {
            return;
        }
        stopState = endState;
        stopDetail = detail;
        if (suspended) {
            // Thawed first, as Slurm sends SIGCONT: a frozen job would not see its SIGTERM until the kill.
            fence.freeze(false);
            suspended = false;
        }
        Set<Long> signalled = signalAll("TERM");
        // a stop that came while the second stage was starting the script: the script's shell was not
        // there to be signalled yet
        for (long delay : new long[] {200, 1000}) {
            timers.schedule(() -> {
                long shell = batchShell();
                synchronized (this) {
                    if (!exited && shell != handle.pid() && signalled.add(shell)) {
                        Signals.send(Set.of(shell), "TERM");
                    }
                }
            }, delay, TimeUnit.MILLISECONDS);
        }
        killTimer = timers.schedule(this::killNow, Math.max(0, settings.killWait().toMillis()), TimeUnit.MILLISECONDS);
    }

    /**
     * Sends {@code signal} to the batch shell alone ({@code scancel -b}); false when there is none to
     * signal (the script has ended, or has not started yet).
     */
    synchronized boolean signalBatchShell(String signal) {
        long shell = batchShell();
        if (exited || shell == handle.pid()) {
            return false;
        }
        Signals.send(Set.of(shell), signal);
        return true;
    }

    /**
     * Sends {@code signal} to the batch step's processes here: the batch shell (unless
     * {@code withShell} is false) and everything it started, never the second stage that watches it,
     * nor the processes in {@code others} (the srun steps' tasks, signalled on their own).
     *
     * @return how many processes it went to
     */
    synchronized int signalBatchStep(String signal, boolean withShell, Set<Long> others) {
        if (exited) {
            return 0;
        }
        Set<Long> targets = new HashSet<>(fence.pids());
        targets.remove(handle.pid());
        targets.removeAll(others);
        if (!withShell) {
            targets.remove(batchShell());
        }
        Signals.send(targets, signal);
        return targets.size();
    }

    /** SIGKILL to every process of the job at once (the agent is shutting down its jobs). */
    void killNow() {
        fence.killAll();
        if (handle.isAlive()) {
            handle.destroyForcibly();
        }
    }

    /** A new time limit (seconds from the job's start, 0 for none), as a PATCH of the job set it. */
    synchronized void updateTimeLimit(long seconds) {
        if (exited) {
            return;
        }
        timeLimitSeconds = Math.max(0, seconds);
        log.info("job {}: time limit now {} s", launch.jobId(), timeLimitSeconds);
        armTimers();
    }

    private synchronized void armTimers() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
        if (warningTimer != null) {
            warningTimer.cancel(false);
            warningTimer = null;
        }
        long limit = timeLimitSeconds;
        if (limit <= 0 || suspended) {
            return;
        }
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos - suspendedNanos);
        deadline = timers.schedule(() -> stop("TIMEOUT", "time limit of " + limit + " s reached on "
                + settings.node()), Math.max(0, limit * 1000 - elapsedMillis), TimeUnit.MILLISECONDS);
        if (warning != null) {
            long at = Math.max(0, (limit - warning.secondsBefore()) * 1000 - elapsedMillis);
            warningTimer = timers.schedule(this::warn, at, TimeUnit.MILLISECONDS);
        }
    }

    /** {@code --signal}: to the batch shell alone with {@code B:}, otherwise to the job's other processes. */
    private void warn() {
        synchronized (this) {
            if (exited || stopState != null) {
                return;
            }
        }
        Set<Long> targets = new HashSet<>();
        long batchShell = batchShell();
        if (warning.batchOnly()) {
            targets.add(batchShell);
        } else {
            targets.addAll(fence.pids());
            targets.remove(handle.pid());
            targets.remove(batchShell);
        }
        log.info("job {}: sending SIG{} {} s before its time limit", launch.jobId(), warning.signal(),
                warning.secondsBefore());
        Signals.send(targets, warning.signal());
    }

    /** The batch script's shell: the second stage's child (it is the stage itself until it has one). */
    private long batchShell() {
        long pid = handle.pid();
        try {
            String children = Files.readString(Path.of("/proc", Long.toString(pid), "task", Long.toString(pid),
                    "children"), StandardCharsets.UTF_8).strip();
            if (!children.isEmpty()) {
                return Long.parseLong(children.split("\\s+")[0]);
            }
        } catch (IOException | RuntimeException e) {
            // no /proc children list: the stage itself
        }
        return pid;
    }

    private void watch(Consumer<Report> reports, Consumer<JobProcess> onEnd, UnixAccount owner) {
        String failure = process == null ? null : BatchStage.setupFailure(process);
        if (process == null) {
            armTimers();
        } else if (failure == null) {
            reports.accept(new Report(launch.jobId(), ReportType.STARTED, settings.clock().instant(), null, null,
                    null, null, null, launch.startTime()));
            armTimers();
        }
        int code = awaitExit();
        boolean oom = fence.oomKilled();
        fence.killAll(); // whatever the script left behind
        Usage usage = new Usage(orNull(fence.peakMemoryBytes()), orNull(fence.cpuTimeMillis()));
        FenceSetup.release(fence);
        String state;
        Integer exitCode;
        Integer signal = code > 128 && code <= 128 + 64 ? code - 128 : null;
        String detail;
        synchronized (this) {
            exited = true;
            for (ScheduledFuture<?> timer : new ScheduledFuture<?>[] {deadline, warningTimer, killTimer}) {
                if (timer != null) {
                    timer.cancel(false);
                }
            }
            if (failure != null) {
                state = "FAILED";
                detail = failure + " (on " + settings.node() + ")";
                exitCode = 1;
                signal = null;
            } else if (stopState != null) {
                state = stopState;
                detail = stopDetail;
                exitCode = signal == null && code >= 0 ? code : null;
            } else if (code < 0) {
                state = "FAILED";
                detail = "its exit status was not recorded on " + settings.node() + " (the agent restarted while it ran)";
                exitCode = null;
            } else if (oom) {
                state = "OUT_OF_MEMORY";
                detail = "a process of the job was killed by the OOM killer on " + settings.node()
                        + " (memory limit " + launch.memoryMbOnNode() + " MB)";
                exitCode = signal == null ? code : null;
            } else if (code == 0) {
                state = "COMPLETED";
                detail = null;
                exitCode = 0;
            } else {
                state = "FAILED";
                detail = null;
                exitCode = signal == null ? code : null;
            }
        }
        try {
            Files.deleteIfExists(processRecord);
            Files.deleteIfExists(settings.dirs().launchRecord(launch.jobId()));
        } catch (IOException e) {
            log.warn("job {}: cannot delete {}: {}", launch.jobId(), processRecord, e.toString());
        }
        NodeSettings nodeSettings = settings.nodeSettings() == null ? NodeSettings.DEFAULTS : settings.nodeSettings();
        try {
            PrologEpilog.run(nodeSettings.epilog(), "epilog", launch, owner, settings.node(), false);
        } catch (StartFailure e) {
            log.warn("job {}: {}", launch.jobId(), e.getMessage());
        }
        log.info("job {} ended: {} exit code {} signal {}", launch.jobId(), state, exitCode, signal);
        reports.accept(new Report(launch.jobId(), ReportType.ENDED, settings.clock().instant(), state, exitCode,
                exitCode == null ? signal : null, detail, usage, launch.startTime()));
        onEnd.accept(this);
    }

    /** The second stage's exit code; for an adopted job the status it recorded, or -1 when it recorded none. */
    private int awaitExit() {
        while (true) {
            try {
                if (process != null) {
                    return process.waitFor();
                }
                handle.onExit().get();
                return BatchStage.recordedStatus(statusFile).orElse(-1);
            } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
                // the watcher lives until its script ends
            }
        }
    }

    private Set<Long> signalAll(String name) {
        Set<Long> pids = new HashSet<>(fence.pids());
        pids.add(handle.pid());
        Signals.send(pids, name);
        return java.util.Collections.synchronizedSet(pids);
    }

    static UnixAccount owner(String unixUser, UnixAccount agent, NodeSettings nodeSettings, String node)
            throws StartFailure {
        if (!agent.root()) {
            if (unixUser != null && !unixUser.equals(agent.name())) {
                throw new StartFailure("the agent of " + node + " does not run as root, so it runs jobs only as "
                        + agent.name() + ", not as " + unixUser);
            }
            return agent;
        }
        if (unixUser == null || unixUser.isBlank()) {
            throw new StartFailure("the job names no user to run as");
        }
        UnixAccount owner;
        try {
            owner = UnixAccount.lookup(unixUser).orElseThrow(() -> new StartFailure("user " + unixUser
                    + " has no Unix account on " + node));
        } catch (IOException e) {
            throw new StartFailure("cannot look up user " + unixUser + " on " + node + ": " + e.getMessage());
        }
        if (owner.uid() == 0 && !nodeSettings.allowRootJobs()) {
            throw new StartFailure("jobs may not run as root (user " + unixUser + " is uid 0 on " + node
                    + "; see gantry.agents.allow-root-jobs)");
        }
        return owner;
    }

    /**
     * The job's environment on this node: the owner's basics, the job's variables, and the commands
     * the agent offers its jobs ({@code srun}) first on the PATH.
     */
    static Map<String, String> environment(Launch launch, Settings settings, String workdir, UnixAccount owner) {
        Map<String, String> env = JobEnvironment.basics(owner);
        JobEnvironment.apply(env, launch, settings.node(), workdir,
                settings.migUuids() == null ? List.of() : settings.migUuids());
        JobEnvironment.owner(env, owner);
        env.put("SLURM_UMASK", umask(launch.identityOrDefault().umask()));
        JobEnvironment.tools(env, settings.dirs().bin(), settings.controllers());
        return env;
    }

    static String umask(String umask) {
        return umask != null && umask.matches("0?[0-7]{3}") ? umask : "0077";
    }

    private static Long orNull(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : null;
    }
}
