package io.gantry.noded;

import io.gantry.noded.protocol.AgentProtocol;
import io.gantry.noded.protocol.AgentProtocol.StepReport;
import io.gantry.noded.protocol.AgentProtocol.StepReportType;
import io.gantry.noded.protocol.StepProtocol;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task of a job step on this node, run as the job's owner the way {@link JobProcess} runs a
 * batch script: {@code setsid setpriv ... bash -c STAGE} with nothing of the agent's environment,
 * put into the job's fence before it runs anything, then {@link #STAGE} execs the task's command.
 * Unlike a batch script, the task's stdout and stderr stay pipes to the agent, which sends what
 * comes out as OUTPUT step reports: gathered for up to {@value #FLUSH_MILLIS} ms or
 * {@value #FLUSH_BYTES} bytes, numbered per task from 0, and followed by one ENDED report.
 * Each task leads a process group of its own, which is what a step signal reaches.
 */
final class TaskProcess {

    private static final Logger log = LoggerFactory.getLogger(TaskProcess.class);

    static final long FLUSH_MILLIS = 100;
    static final int FLUSH_BYTES = 64 * 1024;
    private static final int MAX_FAILURE_BYTES = 4096;
    /**
     * What the stage's exec of {@code env -i -- VARS... COMMAND...} adds to the task's own argv and
     * environment: {@code env}'s words and the stage shell's few variables (its PWD up to PATH_MAX).
     */
    private static final int STAGE_ROOM = 16 * 1024;
    /** How long output may still come from a task's leftovers once the task itself exited. */
    private static final long DRAIN_MILLIS = 2000;

    /**
     * The second stage, run as the job's owner. Standard input carries {@code go N} (once the task is
     * in the job's fence) then the task's N environment variables, NUL-terminated {@code NAME=value}; so
     * the environment is never on disk nor in the process table. What follows on standard input is the
     * task's own (mode {@code pipe} or {@code pty}); with mode {@code none} the task reads /dev/null. The
     * first line on standard output is {@code ready} just before the exec, or {@code failed <why>}.
     * Arguments: mode, umask, working directory, then the command. With mode {@code pty} the command
     * runs on a new pseudo-terminal that util-linux's {@code script} makes (and relays between the
     * terminal and the pipes): {@link #PTY_RUN} sets its size and execs the command there.
     */
    static final String STAGE = """
            fail() { printf 'failed %s\\n' "$*"; exit 1; }
            read -r go count || exit 1
            vars=()
            if [ "${count:-0}" -gt 0 ]; then
              mapfile -d '' -t -n "$count" vars || fail "cannot read the task's environment"
            fi
            mode=$1
            [ "$mode" = none ] && exec </dev/null
            umask "$2" 2>/dev/null || fail "unusable umask $2"
            me=$(id -un 2>/dev/null || id -u)
            [ -d "$3" ] || fail "the working directory $3 does not exist"
            cd -- "$3" 2>/dev/null || fail "user $me may not enter the working directory $3"
            shift 3
            if [ "$mode" = pty ]; then
              terminal=$(command -v script) || fail "this node has no 'script' (util-linux) to make a pseudo-terminal"
              shell= has=0
              for v in "${vars[@]}"; do case $v in SHELL=*) shell=${v#SHELL=} has=1;; esac; done
              # keys are signals on a terminal: what the agent was started ignoring (nohup, &) must not stay ignored
              reset=; env --default-signal=INT true 2>/dev/null && reset=--default-signal
              printf 'ready\\n'
              exec env -i $reset -- "${vars[@]}" GANTRY_PTY_ARGV="$(printf '%q ' "$@")" GANTRY_PTY_SHELL="$shell" \\
                GANTRY_PTY_HAS_SHELL=$has SHELL=/bin/sh "$terminal" -qfec 'exec /bin/bash -c "$GANTRY_PTY_RUN"' /dev/null
            fi
            printf 'ready\\n'
            exec env -i -- "${vars[@]}" "$@"
            """;

    /**
     * What runs on a task's pseudo-terminal ({@code GANTRY_PTY_RUN}, by bash): gives the terminal srun's
     * size, puts back the user's SHELL (script ran with /bin/sh, whatever the user's login shell is),
     * and execs the command, which {@code GANTRY_PTY_ARGV} holds quoted by bash's {@code printf %q}.
     */
    static final String PTY_RUN = """
            stty rows "$GANTRY_PTY_ROWS" cols "$GANTRY_PTY_COLS" 2>/dev/null
            command=$GANTRY_PTY_ARGV
            if [ "$GANTRY_PTY_HAS_SHELL" = 1 ]; then export SHELL="$GANTRY_PTY_SHELL"; else unset SHELL; fi
            unset GANTRY_PTY_ARGV GANTRY_PTY_RUN GANTRY_PTY_ROWS GANTRY_PTY_COLS GANTRY_PTY_SHELL GANTRY_PTY_HAS_SHELL
            eval "exec $command"
            """;

    /** The most input that waits for a task to read it; more is dropped, with a warning. */
    static final int MAX_PENDING_INPUT = 1024 * 1024;
    /** A terminal's output goes back sooner than a pipe's: people type and wait for the echo. */
    static final long TERMINAL_FLUSH_MILLIS = 20;

    /** What to start: the task's place in its step, its owner, command, directory and environment. */
    record Spec(String jobId, int stepId, int procId, UnixAccount owner, boolean switchUser, String umask,
            String workdir, List<String> argv, Map<String, String> environment,
            AgentProtocol.TaskStdin stdin) {

        Spec(String jobId, int stepId, int procId, UnixAccount owner, boolean switchUser, String umask,
                String workdir, List<String> argv, Map<String, String> environment) {
            this(jobId, stepId, procId, owner, switchUser, umask, workdir, argv, environment, null);
        }

        String mode() {
            return stdin == null ? "none" : stdin.terminal() ? "pty" : "pipe";
        }
    }

    private final Spec spec;
    private final Process process;
    private final Consumer<StepReport> reports;
    private final ByteArrayOutputStream[] pending = {new ByteArrayOutputStream(), new ByteArrayOutputStream()};
    private final TaskInput input;
    private long seq;
    private ScheduledFuture<?> flusher;
    private volatile boolean ended;

    private TaskProcess(Spec spec, Process process, Consumer<StepReport> reports) {
        this.spec = spec;
        this.process = process;
        this.reports = reports;
        this.input = new TaskInput("task-" + spec.jobId() + "." + spec.stepId() + "." + spec.procId() + "-in");
    }

    /**
     * Starts the task inside {@code fence} (null: in its own process group only).
     *
     * @throws JobProcess.StartFailure when it could not be started; nothing of it is left running
     */
    static TaskProcess start(Spec spec, JobFence fence, ScheduledExecutorService timers, Consumer<StepReport> reports,
            Consumer<TaskProcess> onEnd) throws JobProcess.StartFailure {
        if (spec.argv() == null || spec.argv().isEmpty() || spec.argv().get(0).isEmpty()) {
            throw new JobProcess.StartFailure("the step names no command to run");
        }
        if (!Path.of(spec.workdir()).isAbsolute()) {
            throw new JobProcess.StartFailure("the working directory '" + spec.workdir() + "' is not an absolute path");
        }
        String tooLarge = tooLarge(spec);
        if (tooLarge != null) {
            throw new JobProcess.StartFailure(tooLarge);
        }
        UnixAccount owner = spec.owner();
        List<String> command = new ArrayList<>(List.of("setsid"));
        if (fence != null) {
            command.addAll(fence.launcher()); // as root: hides the GPUs the job was not given
        }
        if (spec.switchUser()) {
            command.addAll(List.of("setpriv", "--reuid=" + owner.uid(), "--regid=" + owner.gid(),
                    "--groups=" + String.join(",", owner.groups().stream().map(String::valueOf).toList()),
                    "--inh-caps=-all", "--"));
        }
        command.addAll(List.of("/bin/bash", "-c", STAGE, "gantry-task", spec.mode(), spec.umask(), spec.workdir()));
        command.addAll(spec.argv());
        ProcessBuilder builder = new ProcessBuilder(command).directory(Path.of("/").toFile());
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new JobProcess.StartFailure("cannot start the task: " + e.getMessage());
        }
        try {
            if (fence != null) {
                fence.add(process.pid());
            }
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            throw new JobProcess.StartFailure("cannot put the task into the job's cgroup: " + e.getMessage());
        }
        TaskProcess task = new TaskProcess(spec, process, reports);
        long flushMillis = spec.mode().equals("pty") ? TERMINAL_FLUSH_MILLIS : FLUSH_MILLIS;
        task.flusher = timers.scheduleWithFixedDelay(() -> task.flush(false), flushMillis, flushMillis,
                TimeUnit.MILLISECONDS);
        Thread watcher = new Thread(() -> task.watch(onEnd), "task-" + spec.jobId() + "." + spec.stepId() + "."
                + spec.procId());
        watcher.setDaemon(true);
        watcher.start();
        return task;
    }

    String jobId() {
        return spec.jobId();
    }

    int stepId() {
        return spec.stepId();
    }

    int procId() {
        return spec.procId();
    }

    long pid() {
        return process.pid();
    }

    boolean running() {
        return !ended;
    }

    /**
     * Sends {@code signal} to the task's process group: the task and whatever it started. Before the
     * task has made its group (an instant after its start) the task alone gets it.
     */
    void signal(String signal) {
        if (ended) {
            return;
        }
        if (!ProcessGroups.signal(process.pid(), signal)) {
            Signals.send(List.of(process.pid()), signal);
        }
    }

    private void watch(Consumer<TaskProcess> onEnd) {
        String failure = null;
        List<Thread> readers = new ArrayList<>(List.of(reader(process.getErrorStream(), 1)));
        InputStream out = process.getInputStream();
        // Here, not in start(): the stage reads a large environment slowly (bash reads a pipe a byte
        // at a time), and start() runs while the agent's step launches wait for it.
        OutputStream in = process.getOutputStream();
        try {
            Map<String, String> env = withTaskPid(spec.environment(), process.pid());
            if (spec.stdin() != null && spec.stdin().terminal()) {
                env.put("GANTRY_PTY_RUN", PTY_RUN);
                ContainerRuntime.TerminalSize size = ContainerRuntime.TerminalSize.of(spec.stdin());
                env.put("GANTRY_PTY_ROWS", Integer.toString(size.rows()));
                env.put("GANTRY_PTY_COLS", Integer.toString(size.cols()));
            }
            List<byte[]> variables = environmentEntries(env);
            in.write(("go " + variables.size() + "\n").getBytes(StandardCharsets.US_ASCII));
            for (byte[] variable : variables) {
                in.write(variable);
            }
            in.flush();
        } catch (IOException e) {
            // the stage ended before it read everything: its first line or exit says why
        }
        if (spec.stdin() == null) {
            close(in);
        } else {
            input.start(in);
        }
        try {
            String first = firstLine(out);
            if (first == null || !first.equals("ready")) {
                failure = first != null && first.startsWith("failed ") ? first.substring("failed ".length())
                        : "the task's setup ended before it ran the command";
            } else {
                readers.add(reader(out, 0));
            }
        } catch (IOException e) {
            failure = "cannot read from the task: " + e.getMessage();
        }
        int code = awaitExit();
        input.stop();
        // whatever the task left running in its group ends with it, as a step's leftovers do in Slurm
        ProcessGroups.signal(process.pid(), "KILL");
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MILLIS);
        for (Thread reader : readers) {
            try {
                reader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // a process that escaped the group may still hold a pipe: stop waiting for it
        for (InputStream stream : List.of(out, process.getErrorStream())) {
            try {
                stream.close();
            } catch (IOException ignored) {
                // closed already
            }
        }
        Integer exitCode;
        Integer signal;
        if (failure != null) {
            exitCode = 1;
            signal = null;
        } else if (code > 128 && code <= 128 + 64) {
            exitCode = null;
            signal = code - 128;
        } else {
            exitCode = code;
            signal = null;
        }
        synchronized (this) {
            flusher.cancel(false);
            flush(true);
            ended = true;
            reports.accept(new StepReport(spec.jobId(), spec.stepId(), spec.procId(), StepReportType.ENDED, null, seq,
                    failure, exitCode, signal));
        }
        if (failure != null) {
            log.info("task {} of step {}.{} could not start: {}", spec.procId(), spec.jobId(), spec.stepId(), failure);
        } else {
            log.debug("task {} of step {}.{} ended: exit code {} signal {}", spec.procId(), spec.jobId(),
                    spec.stepId(), exitCode, signal);
        }
        onEnd.accept(this);
    }

    private Thread reader(InputStream in, int stream) {
        Thread t = new Thread(() -> {
            try (in) {
                copy(in, stream);
            } catch (IOException e) {
                // closed: the task is over
            }
        }, "task-" + spec.jobId() + "." + spec.stepId() + "." + spec.procId() + (stream == 0 ? "-out" : "-err"));
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void copy(InputStream in, int stream) throws IOException {
        byte[] buffer = new byte[16 * 1024];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            append(stream, buffer, n);
        }
    }

    private synchronized void append(int stream, byte[] bytes, int length) {
        pending[stream].write(bytes, 0, length);
        if (pending[stream].size() >= FLUSH_BYTES) {
            flush(false);
        }
    }

    /**
     * Sends what each stream gathered as one OUTPUT report per stream. Until the end, a multi-byte
     * character cut in two by a read waits for its rest.
     */
    private synchronized void flush(boolean end) {
        if (ended) {
            return;
        }
        for (int stream = 0; stream < 2; stream++) {
            ByteArrayOutputStream buffer = pending[stream];
            if (buffer.size() == 0) {
                continue;
            }
            byte[] bytes = buffer.toByteArray();
            int complete = end ? bytes.length : completeUtf8(bytes);
            if (complete == 0) {
                continue;
            }
            buffer.reset();
            buffer.write(bytes, complete, bytes.length - complete);
            reports.accept(new StepReport(spec.jobId(), spec.stepId(), spec.procId(), StepReportType.OUTPUT,
                    stream == 0 ? "stdout" : "stderr", seq++, new String(bytes, 0, complete, StandardCharsets.UTF_8),
                    null, null));
        }
    }

    /** How many leading bytes hold whole UTF-8 characters (a sequence cut at the end is left out). */
    static int completeUtf8(byte[] bytes) {
        int n = bytes.length;
        for (int back = 1; back <= Math.min(3, n); back++) {
            int b = bytes[n - back] & 0xFF;
            if ((b & 0xC0) == 0x80) {
                continue; // a continuation byte: look further back for the lead
            }
            int length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
            return length > back ? n - back : n;
        }
        return n;
    }

    /** The stage's first line on stdout, read a byte at a time so nothing of the task's output is taken. */
    private static String firstLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (line.size() < MAX_FAILURE_BYTES) {
                line.write(b);
            }
        }
        if (b < 0 && line.size() == 0) {
            return null;
        }
        return line.toString(StandardCharsets.UTF_8).replaceAll("\\p{Cntrl}+", " ").strip();
    }

    private int awaitExit() {
        while (true) {
            try {
                return process.waitFor();
            } catch (InterruptedException e) {
                // the watcher lives until its task ends
            }
        }
    }

    /**
     * Why the kernel would refuse to exec the task's command with its environment (E2BIG), or null:
     * said at once, before a process is started for it. The stage's own words and the agent's
     * variables are inside the environment counted here; a little is kept for the stage's arguments.
     */
    static String tooLarge(Spec spec) {
        long total = 0;
        for (String arg : spec.argv()) {
            if (StepProtocol.utf8Length(arg) + 1 > StepProtocol.MAX_ARG_STRLEN) {
                return "Argument list too long: an argument of the command is over "
                        + (StepProtocol.MAX_ARG_STRLEN - 1) + " bytes";
            }
            total += StepProtocol.execBytes(arg);
        }
        for (Map.Entry<String, String> e : spec.environment().entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                continue;
            }
            long bytes = StepProtocol.utf8Length(e.getKey()) + 1 + StepProtocol.utf8Length(e.getValue());
            if (bytes + 1 > StepProtocol.MAX_ARG_STRLEN) {
                return "Argument list too long: the variable " + e.getKey() + " is over "
                        + (StepProtocol.MAX_ARG_STRLEN - 1) + " bytes";
            }
            total += bytes + 1 + 8;
        }
        long room = StepProtocol.ARG_MAX - STAGE_ROOM;
        return total > room ? "Argument list too long: the command and its environment take " + total
                + " bytes; the kernel takes at most " + room : null;
    }

    /**
     * The task's environment with Slurm's {@code SLURM_TASK_PID}: the stage and everything before it
     * exec into the task, so the process started here is the task itself.
     */
    private static Map<String, String> withTaskPid(Map<String, String> env, long pid) {
        Map<String, String> out = new java.util.LinkedHashMap<>(env);
        out.put("SLURM_TASK_PID", Long.toString(pid));
        return out;
    }

    /** Each usable variable as {@code NAME=value} and its NUL. */
    private static List<byte[]> environmentEntries(Map<String, String> env) {
        List<byte[]> entries = new ArrayList<>();
        env.forEach((k, v) -> {
            if (k != null && v != null && !k.isEmpty() && k.indexOf('=') < 0 && k.indexOf('\0') < 0
                    && v.indexOf('\0') < 0) {
                entries.add((k + "=" + v + "\0").getBytes(StandardCharsets.UTF_8));
            }
        });
        return entries;
    }

    private static void close(OutputStream stream) {
        try {
            stream.close();
        } catch (IOException ignored) {
            // the task is gone
        }
    }

    /**
     * Writes STEP_INPUT's bytes to the task's standard input, once each ({@code seq} only grows), and
     * resizes its terminal. Never blocks the caller: the input waits here for the task to read it.
     */
    void input(long seq, byte[] data, boolean eof, Integer rows, Integer cols) {
        if (spec.stdin() == null || ended) {
            return;
        }
        if (!input.accept(seq, data, eof)) {
            return;
        }
        if (rows != null && cols != null && spec.stdin().terminal()) {
            resize(rows, cols);
        }
    }

    /**
     * Gives the task's terminal a new size: {@code stty -F} on the pseudo-terminal that the command
     * (the child of {@code script}) has as its standard input; the kernel sends its foreground
     * process group SIGWINCH, as on a local resize.
     */
    private void resize(int rows, int cols) {
        java.util.Optional<ProcessHandle> child = process.toHandle().children().findFirst();
        if (child.isEmpty()) {
            return;
        }
        Path terminal;
        try {
            terminal = java.nio.file.Files.readSymbolicLink(Path.of("/proc", Long.toString(child.get().pid()), "fd", "0"));
        } catch (IOException | UnsupportedOperationException e) {
            return;
        }
        if (!terminal.toString().startsWith("/dev/pts/")) {
            return;
        }
        try {
            Process stty = new ProcessBuilder("stty", "-F", terminal.toString(), "rows", Integer.toString(rows),
                    "cols", Integer.toString(cols)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!stty.waitFor(5, TimeUnit.SECONDS)) {
                stty.destroyForcibly();
            }
        } catch (IOException e) {
            log.warn("task {} of step {}.{}: cannot resize its terminal: {}", spec.procId(), spec.jobId(),
                    spec.stepId(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
