package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import io.gantry.noded.protocol.AgentProtocol.StepTask;
import io.gantry.noded.protocol.AgentProtocol.StepTasks;
import io.gantry.noded.protocol.PmiProtocol;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The step tasks running on this node, by job. A task runs as the job's owner inside the job's
 * fence: the batch script's where the script runs here; on the job's other nodes a fence of the
 * job's own, made for its first task (under the same cgroup name, with the job's memory on this
 * node from {@code SLURM_MEM_PER_NODE} and its GPUs from {@code SLURM_JOB_GPUS}) and released with
 * its last, so nothing is left once the job's tasks are gone.
 * <p>
 * On a node without the batch script the owner comes from the step's {@code SLURM_JOB_USER} (the
 * Unix account, as the batch script's environment names it) and the umask from {@code SLURM_UMASK}.
 */
final class JobSteps {

    private static final Logger log = LoggerFactory.getLogger(JobSteps.class);
    /** How many launched steps and step-only jobs are remembered, to ignore repeats. */
    private static final int REMEMBERED = 10_000;

    private final ScheduledExecutorService timers;
    private final Consumer<StepReport> reports;
    /** Serves PMI to the tasks of {@code srun --mpi=pmi2} steps; listens from the first such step on. */
    private final PmiServer pmi;
    private final Map<String, JobTasks> jobs = new HashMap<>();
    private final Set<String> launched = new LinkedHashSet<>();
    private final Set<String> stepOnlyJobs = new LinkedHashSet<>();
    /** Numbers step launches as they are asked for and jobs' stops as they happen, in one order. */
    private final AtomicLong sequence = new AtomicLong();
    /** Each job's latest stop here, by {@link #sequence}: a launch asked for before it must not start. */
    private final Map<String, Long> stopped = new LinkedHashMap<>();
    private boolean closed;

    /** One job's tasks on this node, and the fence they run in. */
    private static final class JobTasks {
        final JobFence fence;
        /** Made for the tasks (no batch script here): released with the last of them. */
        final boolean own;
        final List<TaskProcess> tasks = new ArrayList<>();

        JobTasks(JobFence fence, boolean own) {
            this.fence = fence;
            this.own = own;
        }
    }

    JobSteps(ScheduledExecutorService timers, Consumer<StepReport> reports) {
        this.timers = timers;
        this.reports = reports;
        this.pmi = new PmiServer(reports);
    }

    /**
     * The number of a launch asked for now, to start later (on the agent's step launcher, off its poll
     * loop): a kill of its job that comes in between stops it from starting, as it would have killed
     * its tasks had they started at once.
     */
    long ticket() {
        return sequence.incrementAndGet();
    }

    /**
     * Starts this node's tasks of a step asked for with {@code ticket}. A task that cannot start is
     * reported ENDED with exit code 1 and the reason, and so is every task when its job was stopped
     * here since the ticket; a repeat of a step already launched here is ignored.
     *
     * @param batch the job's batch script when it runs on this node, else null
     */
    synchronized void launch(StepTasks step, JobProcess batch, JobProcess.Settings settings, long ticket) {
        launch(step, batch, settings, ticket, null);
    }

    /** How a step's tasks run in a container: the command each task's second stage execs instead of its own. */
    @FunctionalInterface
    interface InContainer {
        List<String> argv(TaskProcess.Spec spec, StepTask task) throws JobProcess.StartFailure;
    }

