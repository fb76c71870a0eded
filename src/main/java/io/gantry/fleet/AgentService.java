package io.gantry.fleet;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.web.context.request.async.DeferredResult;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.Commands;
import io.gantry.noded.protocol.AgentProtocol.Launch;
import io.gantry.noded.protocol.AgentProtocol.Poll;
import io.gantry.noded.protocol.AgentProtocol.Registered;
import io.gantry.noded.protocol.AgentProtocol.Registration;
import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.StepProtocol;
import io.gantry.api.GantryException.FieldError;
import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.cluster.AgentNodes;
import io.gantry.cluster.ClusterLayout;
import io.gantry.cluster.ClusterService;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.ArraySpec;
import io.gantry.jobs.HostedJobs;
import io.gantry.jobs.HostedJobs.HostedJob;
import io.gantry.jobs.JobAllocation;
import io.gantry.jobs.JobCancelRequested;
import io.gantry.jobs.JobState;
import io.gantry.jobs.JobViews.JobView;
import io.gantry.jobs.MeasuredUsage;
import io.gantry.engine.Hostlist;
import io.gantry.engine.TaskCounts;
import io.gantry.scheduling.JobCompletion;
import io.gantry.scheduling.JobEnded;
import io.gantry.scheduling.JobStarted;
import io.gantry.scheduling.JobsPreempted;
import io.gantry.security.JobCredentials;
import io.gantry.steps.NodeAddresses;
import io.gantry.steps.StepCommands;
import io.gantry.steps.StepImages;

/**
 * The controller's side of the agent protocol ({@link AgentProtocol}): registering agents,
 * answering their polls with LAUNCH and KILL commands, applying their reports, and reconciling what
 * an agent runs with what the store says it should.
 */
@Service
class AgentService {

