package io.gantry.steps;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.web.context.request.async.DeferredResult;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import io.gantry.noded.protocol.AgentProtocol.StepTask;
import io.gantry.noded.protocol.AgentProtocol.StepTasks;
import io.gantry.noded.protocol.PmiProtocol;
import io.gantry.noded.protocol.StepProtocol;
import io.gantry.noded.protocol.StepProtocol.StepCreated;
import io.gantry.noded.protocol.StepProtocol.StepIo;
import io.gantry.noded.protocol.StepProtocol.StepRequest;
import io.gantry.api.GantryException;
import io.gantry.api.GantryException.FieldError;
import io.gantry.api.ProblemType;
import io.gantry.engine.Hostlist;
import io.gantry.engine.TaskCounts;
import io.gantry.jobs.ContainerFlags;
import io.gantry.jobs.HostedJobs;
import io.gantry.jobs.HostedJobs.HostedJob;
import io.gantry.jobs.JobAllocation;
import io.gantry.jobs.JobCancelRequested;
import io.gantry.jobs.JobService;
import io.gantry.jobs.JobState;
import io.gantry.jobs.JobViews.JobView;
import io.gantry.scheduling.JobEnded;
import io.gantry.security.CurrentUser;
import io.gantry.steps.StepViews.StepView;

/**
 * Job steps on the leader: creates them inside their job's allocation ({@link StepLayout}), sends each
 * node its tasks, relays the tasks' output and exits to srun ({@link StepRun}), records every step in
 * the store, and stops running steps on every node of them when their job ends.
 */
@Service
public class StepService {

    private static final Logger log = LoggerFactory.getLogger(StepService.class);
    /** How long srun gets to read an ended step's last output. */
    private static final long KEEP_ENDED_MILLIS = 10 * 60 * 1000L;
    static final long POLL_MILLIS = 20_000;
    private static final Set<String> SIGNALS = Set.of("HUP", "INT", "QUIT", "KILL", "USR1", "USR2", "TERM", "CONT",
            "STOP", "TSTP", "ALRM");
    /** Per-task variables the agent sets on each node: the batch host's values must not leak to the others. */
    private static final Set<String> PER_TASK = Set.of("SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID",
            "SLURMD_NODENAME", "CUDA_VISIBLE_DEVICES", "SLURM_GPUS_ON_NODE", "SLURM_TASK_PID");

    private final HostedJobs hosted;
    private final JobService jobService;
    private final StepStore store;
    private final NodeAddresses addresses;
    private final ApplicationEventPublisher events;
    private final Clock clock;
    /** Slurm's MpiDefault: the MPI type of a step whose srun names none ({@code gantry.steps.mpi-default}). */
    private final String mpiDefault;
    /** job row -> step id -> its run; a job's entry exists once its running steps were loaded from the store. */
    private final Map<Long, Map<Integer, StepRun>> runs = new ConcurrentHashMap<>();
    /**
     * Numbers step input from the clock's microseconds on, so a new leader's numbers follow the old
     * one's and the agent, which writes each number once, takes them.
     */
    private final java.util.concurrent.atomic.AtomicLong inputSeq = new java.util.concurrent.atomic.AtomicLong();

    StepService(HostedJobs hosted, JobService jobService, StepStore store, NodeAddresses addresses,
            ApplicationEventPublisher events, Clock clock,
            @Value("${gantry.steps.mpi-default:none}") String mpiDefault) {
        this.mpiDefault = StepLayout.mpi(mpiDefault);
        this.hosted = hosted;
        this.jobService = jobService;
        this.store = store;
        this.addresses = addresses;
        this.events = events;
        this.clock = clock;
    }