    /** As {@link #launch(StepTasks, JobProcess, JobProcess.Settings, long)}, each task in {@code container} when not null. */
    synchronized void launch(StepTasks step, JobProcess batch, JobProcess.Settings settings, long ticket,
            InContainer container) {
        List<StepTask> tasks = step.tasks() == null ? List.of() : step.tasks();
        if (tasks.isEmpty() || !remember(launched, step.jobId() + "." + step.stepId())) {
            return;
        }
        if (closed || stopped.getOrDefault(step.jobId(), 0L) > ticket) {
            tasks.forEach(t -> failed(step, t.procId(), "the job was stopped on " + settings.node()
                    + " before the step started"));
            return;
        }
        Map<String, String> stepEnv = step.environment() == null ? Map.of() : step.environment();
        String node = settings.node();
        UnixAccount owner;
        String umask;
        Map<String, String> base;
        String workdir;
        JobTasks job;
        try {
            if (batch != null) {
                owner = batch.owner();
                umask = JobProcess.umask(batch.launch().identityOrDefault().umask());
                base = JobProcess.environment(batch.launch(), settings, batch.workdir(), owner);
                workdir = batch.workdir();
            } else {
                owner = JobProcess.owner(stepEnv.get("SLURM_JOB_USER"), settings.agentAccount(),
                        settings.nodeSettingsOrDefault(), node);
                umask = JobProcess.umask(stepEnv.get("SLURM_UMASK"));
                base = JobEnvironment.basics(owner);
                workdir = owner.home();
            }
            if (step.workdir() != null && !step.workdir().isBlank()) {
                workdir = step.workdir();
            }
            job = jobTasks(step.jobId(), batch, stepEnv, settings);
        } catch (JobProcess.StartFailure e) {
            tasks.forEach(t -> failed(step, t.procId(), e.getMessage() + " (on " + node + ")"));
            return;
        }
        boolean switchUser = settings.agentAccount().root() && owner.uid() != settings.agentAccount().uid();
        Map<Integer, Map<String, String>> pmiEnv = Map.of();
        if (PmiProtocol.PMI2.equals(stepEnv.get("SLURM_MPI_TYPE"))) {
            try {
                pmiEnv = pmi.open(step.jobId(), step.stepId(), (int) number(stepEnv.get("SLURM_STEP_NUM_TASKS")),
                        PmiWire.tasksPerNode(stepEnv.get("SLURM_STEP_TASKS_PER_NODE")),
                        tasks.stream().map(StepTask::procId).toList(), owner.uid());
            } catch (IOException e) {
                tasks.forEach(t -> failed(step, t.procId(), "cannot serve PMI to the step's tasks: " + e.getMessage()
                        + " (on " + node + ")"));
                if (job.tasks.isEmpty()) {
                    drop(step.jobId(), job);
                }
                return;
            }
        }
        for (StepTask task : tasks) {
            Map<String, String> env = new LinkedHashMap<>(base);
            stepEnv.forEach((k, v) -> {
                if (k != null && v != null) {
                    env.put(k, v);
                }
            });
            taskEnvironment(env, step, task, node, owner);
            env.putAll(pmiEnv.getOrDefault(task.procId(), Map.of()));
            JobEnvironment.tools(env, settings.dirs().bin(), settings.controllers());
            TaskProcess.Spec spec = new TaskProcess.Spec(step.jobId(), step.stepId(), task.procId(), owner, switchUser,
                    umask, workdir, step.argv(), env, task.stdin());
            try {
                if (container != null) {
                    spec = new TaskProcess.Spec(spec.jobId(), spec.stepId(), spec.procId(), spec.owner(),
                            spec.switchUser(), spec.umask(), spec.workdir(), container.argv(spec, task),
                            spec.environment(), spec.stdin());
                }
                job.tasks.add(TaskProcess.start(spec, job.fence, timers, reports, this::ended));
            } catch (JobProcess.StartFailure e) {
                failed(step, task.procId(), e.getMessage() + " (on " + node + ")");
            } catch (RuntimeException e) {
                log.error("step {}.{}: unexpected failure while starting task {}", step.jobId(), step.stepId(),
                        task.procId(), e);
                failed(step, task.procId(), "the agent of " + node + " could not start it: " + e);
            }
        }
        if (job.tasks.stream().noneMatch(t -> t.stepId() == step.stepId())) {
            pmi.release(step.jobId(), step.stepId());
        }
        if (job.tasks.isEmpty()) {
            drop(step.jobId(), job);
        } else {
            log.info("step {}.{}: started {} task(s) on {} as {}", step.jobId(), step.stepId(), job.tasks.size(), node,
                    owner.name());
        }
    }

    /**
     * Sends {@code signal} to every task of the step here; TERM is followed by KILL after the kill wait
     * for any task still running.
     */
    synchronized void signal(String jobId, int stepId, String signal, Duration killWait) {
        String name = signalName(signal);
        if (name == null) {
            log.warn("step {}.{}: ignoring the unknown signal '{}'", jobId, stepId, signal);
            return;
        }
        JobTasks job = jobs.get(jobId);
        if (job == null) {
            return;
        }
        List<TaskProcess> targets = job.tasks.stream().filter(t -> t.stepId() == stepId).toList();
        log.info("step {}.{}: SIG{} to {} task(s)", jobId, stepId, name, targets.size());
        terminate(targets, name, killWait);
    }

    /** Writes srun's input to the task it is for (a task that reads /dev/null, or is gone, takes none). */
    synchronized void input(AgentProtocol.StepInput input) {
        JobTasks job = jobs.get(input.jobId());
        if (job == null) {
            return;
        }
        byte[] data;
        try {
            data = input.data() == null ? new byte[0] : java.util.Base64.getDecoder().decode(input.data());
        } catch (IllegalArgumentException e) {
            log.warn("step {}.{}: ignoring input that is not base64", input.jobId(), input.stepId());
            return;
        }
        job.tasks.stream().filter(t -> t.stepId() == input.stepId() && t.procId() == input.procId()).findFirst()
                .ifPresent(t -> t.input(input.seq(), data, input.eof(), input.rows(), input.cols()));
    }