    private static final Logger log = LoggerFactory.getLogger(AgentService.class);
    private static final Pattern NODE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern FEATURE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}");
    private static final Pattern UNIX_USER = Pattern.compile("[A-Za-z0-9_.][A-Za-z0-9_.-]{0,31}");
    private static final Pattern MIG_UUID = Pattern.compile("[A-Za-z0-9_./-]{1,128}");
    private static final Pattern JOB_ID = Pattern.compile("[0-9]{1,19}(_[0-9]{1,10})?");
    private static final Set<String> END_STATES = Set.of("COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "OUT_OF_MEMORY",
            "PREEMPTED");

    private final AgentsProperties properties;
    private final AgentCredentials credentials;
    private final AgentNodes nodes;
    private final ClusterService cluster;
    private final HostedJobs jobs;
    private final StepImages stepImages;
    private final JobCompletion completion;
    private final AgentHub hub;
    private final JobCredentials jobCredentials;
    private final NodeAddresses addresses;
    private final Clock clock;
    private final io.gantry.cluster.PowerStates power;
    /** The health verdict each node last sent, as applied: "" when healthy, else what failed. */
    private final Map<String, String> healthVerdicts = new ConcurrentHashMap<>();

    AgentService(AgentsProperties properties, AgentCredentials credentials, AgentNodes nodes,
            ClusterService cluster, HostedJobs jobs, JobCompletion completion, AgentHub hub,
            JobCredentials jobCredentials, NodeAddresses addresses, Clock clock, StepImages stepImages,
            io.gantry.cluster.PowerStates power) {
        this.power = power;
        this.stepImages = stepImages;
        this.properties = properties;
        this.credentials = credentials;
        this.nodes = nodes;
        this.cluster = cluster;
        this.jobs = jobs;
        this.completion = completion;
        this.hub = hub;
        this.jobCredentials = jobCredentials;
        this.addresses = addresses;
        this.clock = clock;
        for (String partition : properties.defaultPartitions()) {
            if (!cluster.layout().partitions().containsKey(partition)) {
                throw new IllegalStateException("gantry.agents.default-partitions: no partition '" + partition
                        + "' in gantry.cluster.partitions");
            }
        }
    }

    /**
     * A join with the join token (a new credential), or a restart with the node's credential; {@code caller}
     * is what {@link AgentAuthentication} found the agent to be.
     */
    Registered register(AgentAuthentication.AgentCaller caller, Registration registration, String remote) {
        validate(registration);
        String node;
        String credential = null;
        if (caller.joining()) {
            node = registration.name();
            credential = credentials.issue();
        } else {
            node = caller.node();
            if (!node.equals(registration.name())) {
                log.warn("The agent of node '{}' now calls itself '{}'; it stays node '{}' (its credential's)",
                        node, registration.name(), node);
            }
        }
        Instant now = clock.instant();
        List<AgentProtocol.Gpu> gpus = registration.gpus() == null ? List.of() : registration.gpus();
        AgentNodes.Registered result = nodes.register(node,
                new AgentNodes.Resources(registration.cpus(), registration.memoryMb(), gpus.size(),
                        registration.gpuType(), registration.features() == null ? List.of() : registration.features(),
                        registration.mig() == null ? List.of() : registration.mig().stream()
                                .map(m -> new ClusterLayout.MigInstance(m.profile(), m.uuid())).toList()),
                credential == null ? null : AgentCredentials.hash(credential), properties.defaultPartitions(),
                properties.approveNewNodes(), now);
        if (credential != null) {
            credentials.forget(node);
        }
        hub.open(node);
        addresses.heard(node, remote);
        List<Command> commands = reconcile(node, orEmpty(registration.runningJobs()), now);
        log.info("Agent of node '{}' registered from {} ({} CPUs, {} MB, {} GPUs); node is {}{}{}", node, remote,
                registration.cpus(), registration.memoryMb(), gpus.size(), result.state(),
                result.reason() == null ? "" : " (" + result.reason() + ")",
                registration.jobUser() == null ? ""
                        : "; its agent does not run as root and runs jobs only as " + registration.jobUser());
        return new Registered(node, credential, (int) properties.effectivePollWait().toSeconds(),
                (int) properties.killWait().toSeconds(), (int) properties.syncInterval().toSeconds(),
                result.state().name(), result.reason(), commands, nodeSettings());
    }

    private AgentProtocol.NodeSettings nodeSettings() {
        return new AgentProtocol.NodeSettings(properties.allowRootJobs(), properties.healthCheck(),
                (int) Math.max(1, properties.healthCheckInterval().toSeconds()), properties.gpuHealthCheck(),
                properties.prolog(), properties.epilog(), Math.max(0, properties.gpuSampleInterval().toMillis()));
    }

    /** A heartbeat and long poll; reconciles first when asked to or when this controller did not know the agent. */
    DeferredResult<Commands> poll(String node, Poll poll, String remote) {
        Instant now = clock.instant();
        addresses.heard(node, remote);
        List<Command> immediate = List.of();
        if (!hub.connected(node)) {
            hub.open(node);
            nodes.responding(node, now);
            immediate = reconcile(node, poll == null ? List.of() : orEmpty(poll.runningJobs()), now);
        } else if (poll != null && poll.sync()) {
            immediate = reconcile(node, orEmpty(poll.runningJobs()), now);
        }
        if (poll != null && poll.health() != null) {
            applyHealth(node, poll.health(), poll.sync(), now);
        }
        hub.heard(node, now);
        return hub.poll(node, immediate, properties.effectivePollWait().toMillis());
    }

    /**
     * Drains a node whose health check fails and resumes one it drained when it passes again. Every
     * poll carries the verdict, so the store is written only when a node's verdict changes, and on
     * its syncs: a node an operator resumed while its check still fails drains again then, as
     * Slurm's health check program would drain it again.
     */
    private void applyHealth(String node, AgentProtocol.Health health, boolean sync, Instant now) {
        String verdict = health.healthy() ? "" : healthMessage(health.message());
        if (!sync && verdict.equals(healthVerdicts.get(node))) {
            return;
        }
        if (!health.healthy()) {
            if (nodes.healthCheckFailed(node, verdict, now)) {
                log.warn("Node '{}' drained: its health check failed: {}", node, verdict);
            }
        } else if (nodes.healthCheckPassed(node)) {
            log.info("Node '{}' resumed: its health check passes again", node);
        }
        healthVerdicts.put(node, verdict);
    }

    /** An agent's message made fit for a reason: one line of printable text, not too long. */
    private static String healthMessage(String message) {
        String text = message == null ? "" : message.replaceAll("[\\p{Cc}\\p{Cf}]+", " ").strip();
        if (text.isEmpty()) {
            return "failed";
        }
        return text.length() <= 300 ? text : text.substring(0, 299) + "…";
    }

    /**
     * Applies job starts and ends a node reports. Every report is checked before any is applied, and
     * one that could not come from this node's honest agent refuses the whole batch (400 naming
     * {@code reports[i]}, logged): a job not launched on this node, an unknown job, a time beyond
     * now plus {@code gantry.agents.report-skew}, or, for a job still running, a time before its start.
     * Repeats about jobs that already ended are acknowledged and change nothing.
     */
    int report(String node, List<Report> reports) {
        Map<String, HostedJob> byId = new HashMap<>();
        jobs.find(reports.stream().filter(Objects::nonNull).map(Report::jobId).filter(Objects::nonNull).distinct()
                .toList()).forEach(j -> byId.put(j.id(), j));
        Instant latest = clock.instant().plus(properties.reportSkew());
        List<FieldError> errors = new ArrayList<>();
        for (int i = 0; i < reports.size(); i++) {
            FieldError error = refusal(node, "reports[" + i + "]", reports.get(i), byId, latest);
            if (error != null) {
                errors.add(error);
            }
        }
        if (!errors.isEmpty()) {
            log.warn("Refused reports from node '{}' (all {} of the batch, none applied): {}", node, reports.size(),
                    errors.stream()
                    .map(e -> e.field() + " " + e.message()).collect(Collectors.joining("; ")));
            throw new GantryException(ProblemType.VALIDATION, errors.size() == 1
                    ? errors.get(0).field() + ": " + errors.get(0).message()
                    : errors.size() + " reports are refused; none was applied", errors);
        }
        int applied = 0;
        List<Long> started = new ArrayList<>();
        for (Report r : reports) {
            HostedJob job = byId.get(r.jobId());
            if (!job.state().isActive() || earlierRun(r, job)) {
                continue; // a repeat (the job ended already), or about an earlier run of a requeued job
            }
            if (r.type() == AgentProtocol.ReportType.IMAGE) {
                // never an end: the node has the image its job or step is about to run in
                if (image(node, job, r)) {
                    applied++;
                }
            } else if (r.type() == AgentProtocol.ReportType.STARTED) {
                started.add(job.row());
            } else {
                String detail = r.detail() != null ? r.detail()
                        : r.signal() != null ? "killed by signal " + r.signal() + " on " + node
                        : "exited with code " + r.exitCode() + " on " + node;
                MeasuredUsage usage = r.usage() == null ? MeasuredUsage.UNKNOWN
                        : MeasuredUsage.of(r.usage().maxRssBytes(), r.usage().cpuTimeMillis());
                if (completion.end(job.row(), JobState.valueOf(r.state()), r.exitCode(), r.time(), detail, usage)) {
                    applied++;
                }
            }
        }
        if (!started.isEmpty()) {
            applied += jobs.markLaunched(started);
        }
        return applied;
    }

    /**
     * Records an IMAGE report: the digest on the job (its batch script's image) or on its step, and a
     * job event that says which image, whether the node pulled it now and how long that took, so the
     * job's history shows a slow pull or a second job that found the image in the node's cache.
     */
    private boolean image(String node, HostedJob job, Report r) {
        AgentProtocol.ContainerImage image = r.image();
        Integer stepId = image.stepId();
        if (image.pullingBytes() != null) {
            // a pull under way: an event for the job's history, nothing recorded of the image yet
            String text = (stepId == null ? "" : "step " + stepId + ": ") + "image " + image.reference() + " ("
                    + image.digest() + ") " + (image.pullingBytes() == 0 ? "being pulled on " + node
                    : String.format(java.util.Locale.ROOT, "still being pulled on %s: %.1f MB in %.0f s", node,
                            image.pullingBytes() / 1e6, image.seconds()));
            jobs.recordImage(job.row(), stepId, null, r.time(), text.length() <= 4000 ? text : text.substring(0, 3999) + "…");
            return true;
        }
        StringBuilder detail = new StringBuilder(stepId == null ? "" : "step " + stepId + ": ").append("image ")
                .append(image.reference()).append(" (").append(image.digest()).append(") ")
                .append(image.pulled() ? String.format(java.util.Locale.ROOT, "pulled on %s in %.1f s", node,
                        image.seconds()) : "found in " + node + "'s image cache");
        if (r.detail() != null && !r.detail().isBlank()) {
            detail.append(": ").append(r.detail().strip());
        }
        String text = detail.length() <= 4000 ? detail.toString() : detail.substring(0, 3999) + "…";
        boolean first = stepId == null || stepImages.record(job.row(), stepId, image.digest());
        jobs.recordImage(job.row(), stepId, image.digest(), r.time(), text);
        return first;
    }

    /** A digest as registries write one: algorithm:hex. */
    private static final Pattern DIGEST = Pattern.compile("[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-fA-F0-9]{32,128}");

    /** Why an IMAGE report's image cannot be taken, or null when it can. */
    private static FieldError imageRefusal(String field, AgentProtocol.ContainerImage image) {
        if (image == null) {
            return new FieldError(field, "is required for IMAGE");
        }
        if (image.reference() == null || image.reference().isBlank() || image.reference().length() > 1024) {
            return new FieldError(field + ".reference", "is required: 1 to 1024 characters");
        }
        if (image.digest() == null || !DIGEST.matcher(image.digest()).matches()) {
            return new FieldError(field + ".digest", "must be a digest such as sha256:<64 hex digits>");
        }
        if (image.stepId() != null && image.stepId() < 0) {
            return new FieldError(field + ".stepId", "must be a step number (0 or more), or null for the batch script");
        }
        if (!Double.isFinite(image.seconds()) || image.seconds() < 0) {
            return new FieldError(field + ".seconds", "must be 0 or more");
        }
        if (image.pullingBytes() != null && image.pullingBytes() < 0) {
            return new FieldError(field + ".pullingBytes", "must be 0 or more, or null once the image is there");
        }
        return null;
    }

    /**
     * Whether a report names the run it is about and that is not the job's current run. A report that
     * names the current run may be timed a little before its start (the agent's clock), and is not
     * refused for it.
     */
    private static boolean earlierRun(Report r, HostedJob job) {
        // the store keeps microseconds, a launch built in the starting transaction may carry nanoseconds
        return r.runStart() != null && (job.startTime() == null
                || Math.abs(java.time.Duration.between(r.runStart(), job.startTime()).toNanos()) > 1_000_000);
    }

    /** Why one report cannot be accepted from {@code node}, or null when it can. */
    private static FieldError refusal(String node, String field, Report r, Map<String, HostedJob> byId,
            Instant latest) {
        if (r == null) {
            return new FieldError(field, "is required");
        }
        if (r.jobId() == null || r.jobId().isBlank()) {
            return new FieldError(field + ".jobId", "is required");
        }
        if (r.type() == null) {
            return new FieldError(field + ".type", "is required: STARTED, ENDED or IMAGE");
        }
        if (r.type() == AgentProtocol.ReportType.IMAGE) {
            FieldError refused = imageRefusal(field + ".image", r.image());
            if (refused != null) {
                return refused;
            }
        }
        if (r.type() == AgentProtocol.ReportType.ENDED && !END_STATES.contains(r.state())) {
            return new FieldError(field + ".state", "must be one of " + END_STATES + " for ENDED");
        }
        if (r.time() == null) {
            return new FieldError(field + ".time", "is required");
        }
        HostedJob job = byId.get(r.jobId());
        if (job == null) {
            return new FieldError(field + ".jobId", "no job " + r.jobId() + " exists");
        }
        if (earlierRun(r, job)) {
            return null; // acknowledged and ignored: the job was requeued since (it may run elsewhere now)
        }
        boolean ofStep = r.type() == AgentProtocol.ReportType.IMAGE && r.image().stepId() != null;
        if (ofStep && !job.runsOn(node)) {
            return new FieldError(field + ".image.stepId", "job " + r.jobId() + " has no nodes on node '" + node + "'");
        }
        if (!ofStep && !node.equals(job.batchHost())) {
            return new FieldError(field + ".jobId", "job " + r.jobId() + " was not launched on node '" + node + "'");
        }
        if (r.time().isAfter(latest)) {
            return new FieldError(field + ".time", r.time() + " is in the future (more than gantry.agents.report-skew "
                    + "ahead of the controller's clock)");
        }
        if (job.state().isActive() && job.startTime() != null && r.runStart() == null
                && r.time().isBefore(job.startTime())) {
            return new FieldError(field + ".time", r.time() + " is before the job started (" + job.startTime() + ")");
        }
        return null;
    }

    /**
     * Brings the store and an agent in line: jobs it should run but never started are launched;
     * jobs it started but lost end NODE_FAIL (or go back to the queue); jobs it runs that were
     * cancelled, or that the store does not have running there, are killed.
     */
    List<Command> reconcile(String node, List<String> running, Instant now) {
        Set<String> runs = new HashSet<>(running);
        List<Command> commands = new ArrayList<>();
        List<Long> toLaunch = new ArrayList<>();
        List<Long> confirmed = new ArrayList<>();
        Set<String> known = new HashSet<>();
        for (HostedJob job : jobs.onBatchHost(node)) {
            known.add(job.id());
            boolean there = runs.contains(job.id());
            if (job.state() == JobState.COMPLETING) {
                if (there) {
                    commands.add(Command.kill(job.id(), JobState.CANCELLED.name(), "cancelled"));
                } else {
                    completion.end(job.row(), JobState.CANCELLED, null, now, "cancelled; no longer running on " + node);
                }
            } else if (there) {
                if (!job.launched()) {
                    confirmed.add(job.row());
                }
            } else if (job.launched()) {
                completion.nodeFailed(job.row(), now, "the agent of " + node + " no longer runs it (it restarted)");
            } else {
                toLaunch.add(job.row());
            }
        }
        if (!confirmed.isEmpty()) {
            jobs.markLaunched(confirmed);
        }
        for (String id : runs) {
            if (!known.contains(id)) {
                commands.add(Command.kill(id, JobState.CANCELLED.name(), "not running on " + node
                        + " as far as the controller knows"));
            }
        }
        commands.addAll(launches(toLaunch));
        return commands;
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobStarted event) {
        List<Long> rows = event.jobs().stream()
                .filter(j -> !j.allocation().isEmpty() && hub.connected(j.allocation().get(0).node()))
                .map(ActiveJob::row).toList();
        if (rows.isEmpty()) {
            return;
        }
        Map<String, List<Command>> byNode = new LinkedHashMap<>();
        for (Command c : launches(rows)) {
            byNode.computeIfAbsent(c.launch().nodes().get(0), n -> new ArrayList<>()).add(c);
        }
        byNode.forEach(hub::deliver);
    }

    /**
     * The nodes of a multi-node job besides its batch host learn that its run is over, so that they drop
     * what it left (its named containers live for the job's life there); the batch host knows by itself.
     */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobEnded event) {
        for (String node : event.nodes().subList(Math.min(1, event.nodes().size()), event.nodes().size())) {
            if (hub.connected(node)) {
                hub.deliver(node, List.of(Command.jobEnded(event.jobId())));
            }
        }
    }

    /**
     * Jobs suspended for their preemptors are frozen on every node they run on, and thawed there when they
     * resume; like kills, dropped for an agent not connected here.
     */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(io.gantry.scheduling.JobsSuspended event) {
        for (io.gantry.scheduling.JobsSuspended.Target t : event.suspended()) {
            t.nodes().forEach(node -> hub.deliver(node, List.of(Command.suspend(t.jobId(), true))));
        }
        for (io.gantry.scheduling.JobsSuspended.Target t : event.resumed()) {
            t.nodes().forEach(node -> hub.deliver(node, List.of(Command.suspend(t.jobId(), false))));
        }
    }

    /** Jobs an operator suspended (scontrol suspend) are frozen on every node they run on, thawed when resumed. */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(io.gantry.jobs.JobsFrozen event) {
        for (io.gantry.jobs.JobsFrozen.Target t : event.targets()) {
            t.nodes().forEach(node -> hub.deliver(node, List.of(Command.suspend(t.jobId(), event.frozen()))));
        }
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobsPreempted event) {
        for (JobsPreempted.Victim v : event.victims()) {
            if (v.batchHost() != null) {
                hub.deliver(v.batchHost(), List.of(Command.kill(v.jobId(), v.state(), v.detail())));
            }
        }
    }

    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobCancelRequested event) {
        for (JobView job : jobs.views(event.jobRows())) {
            if (job.allocation() != null && !job.allocation().isEmpty()) {
                hub.deliver(job.allocation().get(0).node(),
                        List.of(Command.kill(job.id(), JobState.CANCELLED.name(), "cancelled")));
            }
        }
    }

    /**
     * Signals for running jobs (scancel --signal, a reclaim's grace time) go to the agents of their
     * nodes; like kills, they are dropped for an agent not connected here (its job is then not signalled).
     */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(io.gantry.jobs.JobSignalRequested event) {
        for (io.gantry.jobs.JobSignalRequested.Target target : event.targets()) {
            AgentProtocol.SignalScope scope = AgentProtocol.SignalScope.valueOf(target.scope().name());
            for (String node : target.nodes()) {
                hub.deliver(node, List.of(Command.jobSignal(target.jobId(), target.signal(), scope)));
            }
        }
    }

    /** Step launches and signals go to the agents of the step's nodes. */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(StepCommands event) {
        if (event.owner() == null) {
            event.byNode().forEach(hub::deliver);
            return;
        }
        // Who a step's tasks run as is the job's owner as this cluster maps them, never what the caller's
        // environment said (an agent whose node does not run the batch script takes SLURM_JOB_USER from it).
        String unixUser = properties.unixUser(event.owner());
        event.byNode().forEach((node, commands) -> hub.deliver(node, commands.stream().map(c -> {
            if (c.type() != AgentProtocol.CommandType.STEP_LAUNCH || c.step() == null) {
                return c;
            }
            AgentProtocol.StepTasks s = c.step();
            Map<String, String> env = new LinkedHashMap<>(s.environment() == null ? Map.of() : s.environment());
            env.put("SLURM_JOB_USER", unixUser);
            return Command.stepLaunch(new AgentProtocol.StepTasks(s.jobId(), s.stepId(), s.argv(), s.tasks(),
                    s.workdir(), s.nodeId(), env, s.signal(), s.container()));
        }).toList()));
    }

    /** Launches the jobs these batch hosts hold and have not started: their nodes have just come up. */
    void launchWaiting(java.util.Collection<String> batchHosts) {
        for (String host : batchHosts) {
            List<Long> rows = jobs.onBatchHost(host).stream()
                    .filter(j -> j.state() == JobState.RUNNING && !j.launched()).map(HostedJob::row).toList();
            List<Command> commands = launches(rows);
            if (!commands.isEmpty() && hub.connected(host)) {
                hub.deliver(host, commands);
            }
        }
    }

    /** LAUNCH commands for running jobs on agent-run nodes (simulated nodes run their own). */
    private List<Command> launches(List<Long> rows) {
        if (rows.isEmpty()) {
            return List.of();
        }
        ClusterLayout layout = cluster.layout();
        List<Command> commands = new ArrayList<>();
        for (JobView job : jobs.views(rows)) {
            if (job.state() != JobState.RUNNING || job.allocation() == null || job.allocation().isEmpty()) {
                continue;
            }
            JobAllocation batch = job.allocation().get(0);
            ClusterLayout.NodeSpec spec = layout.nodes().get(batch.node());
            if (spec != null && spec.simulated()) {
                continue;
            }
            List<String> hosts = job.allocation().stream().map(JobAllocation::node).toList();
            if (!power.allPoweredOn(hosts)) {
                continue; // launched once its nodes are up (launchWaiting)
            }
            commands.add(Command.launch(new Launch(job.id(), job.jobId(), job.arrayTaskId(), job.name(), job.user(),
                    job.account(), job.partition(), job.qos(), job.script(), job.workdir(), withCredential(job),
                    job.stdout(), job.stderr(), job.timeLimitSeconds(), job.startTime(),
                    Hostlist.of(hosts).toString(), hosts, job.tasks(), job.cpusPerTask(), batch.cpus(),
                    batch.memoryMb(), batch.gpuIndices(),
                    new AgentProtocol.JobIdentity(properties.unixUser(job.user()), job.umask(), job.signal()),
                    batch.migIndices(), batch.shardGpu(), context(layout.name(), job), job.container())));
        }
        return commands;
    }

    /**
     * What Slurm tells a job beyond its own node's share: the CPUs of every node and the tasks each
     * holds (in the order of its nodelist), the cluster's name, how often it was requeued, and for an
     * array task the shape of its array.
     */
    static AgentProtocol.JobContext context(String clusterName, JobView job) {
        List<Integer> cpus = job.allocation().stream().map(JobAllocation::cpus).toList();
        List<Integer> tasks = job.ntasksPerNode() != null && job.ntasksPerNode() > 0
                ? java.util.Collections.nCopies(cpus.size(), job.ntasksPerNode())
                : TaskCounts.blockLayout(cpus, job.tasks(), job.cpusPerTask());
        Integer count = null;
        Integer min = null;
        Integer max = null;
        Integer step = null;
        if (job.arrayTaskId() != null && job.array() != null) {
            try {
                List<Integer> ids = ArraySpec.parse(job.array(), Integer.MAX_VALUE).taskIds();
                if (!ids.isEmpty()) {
                    count = ids.size();
                    min = ids.get(0);
                    max = ids.get(ids.size() - 1);
                    // Slurm's step: the one stride between all the indexes, 1 when they have none
                    step = ids.size() < 2 ? 1 : ids.get(1) - ids.get(0);
                    for (int i = 2; i < ids.size(); i++) {
                        if (ids.get(i) - ids.get(i - 1) != step) {
                            step = 1;
                            break;
                        }
                    }
                }
            } catch (RuntimeException e) {
                log.debug("job {}: array expression '{}' unreadable: {}", job.id(), job.array(), e.toString());
            }
        }
        return new AgentProtocol.JobContext(clusterName, TaskCounts.compressed(cpus), TaskCounts.compressed(tasks),
                job.ntasksPerNode(), job.gpusPerNode() > 0 ? job.gpusPerNode() : null, job.requeueCount(), count, min,
                max, step);
    }

    /**
     * The job's environment plus its credential ({@code GANTRY_JOB_TOKEN}): srun inside it creates steps
     * with it, and sbatch or the REST API act as the job's owner (a USER) while the job runs.
     */
    private Map<String, String> withCredential(JobView job) {
        Map<String, String> environment = new LinkedHashMap<>();
        if (job.environment() != null) {
            environment.putAll(job.environment());
        }
        environment.put(StepProtocol.CREDENTIAL_ENV,
                jobCredentials.issue(job.user(), job.id(), job.startTime(), job.timeLimitSeconds()));
        return environment;
    }

    /**
     * Every field of a registration within its bounds ({@link Registration#MAX_CPUS} and the rest),
     * checked before anything is applied: a registration past one is refused whole (400 naming each
     * wrong field) and changes nothing, in the store or in memory.
     */
    private static void validate(Registration r) {
        List<FieldError> errors = new ArrayList<>();
        if (r == null) {
            throw GantryException.badRequest("body", "is required");
        }
        if (r.name() == null || !NODE_NAME.matcher(r.name()).matches()) {
            errors.add(new FieldError("name", "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter "
                    + "or digit"));
        }
        if (r.cpus() < 1 || r.cpus() > Registration.MAX_CPUS) {
            errors.add(new FieldError("cpus", "must be 1 to " + Registration.MAX_CPUS));
        }
        if (r.memoryMb() < 1 || r.memoryMb() > Registration.MAX_MEMORY_MB) {
            errors.add(new FieldError("memoryMb", "must be 1 to " + Registration.MAX_MEMORY_MB));
        }
        if (r.gpus() != null) {
            if (r.gpus().size() > Registration.MAX_GPUS) {
                errors.add(new FieldError("gpus", "lists " + r.gpus().size() + " GPUs; at most "
                        + Registration.MAX_GPUS + " are allowed"));
            } else {
                Set<Integer> seen = new HashSet<>();
                for (int i = 0; i < r.gpus().size(); i++) {
                    AgentProtocol.Gpu g = r.gpus().get(i);
                    if (g == null || g.index() < 0 || g.index() > Registration.MAX_GPU_INDEX || !seen.add(g.index())) {
                        errors.add(new FieldError("gpus[" + i + "].index", "must be a distinct index of 0 to "
                                + Registration.MAX_GPU_INDEX));
                    }
                    if (g != null) {
                        text(errors, "gpus[" + i + "].uuid", g.uuid(), Registration.MAX_TEXT);
                        text(errors, "gpus[" + i + "].model", g.model(), Registration.MAX_TEXT);
                    }
                }
            }
        }
        if (r.gpuType() != null && !FEATURE.matcher(r.gpuType()).matches()) {
            errors.add(new FieldError("gpuType", wordError(r.gpuType())));
        }
        if (r.features() != null) {
            if (r.features().size() > Registration.MAX_FEATURES) {
                errors.add(new FieldError("features", "lists " + r.features().size() + " features; at most "
                        + Registration.MAX_FEATURES + " are allowed"));
            } else {
                for (int i = 0; i < r.features().size(); i++) {
                    String f = r.features().get(i);
                    if (f == null || !FEATURE.matcher(f).matches()) {
                        errors.add(new FieldError("features[" + i + "]", wordError(f)));
                    }
                }
                // The node's row keeps them joined by commas, in at most MAX_FEATURES_TEXT characters.
                int joined = r.features().stream().filter(Objects::nonNull).mapToInt(f -> f.length() + 1).sum() - 1;
                if (joined > Registration.MAX_FEATURES_TEXT) {
                    errors.add(new FieldError("features", "are " + joined + " characters long together (with a "
                            + "comma between each two); at most " + Registration.MAX_FEATURES_TEXT + " are allowed"));
                }
            }
        }
        text(errors, "agentVersion", r.agentVersion(), Registration.MAX_TEXT);
        if (r.jobUser() != null && !UNIX_USER.matcher(r.jobUser()).matches()) {
            errors.add(new FieldError("jobUser", "must be a Unix account name of at most " + Registration.MAX_USER
                    + " letters, digits, '.', '_' or '-'"));
        }
        if (r.mig() != null) {
            if (r.mig().size() > Registration.MAX_GPUS) {
                errors.add(new FieldError("mig", "lists " + r.mig().size() + " MIG instances; at most "
                        + Registration.MAX_GPUS + " are allowed"));
            } else {
                for (int i = 0; i < r.mig().size(); i++) {
                    AgentProtocol.MigDevice m = r.mig().get(i);
                    if (m == null) {
                        errors.add(new FieldError("mig[" + i + "]", "is required"));
                        continue;
                    }
                    if (m.gpu() < 0 || m.gpu() > Registration.MAX_GPU_INDEX) {
                        errors.add(new FieldError("mig[" + i + "].gpu", "must be 0 to " + Registration.MAX_GPU_INDEX));
                    }
                    if (m.profile() == null || !FEATURE.matcher(m.profile()).matches()) {
                        errors.add(new FieldError("mig[" + i + "].profile", wordError(m.profile())));
                    }
                    // Stored as profile=uuid,...: neither may hold a ',' or '='.
                    if (m.uuid() != null && !MIG_UUID.matcher(m.uuid()).matches()) {
                        errors.add(new FieldError("mig[" + i + "].uuid", "must be at most " + Registration.MAX_TEXT
                                + " letters, digits, '-', '_', '.' or '/'"));
                    }
                }
            }
        }
        runningJobs(errors, r.runningJobs());
        if (!errors.isEmpty()) {
            throw new GantryException(ProblemType.VALIDATION, errors.size() == 1
                    ? "The registration is invalid: " + errors.get(0).field() + " " + errors.get(0).message()
                    : "The registration is invalid (" + errors.size() + " fields)", errors);
        }
    }

    /** A poll's lists and texts within the registration's bounds: 400 naming the field, before anything is applied. */
    static void validate(Poll poll) {
        if (poll == null) {
            return;
        }
        List<FieldError> errors = new ArrayList<>();
        runningJobs(errors, poll.runningJobs());
        if (poll.health() != null) {
            text(errors, "health.message", poll.health().message(), Registration.MAX_HEALTH_MESSAGE);
        }
        if (!errors.isEmpty()) {
            throw new GantryException(ProblemType.VALIDATION, "The poll is invalid: " + errors.get(0).field() + " "
                    + errors.get(0).message(), errors);
        }
    }

    private static void runningJobs(List<FieldError> errors, List<String> running) {
        if (running == null) {
            return;
        }
        if (running.size() > Registration.MAX_RUNNING_JOBS) {
            errors.add(new FieldError("runningJobs", "lists " + running.size() + " jobs; at most "
                    + Registration.MAX_RUNNING_JOBS + " are allowed"));
            return;
        }
        for (int i = 0; i < running.size(); i++) {
            String id = running.get(i);
            if (id == null || !JOB_ID.matcher(id).matches()) {
                errors.add(new FieldError("runningJobs[" + i + "]", "must be a job id (digits, or digits_digits for "
                        + "an array task) of at most " + Registration.MAX_JOB_ID + " characters"));
                return; // one is enough: the agent sends them all alike
            }
        }
    }

    private static void text(List<FieldError> errors, String field, String value, int max) {
        if (value != null && value.length() > max) {
            errors.add(new FieldError(field, "is " + value.length() + " characters long; at most " + max
                    + " are allowed"));
        }
    }

    private static String wordError(String value) {
        return value != null && value.length() > Registration.MAX_WORD
                ? "is " + value.length() + " characters long; at most " + Registration.MAX_WORD + " are allowed"
                : "must be a word of letters, digits, '_', '.', '+' or '-'";
    }

    private static List<String> orEmpty(List<String> list) {
        return list == null ? List.of() : list;
    }
}
