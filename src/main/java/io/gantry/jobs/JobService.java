package io.gantry.jobs;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.gantry.api.GantryException;
import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import io.gantry.api.ProblemType;
import io.gantry.audit.AuditAction;
import io.gantry.cluster.ClusterService;
import io.gantry.engine.Hostlist;
import io.gantry.jobs.JobViews.ActionResult;
import io.gantry.jobs.JobViews.JobEventView;
import io.gantry.jobs.JobViews.JobUpdate;
import io.gantry.jobs.JobViews.JobView;
import io.gantry.jobs.JobViews.SignalResult;
import io.gantry.jobs.JobViews.SubmitResponse;
import io.gantry.security.CurrentUser;

/**
 * Submission, queries and user actions on jobs. It never allocates: it writes the store and
 * publishes an event that wakes the scheduler, which alone starts jobs.
 */
@Service
public class JobService {

    /** Slurm's variable for the host a job was submitted from. */
    static final String SUBMIT_HOST = "SLURM_SUBMIT_HOST";

    private final JobRepository jobs;
    private final JobLists lists;
    private final JobScripts scripts;
    private final JobEventRepository events;
    private final SubmissionCommitter committer;
    private final SubmissionResolver resolver;
    private final ApplicationEventPublisher publisher;
    private final JobsProperties properties;
    private final Clock clock;
    private final JobAudit audit;
    private final ClusterService cluster;
    private final JobEventLines history;

    JobService(JobRepository jobs, JobLists lists, JobScripts scripts, JobEventRepository events,
            SubmissionCommitter committer, SubmissionResolver resolver, ApplicationEventPublisher publisher,
            JobsProperties properties, Clock clock, JobAudit audit, ClusterService cluster, JobEventLines history) {
        this.history = history;
        this.audit = audit;
        this.cluster = cluster;
        this.jobs = jobs;
        this.lists = lists;
        this.scripts = scripts;
        this.events = events;
        this.committer = committer;
        this.resolver = resolver;
        this.publisher = publisher;
        this.properties = properties;
        this.clock = clock;
    }

    /**
     * Validates a submission on the caller's thread, then has its rows committed with others that
     * arrive meanwhile (group commit); answers only once they are in the store.
     */
    public SubmitResponse submit(JobSubmission submission, CurrentUser caller) {
        return submit(submission, caller, null);
    }

    /**
     * As {@link #submit(JobSubmission, CurrentUser)} from {@code submitHost}, which becomes the job's
     * {@code SLURM_SUBMIT_HOST} unless its environment names one (sbatch puts its own host name there,
     * as Slurm's does).
     */
    public SubmitResponse submit(JobSubmission submission, CurrentUser caller, String submitHost) {
        SubmissionResolver.Resolved resolved = resolver.resolve(submission, caller, id -> exists(id, caller));
        JobSpec spec = resolved.spec();
        Instant now = clock.instant();
        Map<String, String> submitted = spec.environment();
        if (submitHost != null && !submitHost.isBlank() && submitted != null
                && !submitted.containsKey(SUBMIT_HOST)) {
            submitted = new java.util.TreeMap<>(submitted);
            submitted.put(SUBMIT_HOST, submitHost);
        }
        String environment = EnvironmentText.encode(submitted);
        List<Integer> tasks = spec.arrayTaskIds().isEmpty() ? List.of(JobIds.NO_TASK) : spec.arrayTaskIds();
        List<JobEntity> rows = new ArrayList<>(tasks.size());
        for (int task : tasks) {
            rows.add(new JobEntity(0, task, spec, caller.username(), now, environment));
        }
        String detail = "submitted by " + caller.username() + " to " + String.join(",", spec.partitions())
                + (spec.hold() != Hold.NONE ? ", held" : "");
        long jobId = committer.commit(rows, now, detail);
        return new SubmitResponse(jobId, spec.arrayTaskIds().isEmpty() ? null : spec.arrayTaskIds(),
                resolved.warnings().isEmpty() ? null : resolved.warnings());
    }

