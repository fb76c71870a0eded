package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.AgentProtocol.CommandType;
import io.gantry.noded.protocol.AgentProtocol.Commands;
import io.gantry.noded.protocol.AgentProtocol.Report;
import io.gantry.noded.protocol.AgentProtocol.ReportType;
import io.gantry.noded.protocol.AgentProtocol.Poll;
import io.gantry.noded.protocol.AgentProtocol.Registered;
import io.gantry.noded.protocol.AgentProtocol.Registration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent's life: stop what an earlier run left, register (with the stored node
 * credential, else the join token), then long-poll the controller for commands and carry them out,
 * while job starts and ends go out on their own thread. It rides out a controller restart: on a
 * connection error it backs off and polls again with {@code sync}; when the controller no longer
 * knows it (401, 404, 409) it registers again.
 */
final class Agent implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Agent.class);
    private static final int DEFAULT_SYNC_SECONDS = 300;

    /** Who the agent is to the controller after registering. {@link #toString()} hides the credential. */
    record Session(String node, String credential) {
        @Override
        public String toString() {
            return "Session[node=" + node + "]";
        }
    }

    /** The controller refused this agent for good: exit 1. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    private final AgentOptions options;
    private final NodeResources resources;
    private final ControllerClient client;
    private final CredentialStore credentials;
    private final ReportQueue reports;
    private final JobRunner jobs;
    private final UnixAccount account;
    private final ReportSender sender;
    private final StepReportSender stepSender;
    private final HealthChecks health;
    /** Null on nodes without GPUs nvidia-smi answers for. */
    private final GpuSampler gpuSampler;
    /** Answers OUTPUT_READ commands: two at a time, at most 64 waiting. */
    private final java.util.concurrent.ThreadPoolExecutor outputReader = new java.util.concurrent.ThreadPoolExecutor(
            2, 2, 30, TimeUnit.SECONDS, new java.util.concurrent.ArrayBlockingQueue<>(64), r -> {
                Thread t = new Thread(r, "agent-output-reads");
                t.setDaemon(true);
                return t;
            });
    private final Backoff backoff = new Backoff(log, "talking to the controller");
    private volatile Session session;
    private volatile boolean stopped;
    private volatile Thread loop;
    private boolean credentialRefused;

    Agent(AgentOptions options, NodeResources resources, Clock clock) {
        this(options, resources, clock, CgroupFence.of(Cgroups.detect().under(options.cgroupRoot()), options::name, DeviceConstraint.of(
                GpuDevices.detect(Path.of("/proc"), Path.of("/dev"), options.gpus() == null ? -1 : options.gpus(),
                        resources.mig()),
                AgentDirs.prepare(options.workDir()).state())));
    }

    Agent(AgentOptions options, NodeResources resources, Clock clock, JobProcess.Fences fences) {
        this.options = options;
        this.resources = resources;
        this.client = new ControllerClient(options.controllers());
        AgentDirs dirs = AgentDirs.prepare(options.workDir());
        this.credentials = new CredentialStore(dirs.state());
        this.reports = ReportQueue.load(dirs.state().resolve("pending-reports.json"));
        try {
            this.account = UnixAccount.current();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!account.root()) {
            log.warn("the agent runs as {} (uid {}), not as root: it can run jobs only as {}", account.name(),
                    account.uid(), account.name());
        }
        this.stepSender = new StepReportSender((s, r) -> client.stepReports(s.node(), r, s.credential()),
                () -> session);
        this.jobs = new JobRunner(options.name(), dirs, clock, this::queue, stepSender, account, fences,
                options.controllers());
        this.jobs.useMigDevices(resources.mig().stream().map(AgentProtocol.MigDevice::uuid).toList());
        ContainerRuntime.Settings containers = ContainerRuntime.Settings.forNode(options,
                options.gpus() == null && resources.gpus().isEmpty() ? GpuDevices.none()
                        : GpuDevices.detect(Path.of("/proc"), Path.of("/dev"), options.gpus() == null ? -1
                                : options.gpus(), resources.mig()));
        this.jobs.useContainers(containers);
        log.info("containers run with {} (image cache of at most {} MiB)", containers.runtime(),
                containers.cacheLimitBytes() / 1024 / 1024);
        this.sender = new ReportSender(reports, client, () -> session);
        // GPUs declared on the command line have no nvidia-smi to answer for them
        this.health = new HealthChecks(options.gpus() == null ? resources.gpus() : List.of(), "nvidia-smi",
                HealthChecks.PROGRAM_TIMEOUT);
        boolean smiGpus = options.gpus() == null && (!resources.gpus().isEmpty() || !resources.mig().isEmpty());
        this.gpuSampler = smiGpus ? new GpuSampler("nvidia-smi", jobs::gpuHolders, clock) : null;
    }

    /**
     * Queues a job report for the controller. An end that names no run (a kill for a job not
     * running here) adds nothing while an end of that job is still on its way: the controller lists
     * the job as running until then, and that end is the one that counts.
     */
    private void queue(Report report) {
        if (report.type() == ReportType.ENDED && report.runStart() == null
                && reports.unacknowledgedEnds().contains(report.jobId())) {
            log.info("job {}: its end is already on its way to the controller", report.jobId());
            return;
        }
        reports.add(report);
    }

    /**
     * Runs until {@link #close()} (then returns 0) or until the controller refuses every way of
     * registering (then 1).
     */
    int run() {
        loop = Thread.currentThread();
        int adopted = jobs.adoptLeftovers();
        if (adopted > 0) {
            log.info("adopted {} job(s) an earlier run of this agent left running", adopted);
        }
        if (!reports.pending().isEmpty()) {
            log.info("{} job report(s) from an earlier run still to send", reports.pending().size());
        }
        sender.start();
        stepSender.start();
        try {
            while (!stopped) {
                Registered registered = register();
                jobs.apply(registered.commands());
                health.configure(registered.settings());
                if (gpuSampler != null) {
                    gpuSampler.configure((registered.settings() == null ? AgentProtocol.NodeSettings.DEFAULTS
                            : registered.settings()).gpuSampleIntervalMillis());
                }
                pollUntilUnknown(registered);
            }
            return 0;
        } catch (Refused e) {
            log.error("{}; stopping", e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            return 0;
        } finally {
            sender.stop();
            stepSender.stop();
            health.close();
        }
    }

    private Registered register() throws InterruptedException, Refused {
        while (true) {
            checkStopped();
            Optional<CredentialStore.StoredCredential> stored = credentialRefused ? Optional.empty()
                    : credentials.forController(options.controller());
            boolean withCredential = stored.isPresent();
            String bearer = withCredential ? stored.get().credential() : options.joinToken();
            if (bearer == null) {
                throw new Refused("the controller refused the stored credential and no join token was given "
                        + "(" + AgentOptions.JOIN_TOKEN_ENV + " or --join-token-file)");
            }
            try {
                Registered registered = client.register(registration(), bearer);
                backoff.succeeded();
                String credential = bearer;
                if (registered.credential() != null && !registered.credential().isBlank()) {
                    credential = registered.credential();
                    credentials.save(new CredentialStore.StoredCredential(options.controller().toString(),
                            registered.node(), credential));
                } else if (!withCredential) {
                    log.warn("the controller gave no node credential on joining; using the join token");
                }
                credentialRefused = false;
                session = new Session(registered.node(), credential);
                jobs.configure(registered.node(), Duration.ofSeconds(Math.max(0, registered.killWaitSeconds())),
                        registered.settings());
                log.info("registered with {} as node {} ({}): state {}{}, {} command(s)", options.controller(),
                        registered.node(), withCredential ? "node credential" : "join token", registered.state(),
                        registered.reason() == null ? "" : " (" + registered.reason() + ")",
                        registered.commands() == null ? 0 : registered.commands().size());
                return registered;
            } catch (ControllerClient.Refused e) {
                if (e.unauthorized() && withCredential && options.joinToken() != null) {
                    log.warn("the controller refused the stored node credential ({}); joining with the join token",
                            e.getMessage());
                    credentialRefused = true;
                } else if (e.unauthorized()) {
                    throw new Refused("the controller refused the " + (withCredential ? "stored node credential"
                            : "join token") + ": " + e.getMessage());
                } else {
                    backoff.failed("register: " + e.getMessage());
                }
            } catch (IOException e) {
                backoff.failed("register: " + describe(e));
            }
        }
    }

    /** Polls until the controller no longer knows this node (then the caller registers again). */
    private void pollUntilUnknown(Registered registered) throws InterruptedException {
        Session current = session;
        Duration timeout = Duration.ofSeconds(Math.max(0, registered.pollSeconds()) + 15L);
        long syncNanos = TimeUnit.SECONDS.toNanos(registered.syncSeconds() > 0 ? registered.syncSeconds()
                : DEFAULT_SYNC_SECONDS);
        boolean sync = true;
        long lastSync = System.nanoTime();
        while (true) {
            checkStopped();
            boolean syncNow = sync || System.nanoTime() - lastSync >= syncNanos;
            List<AgentProtocol.GpuSample> samples = gpuSampler == null ? List.of()
                    : gpuSampler.drain(AgentProtocol.GpuSample.MAX_PER_POLL);
            boolean delivered = false;
            try {
                Commands commands = client.poll(current.node(), new Poll(runningJobs(), syncNow, health.verdict(),
                        samples.isEmpty() ? null : samples), current.credential(), timeout);
                delivered = true;
                backoff.succeeded();
                if (syncNow) {
                    lastSync = System.nanoTime();
                }
                sync = false;
                jobs.apply(commands.commands());
                answerOutputReads(current, commands.commands());
            } catch (ControllerClient.Refused e) {
                if (e.unauthorized() || e.status() == 404 || e.status() == 409) {
                    log.info("the controller answered a poll with {}: registering again", e.getMessage());
                    return;
                }
                sync = true;
                backoff.failed("poll: " + e.getMessage());
            } catch (IOException e) {
                sync = true;
                backoff.failed("poll: " + describe(e));
            } finally {
                if (!delivered && !samples.isEmpty()) {
                    gpuSampler.putBack(samples);
                }
            }
        }
    }

    /**
     * Reads the job files OUTPUT_READ commands ask for and sends them, on a thread of their own so a
     * slow disk never holds up the poll. An answer that cannot be delivered is dropped: the controller
     * stops waiting for it after a few seconds and its client asks again.
     */
    private void answerOutputReads(Session current, List<Command> commands) {
        if (commands == null) {
            return;
        }
        for (Command command : commands) {
            if (command != null && command.type() == CommandType.STEP_STAT && command.step() != null) {
                answerStepStat(current, command);
                continue;
            }
            if (command == null || command.type() != CommandType.OUTPUT_READ || command.output() == null) {
                continue;
            }
            try {
                outputReader.execute(() -> {
                    try {
                        client.output(current.node(), jobs.readOutput(command.jobId(), command.output()),
                                current.credential());
                    } catch (IOException | ControllerClient.Refused e) {
                        log.info("could not send job {}'s output to the controller: {}", command.jobId(),
                                e.getMessage());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                log.warn("too many output reads waiting: dropping job {}'s", command.jobId());
            }
        }
    }

    /** Reads a step's usage here for a STEP_STAT (sstat) and sends it, on the output reader's threads. */
    private void answerStepStat(Session current, Command command) {
        try {
            outputReader.execute(() -> {
                try {
                    client.stepUsage(current.node(), jobs.stepUsage(command.jobId(), command.step().stepId(),
                            command.detail()), current.credential());
                } catch (IOException | ControllerClient.Refused e) {
                    log.info("could not send step {}.{}'s usage to the controller: {}", command.jobId(),
                            command.step().stepId(), e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.warn("too many reads waiting: dropping step {}.{}'s usage", command.jobId(), command.step().stepId());
        }
    }

    /**
     * The jobs this node still answers for: scripts that run, and jobs whose end the controller has
     * not acknowledged yet (so a sync never takes a finished job for a lost one).
     */
    private List<String> runningJobs() {
        Set<String> ids = new LinkedHashSet<>(jobs.runningJobs());
        ids.addAll(reports.unacknowledgedEnds());
        return new ArrayList<>(ids);
    }

    private Registration registration() {
        String version = Agent.class.getPackage().getImplementationVersion();
        return new Registration(options.name(), resources.cpus(), resources.memoryMb(), resources.gpus(),
                resources.gpuType(), resources.features(), version == null ? "dev" : version, runningJobs(),
                account.root() ? null : account.name(), resources.mig());
    }

    private void checkStopped() throws InterruptedException {
        if (stopped || Thread.currentThread().isInterrupted()) {
            throw new InterruptedException("stopping");
        }
    }

    /** A connection failure in a few words, the same each time it repeats. */
    static String describe(IOException e) {
        if (e instanceof ConnectException) {
            return "cannot connect (" + (e.getMessage() == null ? "connection refused" : e.getMessage()) + ")";
        }
        if (e instanceof HttpTimeoutException) {
            return "no answer in time";
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** Stops the loops and kills the jobs. */
    @Override
    public void close() {
        stopped = true;
        Thread t = loop;
        if (t != null) {
            t.interrupt();
        }
        sender.stop();
        stepSender.stop();
        health.close();
        if (gpuSampler != null) {
            gpuSampler.close();
        }
        outputReader.shutdownNow();
        jobs.close();
    }
}
