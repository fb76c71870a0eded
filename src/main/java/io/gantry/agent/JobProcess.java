package io.gantry.agent;

import io.gantry.agent.protocol.AgentProtocol.Launch;
import io.gantry.agent.protocol.AgentProtocol.Report;
import io.gantry.agent.protocol.AgentProtocol.ReportType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One batch script running on this node, in a process group of its own so that a time limit or a
 * cancel stops everything the script started: SIGTERM to the group, then SIGKILL after the kill
 * wait. When the script exits it works out how the job ended (COMPLETED, FAILED, TIMEOUT, a
 * command's end state, OUT_OF_MEMORY), kills any stragglers left in the group and reports ENDED.
 * The group id is kept in {@code jobs/<id>/pgid} while the job runs so that a restarted agent can
 * stop what an earlier run left behind.
 */
final class JobProcess {

    private static final Logger log = LoggerFactory.getLogger(JobProcess.class);

    /** Why a job could not start; the detail goes to the controller with an ENDED FAILED report. */
    static final class StartFailure extends Exception {
        StartFailure(String detail) {
            super(detail);
        }
    }

    /** Where and how the jobs of this node run. */
    record Settings(String node, Path agentWorkDir, Duration killWait, Clock clock, OomWatch oomWatch) {
    }

    private final Launch launch;
    private final Settings settings;
    private final Process process;
    private final long pgid;
    private final Path pgidFile;
    private final OptionalLong oomKillsAtStart;
    private final ScheduledExecutorService timers;
    private ScheduledFuture<?> deadline;
    private ScheduledFuture<?> killTimer;
    private String stopState;
    private String stopDetail;
    private boolean exited;

    private JobProcess(Launch launch, Settings settings, Process process, long pgid, Path pgidFile,
            OptionalLong oomKillsAtStart, ScheduledExecutorService timers) {
        this.launch = launch;
        this.settings = settings;
        this.process = process;
        this.pgid = pgid;
        this.pgidFile = pgidFile;
        this.oomKillsAtStart = oomKillsAtStart;
        this.timers = timers;
    }

    /**
     * Writes the script under {@code jobs/<id>/}, opens the output files and starts the script.
     * Then reports STARTED, arms the time limit and watches for the end, which it reports ENDED and
     * passes to {@code onEnd}.
     */
    static JobProcess start(Launch launch, Settings settings, ScheduledExecutorService timers,
            Consumer<Report> reports, Consumer<JobProcess> onEnd) throws StartFailure {
        String node = settings.node();
        Path workingDir = launch.workdir() == null || launch.workdir().isBlank() ? settings.agentWorkDir()
                : Path.of(launch.workdir());
        if (!Files.isDirectory(workingDir)) {
            throw new StartFailure("working directory " + workingDir + " does not exist on " + node);
        }
        Path jobDir = settings.agentWorkDir().resolve("jobs").resolve(launch.jobId());
        Path script = jobDir.resolve("script.sh");
        try {
            Files.createDirectories(jobDir);
            Files.writeString(script, launch.script() == null ? "" : launch.script(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new StartFailure("cannot write the batch script " + script + " on " + node + ": " + e);
        }
        Path stdout = workingDir.resolve(OutputPattern.expand(
                launch.stdout() == null || launch.stdout().isBlank() ? OutputPattern.defaultPattern(launch)
                        : launch.stdout(), launch, node)).normalize();
        Path stderr = launch.stderr() == null || launch.stderr().isBlank() ? stdout
                : workingDir.resolve(OutputPattern.expand(launch.stderr(), launch, node)).normalize();
        truncate(stdout, "output", node);
        if (!stderr.equals(stdout)) {
            truncate(stderr, "error", node);
        }

        ProcessBuilder builder = new ProcessBuilder("setsid", "bash", script.toString())
                .directory(workingDir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(stdout.toFile()));
        if (stderr.equals(stdout)) {
            builder.redirectErrorStream(true);
        } else {
            builder.redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
        }
        JobEnvironment.apply(builder.environment(), launch, node, workingDir.toString());

        OptionalLong oomKills = settings.oomWatch().oomKills();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new StartFailure("cannot start the batch script on " + node + ": " + e.getMessage());
        }
        long pgid = groupOf(process);
        Path pgidFile = jobDir.resolve("pgid");
        try {
            Files.writeString(pgidFile, Long.toString(pgid), StandardCharsets.UTF_8);
        } catch (IOException e) {
            log.warn("job {}: cannot record its process group in {}: {}", launch.jobId(), pgidFile, e.toString());
        }
        JobProcess job = new JobProcess(launch, settings, process, pgid, pgidFile, oomKills, timers);
        reports.accept(new Report(launch.jobId(), ReportType.STARTED, settings.clock().instant(), null, null, null,
                null));
        log.info("job {} launched: pid {}, output {}", launch.jobId(), process.pid(), stdout);
        job.armTimeLimit();
        Thread watcher = new Thread(() -> job.awaitEnd(reports, onEnd), "job-" + launch.jobId());
        watcher.setDaemon(true);
        watcher.start();
        return job;
    }

    String jobId() {
        return launch.jobId();
    }

    long pgid() {
        return pgid;
    }

    boolean running() {
        return process.isAlive();
    }

    /**
     * Stops the job: SIGTERM to its group now, SIGKILL after the kill wait if the script still
     * runs. It will be reported ended as {@code endState}. Only the first stop counts.
     */
    synchronized void stop(String endState, String detail) {
        if (exited || stopState != null) {
            return;
        }
        stopState = endState;
        stopDetail = detail;
        signal("TERM");
        killTimer = timers.schedule(() -> {
            if (process.isAlive()) {
                signal("KILL");
            }
        }, Math.max(0, settings.killWait().toMillis()), TimeUnit.MILLISECONDS);
    }

    /** SIGKILL to the group at once (the agent is shutting down its jobs). */
    void killNow() {
        signal("KILL");
    }

    private void armTimeLimit() {
        long limit = launch.timeLimitSeconds();
        if (limit > 0) {
            deadline = timers.schedule(() -> stop("TIMEOUT", "time limit of " + limit + " s reached on "
                    + settings.node()), limit, TimeUnit.SECONDS);
        }
    }

    private void awaitEnd(Consumer<Report> reports, Consumer<JobProcess> onEnd) {
        int code;
        while (true) {
            try {
                code = process.waitFor();
                break;
            } catch (InterruptedException e) {
                // the watcher lives until its script ends
            }
        }
        String state;
        Integer exitCode;
        Integer signal = code > 128 && code <= 128 + 64 ? code - 128 : null;
        String detail;
        synchronized (this) {
            exited = true;
            if (deadline != null) {
                deadline.cancel(false);
            }
            if (killTimer != null) {
                killTimer.cancel(false);
            }
            if (stopState != null) {
                state = stopState;
                detail = stopDetail;
                exitCode = signal == null ? code : null;
            } else if (code == 0) {
                state = "COMPLETED";
                detail = null;
                exitCode = 0;
            } else if (signal != null) {
                boolean oom = signal == 9 && settings.oomWatch().killedSince(oomKillsAtStart);
                state = oom ? "OUT_OF_MEMORY" : "FAILED";
                detail = oom ? "killed by the kernel's OOM killer on " + settings.node() : null;
                exitCode = null;
            } else {
                state = "FAILED";
                detail = null;
                exitCode = code;
            }
        }
        signal("KILL"); // stragglers the script left in its group
        try {
            Files.deleteIfExists(pgidFile);
        } catch (IOException e) {
            log.warn("job {}: cannot delete {}: {}", launch.jobId(), pgidFile, e.toString());
        }
        log.info("job {} ended: {} exit code {} signal {}", launch.jobId(), state, exitCode, signal);
        reports.accept(new Report(launch.jobId(), ReportType.ENDED, settings.clock().instant(), state, exitCode,
                exitCode == null ? signal : null, detail));
        onEnd.accept(this);
    }

    private void signal(String name) {
        if (!ProcessGroups.signal(pgid, name) && process.isAlive()) {
            if ("KILL".equals(name)) {
                process.destroyForcibly();
            } else {
                process.destroy();
            }
        }
    }

    private static void truncate(Path file, String what, String node) throws StartFailure {
        try {
            Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE).close();
        } catch (IOException | RuntimeException e) {
            throw new StartFailure("cannot open the " + what + " file " + file + " on " + node + ": " + e);
        }
    }

    /**
     * The script's process group: its own pid, as {@code setsid} makes it a group leader without
     * forking (the JDK's child never leads a group). Checked in {@code /proc}, where the child may
     * still be {@code setsid} for an instant before it calls setsid(2).
     */
    private static long groupOf(Process process) {
        long pid = process.pid();
        long ownGroup = ProcessGroups.ownGroup();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (System.nanoTime() < deadline) {
            OptionalLong pgid = ProcessGroups.pgidOf(pid);
            if (pgid.isEmpty() || pgid.getAsLong() == pid) {
                return pid; // already gone (and reaped), or a group leader as expected
            }
            if (pgid.getAsLong() != ownGroup) {
                break;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        OptionalLong pgid = ProcessGroups.pgidOf(pid);
        if (pgid.isPresent() && pgid.getAsLong() != pid) {
            log.warn("job process {} is in process group {}, not its own: stopping it may leave its children running",
                    pid, pgid.getAsLong());
        }
        return pid;
    }
}