    /**
     * A new step of job {@code id}: asked with the job's own credential (srun inside the allocation),
     * or by the job's owner with their login token ({@code srun --jobid=N} from a login node).
     */
    StepCreated create(String id, StepRequest request, CurrentUser caller) {
        HostedJob job = CurrentUser.credentialJob().isPresent() ? jobOfCredential(id) : jobOfOwner(id, caller);
        validate(request);
        if (job.state() != JobState.RUNNING) {
            throw GantryException.conflict("srun: error: Unable to create step for job " + job.id()
                    + ": Job/step already completing or completed");
        }
        JobView view = hosted.views(List.of(job.row())).get(0);
        if (view.allocation() == null || view.allocation().isEmpty()) {
            throw GantryException.conflict("srun: error: Unable to create step for job " + job.id()
                    + ": Job has no allocation");
        }
        String mpi = StepLayout.mpi(request.mpi() != null ? request.mpi() : mpiDefault);
        StepRun run;
        StepLayout.Plan plan;
        synchronized (lock(job.row())) {
            Map<Integer, StepRun> ofJob = loaded(job.row());
            purge(ofJob);
            Map<String, StepLayout.Hold> held = held(ofJob.values());
            plan = StepLayout.plan(job.id(), view.allocation(), view.cpusPerTask(), request, held);
            int stepId = store.nextId(job.row());
            List<String> argv = List.copyOf(request.argv());
            String name = request.name() != null && !request.name().isBlank() ? request.name()
                    : defaultName(argv.get(0));
            StepRecord record = new StepRecord(job.row(), job.id(), stepId, name, argv, plan.nodes(),
                    plan.tasks(), plan.cpusPerTask(), plan.shares().stream().map(StepLayout.Share::tasks).toList(),
                    resources(plan), request.overlap(), JobState.RUNNING, null, clock.instant(), null,
                    request.container(), null);
            store.insert(record);
            run = new StepRun(record);
            if (PmiProtocol.PMI2.equals(mpi)) {
                run.pmi();
            }
            ofJob.put(stepId, run);
        }
        StepRecord step = run.step;
        plan.warnings().forEach(w -> log.info("Job {} step {}: {}", job.id(), step.stepId(), w));
        events.publishEvent(new StepCommands(launches(view, step, plan, request, mpi), view.user()));
        events.publishEvent(new StepChanged(job.id(), job.id() + "." + step.stepId(), JobState.RUNNING.name()));
        List<List<Integer>> ranks = new ArrayList<>();
        int first = 0;
        for (int count : step.layout()) {
            List<Integer> r = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                r.add(first + i);
            }
            ranks.add(r);
            first += count;
        }
        return new StepCreated(step.stepId(), Hostlist.of(step.nodes()).toString(), step.nodes(), ranks);
    }

    /** The STEP_LAUNCH of each node: its tasks, and the environment Slurm gives a step's tasks. */
    private Map<String, List<Command>> launches(JobView job, StepRecord step, StepLayout.Plan plan,
            StepRequest request, String mpi) {
        Map<String, String> base = exported(request);
        PmiRelay.environment(base, mpi);
        List<String> jobNodes = job.allocation().stream().map(JobAllocation::node).toList();
        String jobNodelist = Hostlist.of(jobNodes).toString();
        String stepNodelist = Hostlist.of(step.nodes()).toString();
        String tasksPerNode = TaskCounts.compressed(step.layout());
        base.put("SLURM_JOB_ID", Long.toString(job.jobId()));
        base.put("SLURM_JOBID", Long.toString(job.jobId()));
        base.put("SLURM_STEP_ID", Integer.toString(step.stepId()));
        base.put("SLURM_STEPID", Integer.toString(step.stepId()));
        base.put("SLURM_STEP_NODELIST", stepNodelist);
        base.put("SLURM_STEP_NUM_NODES", Integer.toString(step.nodes().size()));
        base.put("SLURM_STEP_NUM_TASKS", Integer.toString(step.tasks()));
        base.put("SLURM_STEP_TASKS_PER_NODE", tasksPerNode);
        base.put("SLURM_NTASKS", Integer.toString(step.tasks()));
        base.put("SLURM_NPROCS", Integer.toString(step.tasks()));
        base.put("SLURM_TASKS_PER_NODE", tasksPerNode);
        base.put("SLURM_JOB_NODELIST", jobNodelist);
        base.put("SLURM_NODELIST", jobNodelist);
        base.put("SLURM_JOB_NUM_NODES", Integer.toString(jobNodes.size()));
        base.put("SLURM_JOB_CPUS_PER_NODE",
                TaskCounts.compressed(job.allocation().stream().map(JobAllocation::cpus).toList()));
        base.put("SLURM_NNODES", Integer.toString(step.nodes().size()));
        base.put("SLURM_CPUS_PER_TASK", Integer.toString(step.cpusPerTask()));
        base.put("MASTER_ADDR", addresses.of(step.nodes().get(0)));
        base.put("MASTER_PORT", Integer.toString(masterPort(job.jobId(), step.stepId())));
        if (job.workdir() != null) {
            base.putIfAbsent("SLURM_SUBMIT_DIR", job.workdir());
        }
        String workdir = request.workdir() != null ? request.workdir() : job.workdir();
        Map<String, List<Command>> byNode = new LinkedHashMap<>();
        int rank = 0;
        for (int nodeId = 0; nodeId < plan.shares().size(); nodeId++) {
            StepLayout.Share share = plan.shares().get(nodeId);
            List<StepTask> tasks = new ArrayList<>();
            for (int local = 0; local < share.tasks(); local++) {
                // srun's standard input (and with --pty its terminal) reaches task 0 alone, as in Slurm
                AgentProtocol.TaskStdin stdin = rank == 0 && (request.pty() || request.input())
                        ? new AgentProtocol.TaskStdin(request.pty(), request.rows(), request.cols()) : null;
                tasks.add(new StepTask(rank++, local, share.taskGpus() == null ? null : share.taskGpus().get(local),
                        stdin));
            }
            Map<String, String> env = new LinkedHashMap<>(base);
            env.put("SLURM_NODEID", Integer.toString(nodeId));
            slurmNodeShare(env, tasks, share.gpus());
            env.put("SLURM_GPUS_ON_NODE", Integer.toString(share.gpus().size()));
            // What this node holds of the job, not what the batch host's srun caller saw.
            JobAllocation held = job.allocation().stream().filter(a -> a.node().equals(share.node())).findFirst()
                    .orElse(null);
            env.remove("SLURM_JOB_GPUS");
            env.remove("GPU_DEVICE_ORDINAL");
            if (held != null) {
                env.put("SLURM_MEM_PER_NODE", Long.toString(held.memoryMb()));
                env.put("SLURM_CPUS_ON_NODE", Integer.toString(held.cpus()));
                if (held.gpuIndices() != null && !held.gpuIndices().isEmpty()) {
                    env.put("SLURM_JOB_GPUS", joined(held.gpuIndices()));
                }
            }
            if (share.taskGpus() == null && !share.gpus().isEmpty()) {
                env.put("CUDA_VISIBLE_DEVICES", joined(share.gpus()));
                env.put("GPU_DEVICE_ORDINAL", joined(share.gpus()));
            }
            byNode.put(share.node(), List.of(Command.stepLaunch(new StepTasks(job.id(), step.stepId(), step.argv(),
                    tasks, workdir, nodeId, env, null, request.container()))));
        }
        return byNode;
    }

    /**
     * What Slurm 22.05 adds for a step's tasks on one node and launchers read: the global ranks on the
     * node ({@code SLURM_GTIDS}), the distribution (Gantry lays out steps in blocks), the step's GPUs
     * there, and the job's CPUs per node under the name of its (only) heterogeneous component.
     */
    private static void slurmNodeShare(Map<String, String> env, List<StepTask> tasks, List<Integer> gpus) {
        env.put("SLURM_GTIDS", String.join(",", tasks.stream().map(t -> Integer.toString(t.procId())).toList()));
        env.put("SLURM_DISTRIBUTION", "block");
        env.remove("SLURM_STEP_GPUS");
        if (gpus != null && !gpus.isEmpty()) {
            env.put("SLURM_STEP_GPUS", joined(gpus));
        }
        String cpusPerNode = env.get("SLURM_JOB_CPUS_PER_NODE");
        if (cpusPerNode != null) {
            env.put("SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0", cpusPerNode);
        }
    }

    private static String joined(List<Integer> numbers) {
        return String.join(",", numbers.stream().map(String::valueOf).toList());
    }

    /**
     * torchrun's rendezvous port: the same for every task of a step and, on one node, distinct for the
     * steps of a job and (but for ids 4000 apart) for different jobs: 20000-59999.
     */
    static int masterPort(long jobId, int stepId) {
        return 20000 + (int) (jobId % 4000) * 10 + stepId % 10;
    }

    /** The environment {@code --export} passes on: ALL (default) the caller's, NONE nothing, NAME=value added. */
    static Map<String, String> exported(StepRequest request) {
        Map<String, String> caller = request.environment() == null ? Map.of() : request.environment();
        String export = request.export() == null || request.export().isBlank() ? "ALL" : request.export().trim();
        List<String> items = List.of(export.split(","));
        Map<String, String> env = new LinkedHashMap<>();
        boolean all = items.stream().anyMatch(i -> i.trim().equalsIgnoreCase("ALL"));
        if (all) {
            caller.forEach((k, v) -> {
                if (k != null && v != null && !PER_TASK.contains(k)) {
                    env.put(k, v);
                }
            });
        } else {
            // Slurm passes its own variables even with NONE
            caller.forEach((k, v) -> {
                if (k != null && v != null && (k.startsWith("SLURM_") || k.startsWith("GANTRY_")) && !PER_TASK.contains(k)) {
                    env.put(k, v);
                }
            });
        }
        for (String item : items) {
            String it = item.trim();
            if (it.isEmpty() || it.equalsIgnoreCase("ALL") || it.equalsIgnoreCase("NONE")) {
                continue;
            }
            int eq = it.indexOf('=');
            if (eq > 0) {
                env.put(it.substring(0, eq), it.substring(eq + 1));
            } else if (caller.containsKey(it)) {
                env.put(it, caller.get(it));
            }
        }
        return env;
    }

    /**
     * Applies a node's step reports; refused whole (400 naming reports[i]) when one cannot come from it:
     * an unknown job or step, or a task the step does not run on this node. Reports about a step that
     * has ended are acknowledged and change nothing (agents repeat reports until acknowledged).
     */
    public int report(String node, List<StepReport> reports) {
        Map<String, HostedJob> jobs = new HashMap<>();
        hosted.find(reports.stream().filter(Objects::nonNull).map(StepReport::jobId).filter(Objects::nonNull)
                .distinct().toList()).forEach(j -> jobs.put(j.id(), j));
        List<FieldError> errors = new ArrayList<>();
        List<StepRun> targets = new ArrayList<>();
        Map<Long, Set<Integer>> known = new HashMap<>();
        for (int i = 0; i < reports.size(); i++) {
            String field = "reports[" + i + "]";
            StepReport r = reports.get(i);
            StepRun run = null;
            if (r == null || r.type() == null) {
                errors.add(new FieldError(field, "is required, with its type: OUTPUT or ENDED"));
            } else if (!jobs.containsKey(r.jobId())) {
                errors.add(new FieldError(field + ".jobId", "no job " + r.jobId() + " exists"));
            } else {
                HostedJob job = jobs.get(r.jobId());
                // an ended job's steps ended with it: do not load (and keep) an entry for it again
                run = job.state().isActive() ? loaded(job.row()).get(r.stepId())
                        : runs.getOrDefault(job.row(), Map.of()).get(r.stepId());
                if (run == null) {
                    Set<Integer> recorded = known.computeIfAbsent(job.row(), row -> store.ofJob(row).stream()
                            .map(StepRecord::stepId).collect(Collectors.toSet()));
                    if (!recorded.contains(r.stepId())) {
                        errors.add(new FieldError(field + ".stepId", "job " + r.jobId() + " has no step "
                                + r.stepId()));
                    }
                    // else: a late or repeated report about a step that ended (with its job) and was let go
                } else if (!run.runsOn(node, r.procId())) {
                    errors.add(new FieldError(field + ".procId", "task " + r.procId() + " of step " + r.jobId() + "."
                            + r.stepId() + " does not run on node '" + node + "'"));
                }
            }
            targets.add(run);
        }
        if (!errors.isEmpty()) {
            log.warn("Refused step reports from node '{}' (all {} of the batch, none applied): {}", node,
                    reports.size(), errors.stream().map(e -> e.field() + " " + e.message())
                            .collect(Collectors.joining("; ")));
            throw new GantryException(ProblemType.VALIDATION, errors.size() == 1
                    ? errors.get(0).field() + ": " + errors.get(0).message()
                    : errors.size() + " step reports are refused; none was applied", errors);
        }
        int applied = 0;
        for (int i = 0; i < reports.size(); i++) {
            StepReport r = reports.get(i);
            StepRun run = targets.get(i);
            if (run == null) {
                continue;
            }
            if (r.type() == StepReportType.OUTPUT) {
                run.output(r.procId(), r.stream(), r.seq(), r.data());
                applied++;
            } else if (r.type() == StepReportType.PMI_FENCE || r.type() == StepReportType.PMI_ABORT) {
                events.publishEvent(new StepCommands(PmiRelay.report(run, node, r)));
                applied++;
            } else {
                if (run.isPmi() && (r.signal() != null || r.exitCode() != null && r.exitCode() != 0)) {
                    events.publishEvent(new StepCommands(PmiRelay.failed(run, r.procId(), null)));
                }
                if (r.data() != null && !r.data().isEmpty()) {
                    run.output(r.procId(), "stderr", Long.MAX_VALUE, r.data());
                }
                if (run.ended(r.procId(), r.exitCode(), r.signal(), clock.millis())) {
                    recordEnd(run);
                }
                applied++;
            }
        }
        return applied;
    }

    /** srun's long poll for output after {@code after} and, once done, the tasks' exits. */
    DeferredResult<StepIo> io(String id, int stepId, long after, CurrentUser caller) {
        HostedJob job = jobFor(id, caller);
        StepRun run = loaded(job.row()).get(stepId);
        DeferredResult<StepIo> result = new DeferredResult<>(POLL_MILLIS + 5_000);
        if (run == null) {
            boolean exists = store.ofJob(job.row()).stream().anyMatch(s -> s.stepId() == stepId);
            if (!exists) {
                throw GantryException.notFound("Step", job.id() + "." + stepId);
            }
            // ended long ago (or before this leader): nothing left to relay
            result.setResult(new StepIo(List.of(), after, true, List.of()));
            return result;
        }
        result.onTimeout(() -> result.setResult(run.io(after)));
        run.poll(after, result);
        return result;
    }

    /**
     * Input for task 0 of a running step (srun's standard input, or its terminal's new size), sent to
     * the node that runs it, in the order it comes. Only the job's own credential or its owner may
     * type into its tasks: an operator may signal them, not act as their user.
     */
    StepViews.InputAccepted input(String id, int stepId, StepProtocol.StepInput input, CurrentUser caller) {
        HostedJob job = CurrentUser.credentialJob().isPresent() ? jobOfCredential(id) : jobOfOwner(id, caller);
        if (input == null) {
            throw GantryException.badRequest("body", "is required");
        }
        byte[] data;
        try {
            data = input.data() == null ? new byte[0] : java.util.Base64.getDecoder().decode(input.data());
        } catch (IllegalArgumentException e) {
            throw GantryException.badRequest("data", "is not base64: " + e.getMessage());
        }
        StepBounds.Errors errors = new StepBounds.Errors();
        if (data.length > StepProtocol.MAX_INPUT_BYTES) {
            errors.add("data", String.format("holds %,d bytes; at most %,d go in one request", data.length,
                    StepProtocol.MAX_INPUT_BYTES));
        }
        StepBounds.terminalSize(errors, input.rows(), input.cols());
        if (!errors.list.isEmpty()) {
            throw new GantryException(ProblemType.VALIDATION, errors.list.get(0).field() + ": "
                    + errors.list.get(0).message(), errors.list);
        }
        StepRun run = loaded(job.row()).get(stepId);
        if (run == null || run.done()) {
            if (run == null && store.ofJob(job.row()).stream().noneMatch(s -> s.stepId() == stepId)) {
                throw GantryException.notFound("Step", job.id() + "." + stepId);
            }
            throw GantryException.conflict("Step " + job.id() + "." + stepId + " has ended: its tasks read no more");
        }
        long seq = inputSeq.updateAndGet(last -> Math.max(last + 1, clock.millis() * 1000));
        String node = run.step.nodes().get(0);
        events.publishEvent(new StepCommands(Map.of(node, List.of(Command.stepInput(new AgentProtocol.StepInput(
                job.id(), stepId, 0, seq, data.length == 0 ? null : input.data(), input.eof(), input.rows(),
                input.cols()))))));
        return new StepViews.InputAccepted(job.id() + "." + stepId, data.length, input.eof());
    }

    /** Signals every task of a running step on every node of it. */
    StepViews.Signalled signal(String id, int stepId, String signal, CurrentUser caller) {
        HostedJob job = jobFor(id, caller);
        String name = signalName(signal);
        StepRun run = loaded(job.row()).get(stepId);
        if (run == null) {
            throw GantryException.notFound("Running step", job.id() + "." + stepId);
        }
        if (run.done()) {
            return new StepViews.Signalled(job.id() + "." + stepId, name, List.of());
        }
        if (Set.of("TERM", "KILL", "INT", "HUP", "QUIT").contains(name)) {
            run.signalled();
        }
        events.publishEvent(new StepCommands(signals(run, name)));
        return new StepViews.Signalled(job.id() + "." + stepId, name, run.step.nodes());
    }

    static Map<String, List<Command>> signals(StepRun run, String signal) {
        Map<String, List<Command>> byNode = new LinkedHashMap<>();
        for (String node : run.step.nodes()) {
            byNode.put(node, List.of(Command.stepSignal(run.step.jobId(), run.step.stepId(), signal)));
        }
        return byNode;
    }

    /**
     * The batch step and every srun step of a job, for whoever may see the job; the steps' argv (which
     * may carry passwords and keys, as the job's script and environment may) only for those who see
     * those: the job's owner, OPERATORs and ADMINs.
     */
    List<StepView> list(String id, CurrentUser caller) {
        JobView job = jobService.get(id, caller);
        boolean showArgv = caller.mayActFor(job.user());
        List<StepView> steps = new ArrayList<>();
        batch(job).ifPresent(steps::add);
        HostedJob hostedJob = hosted.find(List.of(job.id())).stream().findFirst()
                .orElseThrow(() -> GantryException.notFound("Job", id));
        for (StepRecord s : store.ofJob(hostedJob.row())) {
            steps.add(view(s, showArgv));
        }
        return steps;
    }

    static java.util.Optional<StepView> batch(JobView job) {
        if (job.startTime() == null || job.allocation() == null || job.allocation().isEmpty()) {
            return java.util.Optional.empty();
        }
        String host = job.allocation().get(0).node();
        return java.util.Optional.of(new StepView("batch", job.id() + ".batch", "batch", null, host, 1, 1,
                job.allocation().get(0).cpus(), job.state() == JobState.COMPLETING ? JobState.RUNNING : job.state(),
                job.exitCode(), job.startTime(), job.endTime(), image(job.container()), job.containerImageDigest()));
    }

    static StepView view(StepRecord s, boolean showArgv) {
        return new StepView(Integer.toString(s.stepId()), s.jobId() + "." + s.stepId(), s.name(),
                showArgv ? s.argv() : null,
                Hostlist.of(s.nodes()).toString(), s.nodes().size(), s.tasks(), s.cpusPerTask(), s.state(),
                s.exitCode(), s.startTime(), s.endTime(), image(s.container()), s.containerImageDigest());
    }

    /** What a step view names of a container: its image, else its bundle, else its name. */
    static String image(io.gantry.noded.protocol.ContainerSpec container) {
        return container == null ? null : container.image() != null ? container.image()
                : container.bundle() != null ? container.bundle() : container.name();
    }

    /** The srun steps of these jobs (by row), for accounting. */
    List<StepRecord> stepsOf(Collection<Long> jobRows) {
        return store.ofJobs(jobRows);
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobCancelRequested event) {
        for (long row : event.jobRows()) {
            for (StepRun run : loaded(row).values()) {
                if (!run.done()) {
                    run.signalled();
                    events.publishEvent(new StepCommands(signals(run, "KILL")));
                }
            }
        }
    }

    /**
     * A job that ended (or went back to the queue) takes its running steps with it: their tasks are
     * killed on every node of them, and they end CANCELLED (NODE_FAIL when a node failed).
     */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobEnded event) {
        JobState stepState = event.state() == JobState.NODE_FAIL ? JobState.NODE_FAIL : JobState.CANCELLED;
        Map<Integer, StepRun> ofJob = loaded(event.row());
        for (StepRun run : ofJob.values()) {
            if (run.done()) {
                continue;
            }
            events.publishEvent(new StepCommands(signals(run, "KILL")));
            if (run.abort(stepState, clock.millis())) {
                recordEnd(run);
            }
        }
        purge(ofJob);
        if (ofJob.isEmpty()) {
            runs.remove(event.row());
        }
    }

    private void recordEnd(StepRun run) {
        StepRecord s = run.step;
        if (store.end(s.jobRow(), s.stepId(), run.endState(), run.endExit(), clock.instant())) {
            events.publishEvent(new StepChanged(s.jobId(), s.jobId() + "." + s.stepId(), run.endState().name()));
        }
    }

    /** A job's runs, loading its running steps from the store the first time (after a takeover). */
    private Map<Integer, StepRun> loaded(long row) {
        return runs.computeIfAbsent(row, r -> {
            Map<Integer, StepRun> ofJob = new ConcurrentHashMap<>();
            for (StepRecord s : store.running(r)) {
                ofJob.put(s.stepId(), new StepRun(s));
            }
            return ofJob;
        });
    }

    private Object lock(long row) {
        return loaded(row);
    }

    private void purge(Map<Integer, StepRun> ofJob) {
        long now = clock.millis();
        ofJob.values().removeIf(r -> r.done() && now - r.endedAtMillis() > KEEP_ENDED_MILLIS);
    }

    /** What running steps hold, per node. */
    private static Map<String, StepLayout.Hold> held(Collection<StepRun> running) {
        Map<String, Integer> cpus = new HashMap<>();
        Map<String, Set<Integer>> gpus = new HashMap<>();
        for (StepRun run : running) {
            if (run.done() || run.step.resources() == null) {
                continue;
            }
            for (String entry : run.step.resources().split(";")) {
                if (entry.isEmpty()) {
                    continue;
                }
                String[] parts = entry.split(":", -1);
                cpus.merge(parts[0], Integer.parseInt(parts[1]), Integer::sum);
                Set<Integer> g = gpus.computeIfAbsent(parts[0], n -> new java.util.HashSet<>());
                if (parts.length > 2 && !parts[2].isEmpty()) {
                    for (String index : parts[2].split("\\.")) {
                        g.add(Integer.parseInt(index));
                    }
                }
            }
        }
        Map<String, StepLayout.Hold> held = new HashMap<>();
        cpus.forEach((node, c) -> held.put(node, new StepLayout.Hold(c, gpus.getOrDefault(node, Set.of()))));
        return held;
    }

    private static String resources(StepLayout.Plan plan) {
        return plan.shares().stream()
                .map(s -> s.node() + ":" + s.hold().cpus() + ":"
                        + s.hold().gpus().stream().sorted().map(String::valueOf).collect(Collectors.joining(".")))
                .collect(Collectors.joining(";"));
    }

    /** The job {@code id}, when the caller presents that job's own credential. */
    private HostedJob jobOfCredential(String id) {
        String credential = CurrentUser.credentialJob().orElseThrow(() -> new GantryException(ProblemType.FORBIDDEN,
                "Steps are created from inside their job's allocation: srun uses the job's credential "
                        + "(GANTRY_JOB_TOKEN), not a user's token"));
        HostedJob job = find(id);
        HostedJob own = hosted.find(List.of(credential)).stream().findFirst().orElse(null);
        if (own == null || own.row() != job.row()) {
            throw new GantryException(ProblemType.FORBIDDEN, "This credential is job " + credential
                    + "'s: it creates steps in that job's allocation only, not in job " + job.id() + "'s");
        }
        return job;
    }

    /**
     * The job {@code id}, when the caller is the user it runs as: a step runs as the job's user inside its
     * allocation, so neither another user nor an operator may start one (Slurm's "Access/permission denied").
     */
    private HostedJob jobOfOwner(String id, CurrentUser caller) {
        HostedJob job = find(id);
        JobView view = hosted.views(List.of(job.row())).get(0);
        if (caller == null || !caller.username().equals(view.user())) {
            throw new GantryException(ProblemType.FORBIDDEN, "Access/permission denied: job " + job.id()
                    + " is not yours: only its owner starts steps in it");
        }
        return job;
    }

    /** The job {@code id}, when the caller presents its credential, owns it, or is an operator. */
    private HostedJob jobFor(String id, CurrentUser caller) {
        HostedJob job = find(id);
        String credential = CurrentUser.credentialJob().orElse(null);
        if (credential != null) {
            HostedJob own = hosted.find(List.of(credential)).stream().findFirst().orElse(null);
            if (own != null && own.row() == job.row()) {
                return job;
            }
        }
        JobView view = jobService.get(job.id(), caller);
        if (!caller.mayActFor(view.user())) {
            throw new GantryException(ProblemType.FORBIDDEN, "Job " + job.id() + " is " + view.user()
                    + "'s: only its owner or an operator may use its steps");
        }
        return job;
    }

    private HostedJob find(String id) {
        return hosted.find(List.of(id)).stream().findFirst()
                .orElseThrow(() -> GantryException.notFound("Job", id));
    }

    private static String signalName(String signal) {
        String name = signal == null || signal.isBlank() ? "TERM" : signal.trim().toUpperCase(Locale.ROOT);
        if (name.startsWith("SIG")) {
            name = name.substring(3);
        }
        if (!SIGNALS.contains(name)) {
            throw GantryException.badRequest("signal", "must be one of " + SIGNALS.stream().sorted().toList());
        }
        return name;
    }

    private static void validate(StepRequest r) {
        if (r == null) {
            throw GantryException.badRequest("body", "is required");
        }
        List<FieldError> errors = new ArrayList<>(StepBounds.check(r));
        positive(errors, "ntasks", r.ntasks());
        positive(errors, "nodes", r.nodes());
        positive(errors, "ntasksPerNode", r.ntasksPerNode());
        positive(errors, "cpusPerTask", r.cpusPerTask());
        positive(errors, "gpusPerTask", r.gpusPerTask());
        positive(errors, "gpusPerNode", r.gpusPerNode());
        // As pyxis: a step runs in a container only when it asks for one (an image, a bundle, or the name
        // of a container an earlier step of the job made), even inside a job whose batch script runs in one.
        errors.addAll(ContainerFlags.check(r.container(), "container", false));
        if (!errors.isEmpty()) {
            throw new GantryException(ProblemType.VALIDATION, errors.size() == 1
                    ? errors.get(0).field() + ": " + errors.get(0).message() : "The step request is invalid", errors);
        }
    }

    private static void positive(List<FieldError> errors, String field, Integer value) {
        if (value != null && value < 1) {
            errors.add(new FieldError(field, "must be at least 1"));
        }
    }

    /**
     * srun's default step name, its command's file name: cut to {@link StepProtocol#MAX_NAME} and with
     * control characters as '?', since it shows in sacct's lines as a given name does.
     */
    static String defaultName(String command) {
        String name = command.substring(command.lastIndexOf('/') + 1);
        if (name.length() > StepProtocol.MAX_NAME) {
            name = name.substring(0, StepProtocol.MAX_NAME);
        }
        return name.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
    }
}
