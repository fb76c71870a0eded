package io.gantry.agent;

import io.gantry.agent.protocol.AgentProtocol.Command;
import io.gantry.agent.protocol.AgentProtocol.Launch;
import io.gantry.agent.protocol.AgentProtocol.Report;
import io.gantry.agent.protocol.AgentProtocol.ReportType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs of this node: carries out the controller's LAUNCH and KILL commands, knows which
 * scripts still run (what the agent lists in its polls), and at start stops what an earlier agent
 * run left behind. Every start and end goes to the report sink in the order it happened.
 */
final class JobRunner implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);
    private static final Pattern JOB_ID = Pattern.compile("[0-9A-Za-z][0-9A-Za-z_.-]{0,63}");

    private final Path workDir;
    private final Clock clock;
    private final Consumer<Report> reports;
    private final OomWatch oomWatch;
    private final ScheduledExecutorService timers;
    private final Map<String, JobProcess> running = new LinkedHashMap<>();
    private final Set<String> seen = new HashSet<>();
    private volatile String node;
    private volatile Duration killWait = Duration.ofSeconds(30);

    JobRunner(String node, Path workDir, Clock clock, Consumer<Report> reports) {
        this.node = node;
        this.workDir = workDir;
        this.clock = clock;
        this.reports = reports;
        this.oomWatch = OomWatch.ofOwnCgroup();
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "job-timers");
            t.setDaemon(true);
            return t;
        });
    }

    /** The node name and kill wait from the controller's latest Registered answer. */
    void configure(String node, Duration killWait) {
        this.node = node;
        this.killWait = killWait;
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
            }
        }
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
        if (running.containsKey(id) || !seen.add(id + "@" + launch.startTime())) {
            return;
        }
        try {
            JobProcess job = JobProcess.start(launch, new JobProcess.Settings(node, workDir, killWait, clock, oomWatch),
                    timers, reports, this::ended);
            running.put(id, job); // its end, even if it came already, waits for this lock to remove it
        } catch (JobProcess.StartFailure e) {
            log.info("job {} ended: FAILED before it started: {}", id, e.getMessage());
            reports.accept(new Report(id, ReportType.ENDED, clock.instant(), "FAILED", 1, null, e.getMessage()));
        }
    }

    /** Stops a job with the controller's end state, or reports it ended at once when it does not run here. */
    synchronized void kill(String jobId, String endState, String detail) {
        String state = endState == null || endState.isBlank() ? "CANCELLED" : endState;
        JobProcess job = running.get(jobId);
        if (job == null) {
            log.info("job {} ended: {} (a kill for a job not running on {})", jobId, state, node);
            reports.accept(new Report(jobId, ReportType.ENDED, clock.instant(), state, null, null,
                    "not running on " + node));
            return;
        }
        log.info("job {}: stopping it as {}", jobId, state);
        job.stop(state, detail);
    }

    /** The display ids of the jobs whose scripts still run. */
    synchronized List<String> runningJobs() {
        return new ArrayList<>(running.keySet());
    }

    private synchronized void ended(JobProcess job) {
        running.remove(job.jobId(), job);
    }

    /**
     * Kills every process group an earlier agent run recorded under {@code jobs/<id>/pgid} and that
     * still exists (and still looks like that job), then forgets the record. The controller learns
     * from the next sync that those jobs are gone.
     *
     * @return how many groups were killed
     */
    int killLeftovers() {
        Path jobs = workDir.resolve("jobs");
        if (!Files.isDirectory(jobs)) {
            return 0;
        }
        int killed = 0;
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(jobs)) {
            for (Path dir : dirs) {
                Path pgidFile = dir.resolve("pgid");
                if (!Files.isRegularFile(pgidFile)) {
                    continue;
                }
                String jobId = dir.getFileName().toString();
                try {
                    long pgid = Long.parseLong(Files.readString(pgidFile, StandardCharsets.UTF_8).strip());
                    if (ProcessGroups.alive(pgid) && belongsToJob(pgid, jobId)) {
                        ProcessGroups.signal(pgid, "KILL");
                        killed++;
                        log.warn("killed job {} (process group {}) left running by a previous agent run", jobId, pgid);
                    }
                } catch (NumberFormatException e) {
                    log.warn("ignoring unreadable {}", pgidFile);
                }
                Files.deleteIfExists(pgidFile);
            }
        } catch (IOException e) {
            log.warn("cannot look for jobs left by a previous agent run in {}: {}", jobs, e.toString());
        }
        return killed;
    }

    /**
     * Guards against a recycled process group id: the job's group leads its own session and its
     * processes carry {@code GANTRY_JOB_ID}.
     */
    private static boolean belongsToJob(long pgid, String jobId) {
        boolean sessionLeader = ProcessGroups.members(pgid).stream().anyMatch(s -> s.session() == pgid);
        return sessionLeader && ProcessGroups.anyMemberHasEnvironment(pgid, "GANTRY_JOB_ID=" + jobId);
    }

    /** Kills every job at once (the agent stops for good, or a test ends). */
    @Override
    public void close() {
        List<JobProcess> jobs;
        synchronized (this) {
            jobs = new ArrayList<>(running.values());
        }
        jobs.forEach(JobProcess::killNow);
        timers.shutdownNow();
    }
}