    /**
     * Stops every task of the job here: SIGTERM now, SIGKILL after the kill wait.
     *
     * @return whether the job ran step tasks on this node without its batch script (then it has no
     *         batch to report ended here)
     */
    synchronized boolean kill(String jobId, Duration killWait) {
        stopping(jobId);
        JobTasks job = jobs.get(jobId);
        if (job != null) {
            terminate(List.copyOf(job.tasks), "TERM", killWait);
        }
        return stepOnlyJobs.remove(jobId);
    }

    /** SIGKILL to every task of the job at once (its batch script is over). */
    synchronized void killNow(String jobId) {
        stopping(jobId);
        JobTasks job = jobs.get(jobId);
        if (job != null) {
            job.tasks.forEach(t -> t.signal("KILL"));
        }
    }

    /** SIGKILL to every task here (the agent stops). */
    synchronized void killAll() {
        closed = true;
        jobs.values().forEach(job -> job.tasks.forEach(t -> t.signal("KILL")));
        pmi.close();
    }

    /** A PMI_FENCE command: fence {@code step.nodeId} of an {@code srun --mpi=pmi2} step is complete everywhere. */
    void pmiFence(StepTasks step) {
        if (step.nodeId() != null) {
            pmi.fenceDone(step.jobId(), step.stepId(), step.nodeId(), step.environment());
        }
    }

    /**
     * Sends {@code signal} to every task of the job here (each task's process group), and nothing
     * after it: a signal a user sent, not a stop.
     */
    synchronized void signalTasks(String jobId, String signal) {
        JobTasks job = jobs.get(jobId);
        if (job != null) {
            job.tasks.forEach(t -> t.signal(signal));
        }
    }

    /**
     * Freezes or thaws the job's tasks on a node where its batch does not run (their own fence); false
     * when there are none.
     */
    synchronized boolean freeze(String jobId, boolean frozen) {
        JobTasks job = jobs.get(jobId);
        return job != null && job.own && job.fence != null && job.fence.freeze(frozen);
    }

    /** The processes of the job's tasks here: each task and what runs in its process group. */
    synchronized Set<Long> taskPids(String jobId) {
        JobTasks job = jobs.get(jobId);
        if (job == null) {
            return Set.of();
        }
        Set<Long> pids = new java.util.HashSet<>();
        for (TaskProcess task : job.tasks) {
            pids.add(task.pid());
            ProcessGroups.members(task.pid()).forEach(member -> pids.add(member.pid()));
        }
        return pids;
    }

    /**
     * This node's running tasks of step {@code stepId} of the job, or of every step of every job when
     * {@code jobId} is null: what the usage meter reads.
     */
    synchronized List<StepUsageMeter.Target> usageTargets(String jobId, Integer stepId) {
        List<StepUsageMeter.Target> targets = new ArrayList<>();
        jobs.forEach((id, job) -> {
            if (jobId == null || jobId.equals(id)) {
                for (TaskProcess task : job.tasks) {
                    if (task.running() && (stepId == null || task.stepId() == stepId)) {
                        targets.add(new StepUsageMeter.Target(id, task.stepId(), task.procId(), task.pid(), null));
                    }
                }
            }
        });
        return targets;
    }

    /** The jobs with tasks running on this node. */
    synchronized Set<String> jobsWithTasks() {
        return Set.copyOf(jobs.keySet());
    }