    /**
     * A submission checked exactly as {@link #submit} checks it, but never stored (sbatch
     * --test-only): the job as the scheduler would see it (job id 0; an array's first task) and the
     * warnings a submission would get. Refused with the same 400 as a submission.
     */
    public Trial trial(JobSubmission submission, CurrentUser caller) {
        SubmissionResolver.Resolved resolved = resolver.resolve(submission, caller, id -> exists(id, caller));
        JobSpec spec = resolved.spec();
        int task = spec.arrayTaskIds().isEmpty() ? JobIds.NO_TASK : spec.arrayTaskIds().get(0);
        JobEntity job = new JobEntity(0, task, spec, caller.username(), clock.instant(), null);
        return new Trial(SchedulerJobs.trial(job), resolved.warnings());
    }

    /** A submission's job as {@link #trial} makes it, and its warnings. */
    public record Trial(ActiveJob job, List<String> warnings) {

        public Trial {
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * One page of jobs, filtered, sorted and paged in the store (see {@link JobLists}). Items carry no
     * script and no environment: {@link #get} shows them for one job. One snapshot (repeatable read) for
     * the page, its rows and its total, so a scheduling cycle in between cannot reorder what it shows.
     */
    @Transactional(readOnly = true, isolation = org.springframework.transaction.annotation.Isolation.REPEATABLE_READ)
    public PageResponse<JobView> list(JobFilter filter, JobSort sort, PageRequest page, CurrentUser caller) {
        String owner = properties.privateJobs() && !caller.isOperator() ? caller.username() : null;
        JobLists.Page found = lists.find(filter, owner, sort, page);
        Map<Long, JobEntity> byRow = new HashMap<>();
        for (JobEntity job : jobs.findAllById(found.rows())) {
            byRow.put(job.id(), job);
        }
        List<JobView> items = found.rows().stream().map(byRow::get).filter(Objects::nonNull)
                .map(j -> view(j, JobScripts.Script.NONE, cluster)).toList();
        return new PageResponse<>(items, page.page(), page.size(), found.total());
    }

    /**
     * One job. Its script and environment (secrets often live there) only go to its owner and
     * OPERATORs, as Slurm shows a batch script only to them; with private jobs anyone else is told
     * it does not exist.
     */
    @Transactional(readOnly = true)
    public JobView get(String id, CurrentUser caller) {
        JobEntity job = visible(List.of(findFirst(id)), id, caller).get(0);
        return view(job, caller.mayActFor(job.user()) ? scripts.find(job.jobId()) : JobScripts.Script.NONE,
                cluster);
    }

    @Transactional(readOnly = true)
    public List<JobEventView> events(String id, CurrentUser caller) {
        JobEntity job = visible(List.of(findFirst(id)), id, caller).get(0);
        return events.findByJobRowOrderById(job.id()).stream()
                .map(e -> new JobEventView(e.time(), e.type(), e.detail())).toList();
    }

    /** Cancels a job, every task of an array, or one task. Pending tasks end at once. */
    @Transactional
    public ActionResult cancel(String id, CurrentUser caller) {
        List<JobEntity> targets = findAll(id);
        authorize(targets, id, caller, "cancel");
        JobAudit.Trail trail = audit.before(id, targets, caller);
        Instant now = clock.instant();
        JobEventLines.Lines lines = history.lines();
        List<String> done = new ArrayList<>();
        List<String> stopping = new ArrayList<>();
        for (JobEntity job : targets) {
            if (job.state() == JobState.PENDING) {
                job.cancelPending(now);
                lines.add(job, now, "CANCELLED", "cancelled by " + caller.username() + " while pending");
                done.add(JobIds.format(job.jobId(), job.arrayTaskId()));
            } else if (job.state() == JobState.RUNNING) {
                job.requestCancel();
                lines.add(job, now, "CANCEL_REQUESTED", "cancelled by " + caller.username() + "; stopping on its nodes");
                stopping.add(JobIds.format(job.jobId(), job.arrayTaskId()));
            } else if (job.state() == JobState.SUSPENDED) {
                job.requestCancel();
                lines.add(job, now, "CANCEL_REQUESTED", "cancelled by " + caller.username()
                        + " while suspended; stopping on its nodes");
                stopping.add(JobIds.format(job.jobId(), job.arrayTaskId()));
            } else if (job.state() == JobState.COMPLETING) {
                stopping.add(JobIds.format(job.jobId(), job.arrayTaskId()));
            }
        }
        if (done.isEmpty() && stopping.isEmpty()) {
            throw GantryException.conflict("Job " + id + " has already ended ("
                    + targets.get(0).state() + ")");
        }
        jobs.saveAll(targets);
        lines.write();
        trail.record(AuditAction.CANCEL);
        publisher.publishEvent(new JobsChanged(targets.get(0).jobId(), "CANCELLED"));
        if (!stopping.isEmpty()) {
            publisher.publishEvent(new JobCancelRequested(targets.stream()
                    .filter(j -> j.state() == JobState.COMPLETING || j.state() == JobState.SUSPENDED)
                    .map(JobEntity::id).toList()));
        }
        return new ActionResult(done, stopping, stopping.isEmpty() ? "cancelled"
                : "cancel requested; running jobs end CANCELLED when their nodes confirm");
    }

    /**
     * Sends a signal to the running jobs {@code id} names (a job, every task of an array, or one task)
     * on their nodes, as {@code scancel --signal} does: to the batch step and every srun step
     * ({@code --full}), to the batch shell alone ({@code batch}, {@code -b}) or to the srun steps alone
     * ({@code stepsOnly}, Slurm's default without -b or -f). Nothing changes in the job's state: a
     * line in its history says who sent what; the agents are told once that is committed.
     */
    @Transactional
    public SignalResult signal(String id, String signal, boolean batch, boolean stepsOnly, CurrentUser caller) {
        String name;
        try {
            name = JobSignal.signalName(signal);
        } catch (IllegalArgumentException e) {
            throw GantryException.badRequest("signal", e.getMessage());
        }
        if (batch && stepsOnly) {
            throw new GantryException(ProblemType.VALIDATION, "batch and stepsOnly exclude each other: batch signals "
                    + "the batch shell alone, stepsOnly the srun steps alone",
                    List.of(new GantryException.FieldError("stepsOnly", "cannot be true with batch")));
        }
        JobSignalRequested.Scope scope = batch ? JobSignalRequested.Scope.BATCH
                : stepsOnly ? JobSignalRequested.Scope.STEPS : JobSignalRequested.Scope.JOB;
        List<JobEntity> targets = findAll(id);
        authorize(targets, id, caller, "signal");
        JobAudit.Trail trail = audit.before(id, targets, caller);
        List<JobEntity> running = targets.stream().filter(j -> j.state() == JobState.RUNNING).toList();
        if (running.isEmpty()) {
            JobState state = targets.get(0).state();
            throw GantryException.conflict("Job " + id + " is " + (targets.size() > 1 ? "not running (its tasks are "
                    + targets.stream().map(j -> j.state().name()).distinct().sorted().toList() + ")" : state)
                    + ": only a running job can be signalled" + (state == JobState.PENDING ? "; cancel it instead"
                            : ""));
        }
        io.gantry.cluster.ClusterLayout layout = cluster.layout();
        Instant now = clock.instant();
        JobEventLines.Lines lines = history.lines();
        List<JobSignalRequested.Target> signalled = new ArrayList<>();
        List<String> simulated = new ArrayList<>();
        for (JobEntity job : running) {
            String display = JobIds.format(job.jobId(), job.arrayTaskId());
            List<String> nodes = new ArrayList<>();
            List<JobAllocation> allocation = JobAllocation.decode(job.allocation());
            if (allocation != null) {
                allocation.forEach(a -> nodes.add(a.node()));
            }
            if (nodes.isEmpty()) {
                continue;
            }
            io.gantry.cluster.ClusterLayout.NodeSpec spec = layout.nodes().get(nodes.get(0));
            if (spec != null && spec.simulated()) {
                simulated.add(display + " (on " + nodes.get(0) + ")");
                continue;
            }
            List<String> told = scope == JobSignalRequested.Scope.BATCH ? List.of(nodes.get(0)) : nodes;
            signalled.add(new JobSignalRequested.Target(display, told, name, scope));
            lines.add(job, now, "SIGNALLED", shown(name) + " sent by "
                    + caller.username() + " to " + switch (scope) {
                        case BATCH -> "the batch shell";
                        case STEPS -> "its srun steps";
                        default -> "the batch step and its srun steps";
                    });
        }
        if (signalled.isEmpty()) {
            throw GantryException.conflict("Job " + id + " runs on simulated nodes only, which have no processes to "
                    + "signal: " + String.join(", ", simulated));
        }
        lines.write();
        trail.record(AuditAction.SIGNAL);
        publisher.publishEvent(new JobSignalRequested(signalled));
        List<String> nodes = signalled.stream().flatMap(t -> t.nodes().stream()).distinct().toList();
        return new SignalResult(signalled.stream().map(JobSignalRequested.Target::jobId).toList(), name, scope.name(),
                nodes, shown(name) + " sent to " + nodes.size() + (nodes.size() == 1 ? " node" : " nodes")
                        + (simulated.isEmpty() ? "" : "; not to jobs on simulated nodes: " + String.join(", ", simulated)));
    }

    /** SIGUSR1 for a named signal, signal 34 for one known by its number only. */
    private static String shown(String signal) {
        return signal.chars().allMatch(Character::isDigit) ? "signal " + signal : "SIG" + signal;
    }

    @Transactional
    public ActionResult hold(String id, CurrentUser caller) {
        List<JobEntity> targets = findAll(id);
        authorize(targets, id, caller, "hold");
        JobAudit.Trail trail = audit.before(id, targets, caller);
        Hold hold = caller.isOperator() ? Hold.ADMIN : Hold.USER;
        Instant now = clock.instant();
        JobEventLines.Lines lines = history.lines();
        List<String> held = new ArrayList<>();
        for (JobEntity job : targets) {
            if (job.state() == JobState.PENDING) {
                job.setHold(hold, now);
                lines.add(job, now, "HELD", (hold == Hold.ADMIN ? "admin" : "user") + " hold by " + caller.username());
                held.add(JobIds.format(job.jobId(), job.arrayTaskId()));
            }
        }
        if (held.isEmpty()) {
            throw GantryException.conflict("Job " + id + " is not pending; only pending jobs can be held");
        }
        jobs.saveAll(targets);
        lines.write();
        trail.record(AuditAction.HOLD);
        publisher.publishEvent(new JobsChanged(targets.get(0).jobId(), "HELD"));
        return new ActionResult(held, List.of(), "held");
    }

    @Transactional
    public ActionResult release(String id, CurrentUser caller) {
        List<JobEntity> targets = findAll(id);
        authorize(targets, id, caller, "release");
        JobAudit.Trail trail = audit.before(id, targets, caller);
        Instant now = clock.instant();
        JobEventLines.Lines lines = history.lines();
        List<String> released = new ArrayList<>();
        for (JobEntity job : targets) {
            if (job.state() != JobState.PENDING || job.hold() == Hold.NONE) {
                continue;
            }
            if (job.hold() == Hold.ADMIN && !caller.isOperator()) {
                throw new GantryException(ProblemType.FORBIDDEN, "Job " + JobIds.format(job.jobId(), job.arrayTaskId())
                        + " is held by an administrator; only an operator may release it");
            }
            job.setHold(Hold.NONE, now);
            lines.add(job, now, "RELEASED", "released by " + caller.username());
            released.add(JobIds.format(job.jobId(), job.arrayTaskId()));
        }
        if (released.isEmpty()) {
            throw GantryException.conflict("Job " + id + " is not held");
        }
        jobs.saveAll(targets);
        lines.write();
        trail.record(AuditAction.RELEASE);
        publisher.publishEvent(new JobsChanged(targets.get(0).jobId(), "RELEASED"));
        return new ActionResult(released, List.of(), "released");
    }

    @Transactional
    public JobView update(String id, JobUpdate update, CurrentUser caller) {
        JobEntity job = findOne(id);
        authorize(List.of(job), id, caller, "update");
        JobAudit.Trail trail = audit.before(id, List.of(job), caller);
        if (update == null) {
            throw GantryException.badRequest("body", "is required");
        }
        if (job.state() == JobState.RUNNING && update.timeLimitSeconds() != null) {
            if (!caller.isOperator()) {
                throw new GantryException(ProblemType.FORBIDDEN,
                        "Only an operator may change the time limit of a running job");
            }
            if (update.name() != null || update.partition() != null || update.qos() != null
                    || update.nice() != null || update.constraints() != null) {
                throw GantryException.conflict("A running job's time limit is all that can change");
            }
        } else if (job.state() != JobState.PENDING) {
            throw GantryException.conflict("Job " + id + " is " + job.state() + "; only pending jobs can be changed");
        }
        SubmissionResolver.Change change = resolver.checkUpdate(job, update, caller);
        job.update(update.name(), change.timeLimitSeconds(), change.partitions(), update.qos(), update.nice(),
                update.constraints());
        jobs.save(job);
        event(job, clock.instant(), "UPDATED", "changed by " + caller.username() + ": " + change.summary());
        trail.record(AuditAction.UPDATE);
        publisher.publishEvent(new JobsChanged(job.jobId(), "UPDATED"));
        if (job.state() == JobState.RUNNING && change.timeLimitSeconds() != null && job.batchHost() != null) {
            publisher.publishEvent(new JobTimeLimitChanged(JobIds.format(job.jobId(), job.arrayTaskId()),
                    job.batchHost(), job.timeLimitSeconds()));
        }
        return view(job, scripts.find(job.jobId()), cluster);
    }

    /**
     * An array summed up by the store (its tasks by state and exit code); a job that is no array has no
     * tasks; 404 when {@code id} names no job.
     */
    @Transactional(readOnly = true)
    public ArraySummary arraySummary(String id, CurrentUser caller) {
        JobIds.Parsed parsed = JobIds.parse(id);
        if (parsed.task() != null) {
            throw GantryException.badRequest("id", "'" + id + "' is one task; an array is named by its job id ("
                    + parsed.jobId() + ")");
        }
        String owner = properties.privateJobs() && !caller.isOperator() ? caller.username() : null;
        return lists.arraySummary(parsed.jobId(), owner).orElseGet(() -> {
            // a job that is no array has no tasks: a page may ask before it knows which the id names
            JobEntity job = visible(List.of(findFirst(id)), id, caller).get(0);
            return new ArraySummary(job.jobId(), job.name(), job.user(), job.account(), job.partition(), 0, "",
                    List.of(), List.of());
        });
    }

    @Transactional
    public ActionResult requeue(String id, CurrentUser caller) {
        return requeue(id, java.util.Set.of(), caller);
    }

    /**
     * Puts ended jobs back in the queue: a job, a task, or an array's tasks; with {@code only}, only the tasks
     * in those states (an array's failed tasks, say), leaving the others as they are.
     */
    @Transactional
    public ActionResult requeue(String id, java.util.Set<JobState> only, CurrentUser caller) {
        List<JobEntity> all = findAll(id);
        authorize(all, id, caller, "requeue");
        List<JobEntity> targets = only.isEmpty() ? all : all.stream().filter(j -> only.contains(j.state())).toList();
        if (targets.isEmpty()) {
            throw GantryException.conflict("No task of job " + id + " is " + only.stream().map(Enum::name).sorted()
                    .collect(java.util.stream.Collectors.joining(" or ")) + "; nothing to requeue");
        }
        JobAudit.Trail trail = audit.before(id, targets, caller);
        List<String> requeued = new ArrayList<>();
        List<String> stopping = new ArrayList<>();
        Instant now = clock.instant();
        JobEventLines.Lines lines = history.lines();
        for (JobEntity job : targets) {
            if (job.state() == JobState.RUNNING) {
                stopping.add(JobIds.format(job.jobId(), job.arrayTaskId()));
            } else if (job.state().isFinished() && job.state() != JobState.CANCELLED) {
                job.requeue(now);
                lines.add(job, now, "REQUEUED", "requeued by " + caller.username());
                requeued.add(JobIds.format(job.jobId(), job.arrayTaskId()));
            }
        }
        if (!stopping.isEmpty()) {
            throw GantryException.conflict("Job(s) " + stopping + " are running; cancel them first or wait for them "
                    + "to end, then requeue");
        }
        if (requeued.isEmpty()) {
            throw GantryException.conflict("Job " + id + " has not ended (or was cancelled); nothing to requeue");
        }
        jobs.saveAll(targets);
        lines.write();
        trail.record(AuditAction.REQUEUE);
        publisher.publishEvent(new JobsChanged(targets.get(0).jobId(), "REQUEUED"));
        return new ActionResult(requeued, List.of(), "requeued");
    }

    /**
     * scontrol suspend: freezes the running jobs {@code id} names (a job, every running task of an array, or
     * one task) on their nodes. Unlike a job suspended for its preemptor, each keeps all it holds (no other
     * job gets its CPUs, memory or GPUs), the scheduler never resumes it, and its time limit does not run
     * while it is frozen. Operators only, as in Slurm; refused in Slurm's words.
     */
    @Transactional
    public ActionResult suspend(String id, CurrentUser caller) {
        operatorOnly(caller, "suspend");
        List<JobEntity> targets = visible(findAll(id), id, caller);
        JobAudit.Trail trail = audit.before(id, targets, caller);
        Instant now = clock.instant();
        JobEventLines.Lines lines = history.lines();
        List<JobsFrozen.Target> frozen = new ArrayList<>();
        for (JobEntity job : targets) {
            if (job.state() == JobState.RUNNING) {
                job.suspendBy(caller.username());
                lines.add(job, now, "SUSPENDED", "suspended by " + caller.username()
                        + " (scontrol suspend); it keeps what it holds until resumed");
                frozen.add(frozen(job));
            }
        }
        if (frozen.isEmpty()) {
            throw GantryException.conflict("Job is not running: job " + id + " is " + states(targets));
        }
        jobs.saveAll(targets);
        lines.write();
        trail.record(AuditAction.SUSPEND);
        publisher.publishEvent(new JobsFrozen(frozen, true));
        publisher.publishEvent(new JobsChanged(targets.get(0).jobId(), "SUSPENDED"));
        return new ActionResult(frozen.stream().map(JobsFrozen.Target::jobId).toList(), List.of(), "suspended");
    }

    /**
     * scontrol resume: thaws the jobs {@code id} names that an operator suspended; they run on what they
     * kept. A job suspended for its preemptor is not one: it resumes on its own when what it held is free.
     */
    @Transactional
    public ActionResult resume(String id, CurrentUser caller) {
        operatorOnly(caller, "resume");
        List<JobEntity> targets = visible(findAll(id), id, caller);
        JobAudit.Trail trail = audit.before(id, targets, caller);
        Instant now = clock.instant();
        JobEventLines.Lines lines = history.lines();
        List<JobsFrozen.Target> thawed = new ArrayList<>();
        for (JobEntity job : targets) {
            if (job.state() == JobState.SUSPENDED && job.suspendedBy() != null) {
                String by = job.suspendedBy();
                job.resume();
                lines.add(job, now, "RESUMED", "resumed by " + caller.username() + " (scontrol resume; suspended by "
                        + by + ")");
                thawed.add(frozen(job));
            }
        }
        if (thawed.isEmpty()) {
            boolean forPreemptor = targets.stream().anyMatch(j -> j.state() == JobState.SUSPENDED);
            throw GantryException.conflict("Job is not suspended: job " + id + (forPreemptor
                    ? " was suspended for its preemptor (PreemptMode SUSPEND) and resumes on its own when what it "
                            + "held is free again" : " is " + states(targets)));
        }
        jobs.saveAll(targets);
        lines.write();
        trail.record(AuditAction.RESUME);
        publisher.publishEvent(new JobsFrozen(thawed, false));
        publisher.publishEvent(new JobsChanged(targets.get(0).jobId(), "RESUMED"));
        return new ActionResult(thawed.stream().map(JobsFrozen.Target::jobId).toList(), List.of(), "resumed");
    }

    /** Slurm lets only operators, administrators, SlurmUser and root suspend and resume jobs. */
    private static void operatorOnly(CurrentUser caller, String action) {
        if (!caller.isOperator()) {
            throw new GantryException(ProblemType.FORBIDDEN, "Access/permission denied: only an operator or an "
                    + "administrator may " + action + " a job");
        }
    }

    private static JobsFrozen.Target frozen(JobEntity job) {
        List<JobAllocation> allocation = JobAllocation.decode(job.allocation());
        return new JobsFrozen.Target(job.id(), JobIds.format(job.jobId(), job.arrayTaskId()), allocation == null
                ? List.of() : allocation.stream().map(JobAllocation::node).distinct().toList());
    }

    /** PENDING, or the states of an array's tasks. */
    private static String states(List<JobEntity> targets) {
        List<String> states = targets.stream().map(j -> j.state().name()).distinct().sorted().toList();
        return states.size() == 1 ? states.get(0) : "in states " + String.join(", ", states);
    }

    /** Whether a dependency may name {@code jobId}: with private jobs, a USER's own jobs only, so it reveals no others. */
    private boolean exists(long jobId, CurrentUser caller) {
        return properties.privateJobs() && !caller.isOperator() ? jobs.existsByJobIdAndUser(jobId, caller.username())
                : jobs.existsByJobId(jobId);
    }

    private void event(JobEntity job, Instant at, String type, String detail) {
        events.save(new JobEventEntity(job.id(), at, type, detail));
    }

    /**
     * {@code found}, unless private jobs hide it from the caller: then 404 as for an id that does
     * not exist, so a USER cannot even learn that another user's job id is taken.
     */
    private List<JobEntity> visible(List<JobEntity> found, String id, CurrentUser caller) {
        if (properties.privateJobs() && !caller.mayActFor(found.get(0).user())) {
            throw GantryException.notFound("Job", id);
        }
        return found;
    }

    private void authorize(List<JobEntity> targets, String id, CurrentUser caller, String action) {
        visible(targets, id, caller);
        for (JobEntity job : targets) {
            if (!caller.mayActFor(job.user())) {
                throw new GantryException(ProblemType.FORBIDDEN, "Job " + JobIds.format(job.jobId(), job.arrayTaskId())
                        + " belongs to " + job.user() + "; only its owner or an operator may " + action + " it");
            }
        }
    }

    private JobEntity findOne(String id) {
        return findAll(id).get(0);
    }

    /** The job, the task, or an array's first task (its tasks share owner, name and script). */
    private JobEntity findFirst(String id) {
        JobIds.Parsed parsed = JobIds.parse(id);
        return (parsed.task() == null ? jobs.findFirstByJobIdOrderByArrayTaskId(parsed.jobId())
                : jobs.findByJobIdAndArrayTaskId(parsed.jobId(), parsed.task()))
                .orElseThrow(() -> GantryException.notFound("Job", id));
    }

    /**
     * The job, the task, or every task of an array, locked until this request's transaction ends: every caller
     * changes them, and a big array's tasks change under the scheduler all the time.
     */
    private List<JobEntity> findAll(String id) {
        JobIds.Parsed parsed = JobIds.parse(id);
        List<JobEntity> found = parsed.task() == null ? jobs.findForUpdateByJobIdOrderByArrayTaskId(parsed.jobId())
                : jobs.findForUpdateByJobIdAndArrayTaskId(parsed.jobId(), parsed.task()).map(List::of).orElse(List.of());
        if (found.isEmpty()) {
            throw GantryException.notFound("Job", id);
        }
        return found;
    }

    /** The cluster's name (gantry.cluster.name). */
    public String clusterName() {
        return cluster.layout().name();
    }

    /** The job as the API shows it; {@code script} is its job id's, or {@link JobScripts.Script#NONE} in lists. */
    /** The job as shown; {@code blocksOf} names the blocks of a hostlist's nodes. */
    static JobView view(JobEntity j, JobScripts.Script script, ClusterService cluster) {
        java.util.function.Function<String, List<String>> blocksOf = cluster::blocksOf;
        boolean task = j.arrayTaskId() != JobIds.NO_TASK;
        String partition = j.partition() != null ? j.partition() : String.join(",", j.partitions());
        List<JobAllocation> allocation = JobAllocation.decode(j.allocation());
        // A job that named no memory gets its partition's default on each node: show what it holds, or
        // while it waits what its first partition would give it.
        long memoryMb = j.memoryMb() > 0 ? j.memoryMb()
                : allocation != null && !allocation.isEmpty()
                        ? allocation.stream().mapToLong(JobAllocation::memoryMb).max().orElse(0)
                : j.defaultMemoryMb() != null ? j.defaultMemoryMb() : 0;
        return new JobView(j.jobId(), JobIds.format(j.jobId(), j.arrayTaskId()), task ? j.jobId() : null,
                task ? j.arrayTaskId() : null, j.name(), j.user(), j.account(), partition, j.qos(), j.state(),
                j.reason(), j.priority(), j.submitTime(), j.eligibleTime(), j.startTime(), j.endTime(),
                j.expectedStartTime(), j.timeLimitSeconds(), j.minNodes(), j.maxNodes(), j.tasks(), j.cpusPerTask(),
                j.ntasksPerNode(), memoryMb, j.gpus(), j.gpusPerNode(), j.gpuType(), j.constraints(),
                j.exclusive(), j.allocatedNodes(), allocation, j.exitCode(),
                j.dependency(), j.requeueCount(), j.arraySpec(), j.hold(), j.nice(), j.workdir(), j.stdout(),
                j.stderr(), j.requeue(), j.reservation(), j.beginTime(), j.options(), j.nodelist(), j.exclude(), j.comment(),
                script.environment() == null ? null : EnvironmentText.decode(script.environment()), script.script(),
                j.simulatedRunSeconds(), j.simulatedExitCode(), j.umask(), j.signal(), j.switches(), j.timeMinSeconds(), j.segment(),
                j.exclusiveMode(), j.shards(), blocksOf.apply(j.allocatedNodes()),
                j.maxRssBytes(),
                j.totalCpuMillis(), j.container(), j.containerImageDigest(), null, null,
                allocation == null || allocation.isEmpty() || j.partition() == null ? null
                        : cluster.billing(j.partition(), JobAllocation.totals(j.allocation())));
    }
}