    /** Records a stop of the job: launches asked for before it do not start. */
    private void stopping(String jobId) {
        stopped.remove(jobId);
        stopped.put(jobId, sequence.incrementAndGet());
        if (stopped.size() > REMEMBERED) {
            Iterator<String> oldest = stopped.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
    }

    private void terminate(List<TaskProcess> targets, String signal, Duration killWait) {
        targets.forEach(t -> t.signal(signal));
        if (signal.equals("TERM") && !targets.isEmpty()) {
            timers.schedule(() -> targets.stream().filter(TaskProcess::running).forEach(t -> t.signal("KILL")),
                    Math.max(0, killWait.toMillis()), TimeUnit.MILLISECONDS);
        }
    }

    private JobTasks jobTasks(String jobId, JobProcess batch, Map<String, String> stepEnv,
            JobProcess.Settings settings) throws JobProcess.StartFailure {
        JobTasks job = jobs.get(jobId);
        if (job != null) {
            return job;
        }
        if (batch != null) {
            job = new JobTasks(batch.fence(), false);
        } else {
            long memoryMb = number(stepEnv.get("SLURM_MEM_PER_NODE"));
            List<Integer> gpus = indices(stepEnv.getOrDefault("SLURM_JOB_GPUS", stepEnv.get("CUDA_VISIBLE_DEVICES")));
            JobFence fence;
            try {
                fence = settings.fences().create(jobId, memoryMb * 1024 * 1024, List.of(), gpus);
            } catch (IOException | RuntimeException e) {
                throw new JobProcess.StartFailure("cannot create the job's cgroup: " + e.getMessage());
            }
            job = new JobTasks(fence, true);
            remember(stepOnlyJobs, jobId);
        }
        jobs.put(jobId, job);
        return job;
    }

    /** Told of each step whose last task here ended (its unnamed container can go). */
    void onStepOver(java.util.function.BiConsumer<String, Integer> listener) {
        this.stepOver = listener;
    }

    private volatile java.util.function.BiConsumer<String, Integer> stepOver = (jobId, stepId) -> { };

    private synchronized void ended(TaskProcess task) {
        JobTasks job = jobs.get(task.jobId());
        if (job != null && job.tasks.remove(task)) {
            if (job.tasks.stream().noneMatch(t -> t.stepId() == task.stepId())) {
                pmi.release(task.jobId(), task.stepId());
                stepOver.accept(task.jobId(), task.stepId());
            }
            if (job.tasks.isEmpty()) {
                drop(task.jobId(), job);
            }
        }
    }

    private void drop(String jobId, JobTasks job) {
        jobs.remove(jobId, job);
        if (job.own && job.fence != null) {
            try {
                job.fence.killAll();
                job.fence.release();
            } catch (RuntimeException e) {
                log.warn("job {}: cannot release the cgroup of its step tasks: {}", jobId, e.toString());
            }
        }
    }

    private void failed(StepTasks step, int procId, String why) {
        log.info("step {}.{}: task {} could not start: {}", step.jobId(), step.stepId(), procId, why);
        reports.accept(new StepReport(step.jobId(), step.stepId(), procId, StepReportType.ENDED, null, 0, why, 1,
                null));
    }

    /** What each task sees on top of the job's and the step's environment. */
    private static void taskEnvironment(Map<String, String> env, StepTasks step, StepTask task, String node,
            UnixAccount owner) {
        JobEnvironment.owner(env, owner);
        env.putIfAbsent("SLURM_STEP_ID", Integer.toString(step.stepId()));
        env.putIfAbsent("SLURM_STEPID", Integer.toString(step.stepId()));
        env.put("SLURM_PROCID", Integer.toString(task.procId()));
        env.put("SLURM_LOCALID", Integer.toString(task.localId()));
        if (step.nodeId() != null) {
            env.put("SLURM_NODEID", Integer.toString(step.nodeId()));
        }
        env.put("SLURMD_NODENAME", node);
        if (task.gpuIndices() != null && !task.gpuIndices().isEmpty()) {
            String gpus = task.gpuIndices().stream().map(String::valueOf).collect(Collectors.joining(","));
            env.put("CUDA_VISIBLE_DEVICES", gpus);
            env.put("GPU_DEVICE_ORDINAL", gpus);
        }
    }

    /** TERM, SIGTERM, 15 as {@code kill -s} takes them, or null for what is no signal. */
    static String signalName(String signal) {
        if (signal == null || signal.isBlank()) {
            return null;
        }
        String name = signal.strip().toUpperCase(Locale.ROOT);
        if (name.startsWith("SIG")) {
            name = name.substring(3);
        }
        return Signals.parse(name) == null ? null : name;
    }

    private static boolean remember(Set<String> set, String key) {
        if (!set.add(key)) {
            return false;
        }
        if (set.size() > REMEMBERED) {
            Iterator<String> oldest = set.iterator();
            oldest.next();
            oldest.remove();
        }
        return true;
    }

    private static long number(String s) {
        try {
            return s == null ? 0 : Math.max(0, Long.parseLong(s.strip()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static List<Integer> indices(String s) {
        if (s == null || s.isBlank()) {
            return List.of();
        }
        List<Integer> gpus = new ArrayList<>();
        for (String part : s.split(",")) {
            try {
                gpus.add(Integer.parseInt(part.strip()));
            } catch (NumberFormatException e) {
                // a UUID or a name: not an index the fence can use
            }
        }
        return gpus;
    }
}
