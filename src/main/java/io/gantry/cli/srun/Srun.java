package io.gantry.cli.srun;

import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.StepProtocol;
import io.gantry.noded.protocol.StepProtocol.StepCreated;
import io.gantry.noded.protocol.StepProtocol.StepIo;
import io.gantry.noded.protocol.StepProtocol.StepOutputChunk;
import io.gantry.noded.protocol.StepProtocol.StepRequest;
import io.gantry.noded.protocol.StepProtocol.StepTaskExit;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code srun} inside a job: creates a step in the job's allocation through the controller (with
 * the job's credential, {@code GANTRY_JOB_TOKEN}), relays its tasks' output to its own stdout and
 * stderr (or {@code -o}/{@code -e} files), and exits with the highest task exit code, 128+N for a
 * task a signal N ended. No Spring: it starts in a fraction of a second, as a job's many srun calls
 * need. Messages and exit codes follow Slurm's srun.
 */
public final class Srun {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    /** Longer than the controller holds an io poll (about 20 s). */
    private static final Duration POLL_TIMEOUT = Duration.ofSeconds(60);
    private static final long MAX_RETRY_MILLIS = 10_000;

    /** How long srun waits between tries; tests do not wait. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private final Map<String, String> env;
    private final PrintStream err;
    private final OutputStream out;
    private final OutputStream errStream;
    private final Path cwd;
    private final Sleeper sleeper;
    private ControllerCalls calls;
    private String jobId;
    private String slurmJobId;
    private String token;
    private volatile StepCreated step;
    private volatile boolean finished;
    /** srun's own terminal in raw mode while a --pty step runs, to put back. */
    private volatile SrunTerminal terminal;
    /** The job this srun asked for outside any job, which ends with it. */
    private volatile String ownJob;
    /** Whether srun acts with the user's login token (outside any job), not a job's credential. */
    private boolean viaLogin;

    Srun(Map<String, String> env, OutputStream out, OutputStream err, Path cwd, Sleeper sleeper) {
        this.env = env;
        this.out = out;
        this.errStream = err;
        this.err = new PrintStream(err, true, StandardCharsets.UTF_8);
        this.cwd = cwd;
        this.sleeper = sleeper;
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs srun on this process's environment and streams; SIGINT or SIGTERM signals the step's tasks. */
    public static int run(String[] args) {
        Srun srun = new Srun(System.getenv(), new FileOutputStream(FileDescriptor.out),
                new FileOutputStream(FileDescriptor.err), Path.of("").toAbsolutePath(), Thread::sleep);
        Runtime.getRuntime().addShutdownHook(new Thread(srun::interrupted, "srun-interrupted"));
        int code = srun.run(Arrays.asList(args));
        srun.finished = true;
        return code;
    }

    int run(List<String> args) {
        SrunOptions options;
        try {
            SrunOptions given = SrunOptions.parse(args);
            // pyxis's PYXIS_CONTAINER_* variables give what no --container-* option gave
            options = given.withContainer(io.gantry.noded.protocol.ContainerOptions.withEnvironment(given.container(), env));
        } catch (IllegalArgumentException e) {
            if (e.getMessage().startsWith("unrecognized") || e.getMessage().startsWith("invalid option")
                    || e.getMessage().contains("argument")) {
                err.println("srun: " + e.getMessage());
                err.println("Try \"srun --help\" for more information");
            } else {
                err.println("srun: error: " + e.getMessage());
            }
            return 1;
        }
        if (options.help()) {
            new PrintStream(out, true, StandardCharsets.UTF_8).print(SrunOptions.USAGE);
            return 0;
        }
        if (options.version()) {
            new PrintStream(out, true, StandardCharsets.UTF_8).println("slurm 22.05 (gantry srun)");
            return 0;
        }
        if ("list".equals(options.mpi())) {
            new PrintStream(out, true, StandardCharsets.UTF_8).print(SrunOptions.MPI_LIST);
            return 0;
        }
        if (options.command().isEmpty() && options.awaitStep() == null) {
            err.println("srun: fatal: No command given to execute.");
            return 1;
        }
        token = env.get(StepProtocol.CREDENTIAL_ENV);
        slurmJobId = env.get("SLURM_JOB_ID");
        jobId = env.getOrDefault("GANTRY_JOB_ID", slurmJobId);
        boolean inJob = token != null && !token.isBlank() && jobId != null && !jobId.isBlank();
        if (!inJob || options.jobid() != null && !options.jobid().equals(jobId)
                && !options.jobid().equals(slurmJobId)) {
            return outside(options);
        }
        if (slurmJobId == null) {
            slurmJobId = jobId;
        }
        String urls = env.get(StepProtocol.CONTROLLER_ENV);
        if (urls == null || urls.isBlank()) {
            err.println("srun: error: " + StepProtocol.CONTROLLER_ENV + " is not set: the job does not know where "
                    + "its controller is");
            return 1;
        }
        calls = ControllerCalls.to(Arrays.stream(urls.split(",")).map(String::strip)
                .filter(s -> !s.isEmpty()).map(s -> URI.create(s.replaceAll("/+$", ""))).toList(), token);
        return guarded(() -> options.awaitStep() != null ? awaitStep(options.awaitStep()) : stepAndRelay(options));
    }

    /** What srun does once it knows its controller and job: its exit code. */
    private interface Work {
        int run() throws IOException, InterruptedException;
    }

    /** Runs {@code work}, saying an I/O failure as srun does; srun is finished afterwards in any case. */
    private int guarded(Work work) {
        try {
            return work.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } catch (IOException e) {
            err.println("srun: error: " + e.getMessage());
            return 1;
        } finally {
            finished = true;
        }
    }

    /** Creates the step in {@link #jobId} and relays it; 1 when it is refused (said already). */
    private int stepAndRelay(SrunOptions options) throws IOException, InterruptedException {
        StepCreated created = create(options);
        if (created == null) {
            return 1;
        }
        step = created;
        return relay(options, created);
    }

    /**
     * srun on a login node, as the user its login token names: with {@code --jobid=N} a step in one's own
     * running job N; without, a job asked for from srun's own options, in which this srun starts step 0
     * and relays it. The job's batch work only waits for that step ({@code --gantry-await-step}) and exits
     * with its code, so the job ends with it (COMPLETED, or FAILED with a non-zero one); SIGINT or SIGTERM
     * here cancels the job.
     */
    private int outside(SrunOptions options) {
        SrunLogin login = SrunLogin.of(env);
        if (login == null) {
            err.println("srun: error: not inside a job allocation, and not logged in: run 'gantry login' (or set "
                    + "GANTRY_URL and GANTRY_TOKEN) to run srun from here");
            return 1;
        }
        token = login.token();
        calls = ControllerCalls.to(login.controllers(), token);
        viaLogin = true;
        return guarded(() -> {
            // inside salloc's allocation (its SLURM_JOB_ID, no job credential): a step of that job, as in Slurm
            String allocated = options.jobid() != null ? options.jobid() : allocationOfSalloc();
            if (allocated != null) {
                jobId = allocated;
                slurmJobId = jobId;
                return stepAndRelay(options);
            }
            String submitted = submit(options);
            if (submitted == null) {
                return 1;
            }
            jobId = submitted;
            slurmJobId = submitted;
            ownJob = submitted;
            StepCreated created = null;
            try {
                if (!awaitStart(options)) {
                    return 1;
                }
                created = create(options);
            } finally {
                if (created == null) {
                    // no step will come: the job must not hold its nodes until its batch work gives up
                    cancel(submitted);
                }
            }
            if (created == null) {
                return 1;
            }
            step = created;
            // the job's batch work (--gantry-await-step) ends it with the same code once it sees the step end
            return relay(options, created);
        });
    }

    /** The job of the salloc this srun runs under (its SLURM_JOB_ID), or null. */
    private String allocationOfSalloc() {
        String id = env.get("SLURM_JOB_ID");
        return id != null && id.strip().matches("[0-9]+(_[0-9]+)?") ? id.strip() : null;
    }

    /** Asks for the job; its id, or null when refused (said as Slurm says it). */
    private String submit(SrunOptions options) throws IOException, InterruptedException {
        StringBuilder script = new StringBuilder("#!/bin/sh\n# The job of an srun typed outside any job: its one step.\n");
        for (String directive : options.allocation()) {
            script.append("#SBATCH --").append(directive.replace("\n", " ")).append('\n');
        }
        // the step's output reaches the user through this srun, not through a file
        script.append("#SBATCH --output=/dev/null\n");
        // this srun starts the step itself (its JVM is already up); the batch work waits for it to end
        // and exits with its exit code, which ends the job COMPLETED, or FAILED with that code
        script.append("exec srun --gantry-await-step=0\n");
        String name = options.jobName() != null ? null
                : options.command().get(0).substring(options.command().get(0).lastIndexOf('/') + 1);
        ControllerCalls.Answer answer = calls.submitJob(script.toString(), env, name, cwd.toString(), CALL_TIMEOUT);
        if (!answer.ok()) {
            String detail = AgentJson.problemDetail(answer.body());
            err.println("srun: error: Unable to allocate resources: " + (answer.status() == 401
                    ? "the controller refused the login token (run 'gantry login' again)"
                    : detail.isBlank() ? "HTTP " + answer.status() : detail));
            return null;
        }
        return AgentJson.MAPPER.readTree(answer.body()).path("jobId").asString();
    }

    /** Waits for the job to start, saying so as srun does when it waits; false when it ended first. */
    private boolean awaitStart(SrunOptions options) throws IOException, InterruptedException {
        long start = System.nanoTime();
        boolean queued = false;
        long pause = 10;
        while (true) {
            ControllerCalls.Answer job = calls.call("GET", "/api/v1/jobs/" + jobId, null, CALL_TIMEOUT);
            if (job.ok()) {
                tools.jackson.databind.JsonNode view = AgentJson.MAPPER.readTree(job.body());
                String state = view.path("state").asString();
                if (state.equals("RUNNING")) {
                    if (queued && !options.quiet()) {
                        err.println("srun: job " + slurmJobId + " has been allocated resources");
                    }
                    return true;
                }
                if (!state.equals("PENDING") && !state.equals("CONFIGURING")) {
                    String reason = view.path("reason").asString();
                    err.println("srun: error: job " + slurmJobId + " ended " + state + " before its step started"
                            + (reason.isBlank() || reason.equals("None") ? "" : " (" + reason + ")"));
                    return false;
                }
            }
            // Slurm says so when the allocation is not granted at once
            if (!queued && System.nanoTime() - start > 1_000_000_000L && !options.quiet()) {
                err.println("srun: job " + slurmJobId + " queued and waiting for resources");
                queued = true;
            }
            sleeper.sleep(pause);
            pause = Math.min(500, pause * 2);
        }
    }

    /**
     * The batch work of a job an srun outside any job asked for: waits, with the job's credential, until
     * step {@code stepId} exists and has ended, and exits with its exit code, so the job ends with it. No
     * output is read (that srun relays it); gives up, failing the job, when no step comes within a minute.
     */
    private int awaitStep(int stepId) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (true) {
            ControllerCalls.Answer answer;
            try {
                answer = calls.call("GET", StepProtocol.io(jobId, stepId) + "?after=" + (Long.MAX_VALUE / 2), null,
                        POLL_TIMEOUT);
            } catch (IOException e) {
                sleeper.sleep(500);
                continue;
            }
            if (answer.status() == 404) {
                if (System.nanoTime() > deadline) {
                    err.println("srun: error: no step " + slurmJobId + "." + stepId + " came: its srun is gone");
                    return 1;
                }
                sleeper.sleep(50);
                continue;
            }
            if (!answer.ok()) {
                if (answer.status() >= 500) {
                    sleeper.sleep(500);
                    continue;
                }
                err.println("srun: error: StepId=" + slurmJobId + "." + stepId + ": HTTP " + answer.status() + " "
                        + AgentJson.problemDetail(answer.body()));
                return 1;
            }
            StepIo io = read(answer, StepIo.class);
            if (!io.done()) {
                continue;
            }
            if (io.exits() != null && !io.exits().isEmpty()) {
                return io.exits().stream().mapToInt(Srun::exitCode).max().orElse(0);
            }
            // ended before this controller led: the step's record keeps its code
            ControllerCalls.Answer steps = calls.call("GET", StepProtocol.steps(jobId), null, CALL_TIMEOUT);
            for (tools.jackson.databind.JsonNode item : AgentJson.MAPPER.readTree(steps.body()).path("items")) {
                if (item.path("stepId").asString().equals(Integer.toString(stepId))) {
                    return item.path("exitCode").isNumber() ? item.path("exitCode").asInt() : 1;
                }
            }
            return 1;
        }
    }

    /** Cancels the job this srun asked for (a job that already ended stays as it ended). */
    private void cancel(String own) {
        String failure = calls.cancelJob(own, CALL_TIMEOUT);
        if (failure != null) {
            err.println("srun: error: cannot cancel job " + own + ": " + failure);
        }
    }

    /** What the tasks inherit with --export=ALL: this environment, never the user's login token. */
    private Map<String, String> environment() {
        Map<String, String> environment = new LinkedHashMap<>(env);
        if (viaLogin) {
            environment.remove("GANTRY_TOKEN");
        }
        return environment;
    }

    /** A positive count from the environment, null when it holds none. */
    private static Integer count(String value) {
        if (value == null || !value.strip().matches("[1-9][0-9]{0,8}")) {
            return null;
        }
        return Integer.valueOf(value.strip());
    }

    /** Asks for the step, waiting while the controller says it cannot be created yet; null when refused. */
    private StepCreated create(SrunOptions options) throws IOException, InterruptedException {
        String workdir = options.chdir() == null ? cwd.toString() : cwd.resolve(options.chdir()).normalize().toString();
        // without --job-name the controller names the step after its command, as srun does
        // As Slurm's srun: with no task or node count on its command line it takes the job's own
        // (SLURM_NTASKS, SLURM_NTASKS_PER_NODE), so a plain srun in an -N2 --ntasks-per-node=2 job runs 4 tasks
        boolean shaped = options.ntasks() != null || options.nodes() != null || options.ntasksPerNode() != null
                || (options.nodelist() != null && !options.nodelist().isBlank());
        Integer ntasks = shaped ? options.ntasks() : count(env.getOrDefault("SLURM_NTASKS", env.get("SLURM_NPROCS")));
        Integer ntasksPerNode = shaped ? options.ntasksPerNode() : count(env.get("SLURM_NTASKS_PER_NODE"));
        Integer nodes = options.nodes();
        if (options.pty() && !shaped) {
            // a terminal is one task's: srun --pty bash in a many-task allocation opens one shell
            ntasks = 1;
            ntasksPerNode = null;
            nodes = 1;
        }
        int[] size = options.pty() ? SrunTerminal.size() : null;
        StepRequest request = new StepRequest(options.jobName(), options.command(), ntasks, nodes,
                ntasksPerNode, options.cpusPerTask(), options.gpusPerTask(), options.gpusPerNode(),
                options.nodelist(), workdir, options.export(), environment(), options.overlap(),
                options.exact(), options.mpi(), options.pty(), options.relaysInput() && !options.pty(),
                size == null ? null : size[0], size == null ? null : size[1], options.container());
        byte[] body = AgentJson.MAPPER.writeValueAsBytes(request);
        boolean waited = false;
        while (true) {
            ControllerCalls.Answer answer = calls.call("POST", StepProtocol.steps(jobId), body, CALL_TIMEOUT);
            if (answer.ok()) {
                StepCreated created = read(answer, StepCreated.class);
                if (waited && !options.quiet()) {
                    err.println("srun: Step created for StepId=" + slurmJobId + "." + created.stepId());
                }
                return created;
            }
            String detail = AgentJson.problemDetail(answer.body());
            if (answer.status() == 409 || answer.status() == 503) {
                if (!waited && !options.quiet()) {
                    err.println("srun: Job " + slurmJobId + " step creation temporarily disabled, retrying"
                            + (detail.isBlank() ? "" : " (" + detail + ")"));
                }
                waited = true;
                long seconds = answer.retryAfterSeconds().orElse(1);
                sleeper.sleep(Math.min(60, Math.max(1, seconds)) * 1000);
                continue;
            }
            if (viaLogin && (answer.status() == 403 || answer.status() == 404)) {
                // as Slurm's srun --jobid says it for a job that is not the caller's, or not there
                err.println("srun: error: Unable to confirm allocation for job " + slurmJobId + ": "
                        + (answer.status() == 403 ? "Access/permission denied" : "Invalid job id specified"));
                err.println("srun: Check SLURM_JOB_ID environment variable. Expired or invalid job " + slurmJobId);
                return null;
            }
            if (answer.status() == 400) {
                // the controller words it as Slurm does, prefix included
                err.println(detail.startsWith("srun: ") ? detail : "srun: error: " + detail);
            } else if (answer.status() == 401 || answer.status() == 403) {
                err.println("srun: error: Unable to create step for job " + slurmJobId
                        + ": the controller refused the job's credential" + (detail.isBlank() ? "" : ": " + detail));
            } else {
                err.println("srun: error: Unable to create step for job " + slurmJobId + ": HTTP " + answer.status()
                        + (detail.isBlank() ? "" : ": " + detail));
            }
            return null;
        }
    }

    /** Relays the step's output until every task has ended; the exit code srun ends with. */
    private int relay(SrunOptions options, StepCreated created) throws IOException, InterruptedException {
        Map<Integer, String> nodeOf = new HashMap<>();
        Map<Integer, Integer> nodeIndexOf = new HashMap<>();
        int tasks = 0;
        if (created.nodes() != null && created.tasksPerNode() != null) {
            for (int n = 0; n < created.tasksPerNode().size() && n < created.nodes().size(); n++) {
                for (Integer rank : created.tasksPerNode().get(n)) {
                    nodeOf.put(rank, created.nodes().get(n));
                    nodeIndexOf.put(rank, n);
                    tasks++;
                }
            }
        }
        Map<String, OutputStream> files = new HashMap<>();
        SrunOutput output = new SrunOutput(options.label(), options.unbuffered() || options.pty(), tasks, (procId, stream) -> {
            String pattern = stream.equals("stderr") && options.error() != null ? options.error() : options.output();
            if (pattern == null || (stream.equals("stdout") && options.output() == null)) {
                return stream.equals("stderr") ? errStream : out;
            }
            String file = expand(pattern, created.stepId(), procId, nodeIndexOf.getOrDefault(procId, 0),
                    nodeOf.getOrDefault(procId, ""));
            return files.computeIfAbsent(file, f -> open(options, f));
        });
        Map<Integer, StepTaskExit> exits = new LinkedHashMap<>();
        boolean killed = false;
        long after = 0;
        long retry = 0;
        SrunTerminal terminal = options.pty() ? SrunTerminal.raw() : null;
        if (terminal != null) {
            this.terminal = terminal;
            SrunTerminal.onResize(() -> resized(created.stepId()));
        }
        if (options.relaysInput()) {
            Thread pump = new Thread(() -> pumpInput(created.stepId()), "srun-input");
            pump.setDaemon(true);
            pump.start();
        }
        try {
            while (true) {
                ControllerCalls.Answer answer;
                try {
                    answer = calls.call("GET", StepProtocol.io(jobId, created.stepId()) + "?after=" + after, null,
                            POLL_TIMEOUT);
                } catch (IOException e) {
                    retry = Math.min(MAX_RETRY_MILLIS, Math.max(500, retry * 2));
                    if (retry == 500 && !options.quiet()) {
                        err.println("srun: error: lost the controller (" + e.getMessage() + "); retrying");
                    }
                    sleeper.sleep(retry);
                    continue;
                }
                if (!answer.ok()) {
                    if (answer.status() >= 500) {
                        retry = Math.min(MAX_RETRY_MILLIS, Math.max(500, retry * 2));
                        sleeper.sleep(retry);
                        continue;
                    }
                    err.println("srun: error: StepId=" + slurmJobId + "." + created.stepId() + ": "
                            + (answer.status() == 401 || answer.status() == 403
                                    ? "the job is over (its credential is no longer accepted)"
                                    : "HTTP " + answer.status() + " " + AgentJson.problemDetail(answer.body())));
                    return 1;
                }
                retry = 0;
                StepIo io = read(answer, StepIo.class);
                if (io.chunks() != null) {
                    for (StepOutputChunk chunk : io.chunks()) {
                        if (options.pty() && chunk.procId() > 0) {
                            continue; // as Slurm's srun --pty: only task 0's terminal is shown
                        }
                        output.write(chunk.procId(), chunk.stream(), chunk.data());
                    }
                }
                output.flush();
                after = Math.max(after, io.next());
                if (io.exits() != null) {
                    for (StepTaskExit exit : io.exits()) {
                        if (exits.putIfAbsent(exit.procId(), exit) == null && exitCode(exit) != 0) {
                            err.println("srun: error: " + nodeOf.getOrDefault(exit.procId(), "?") + ": task "
                                    + exit.procId() + ": " + describe(exit));
                            if (options.killOnBadExit() && !killed) {
                                killed = true;
                                if (!options.quiet()) {
                                    err.println("srun: Terminating StepId=" + slurmJobId + "." + created.stepId());
                                }
                                signal(created.stepId(), "KILL");
                            }
                        }
                    }
                }
                if (io.done()) {
                    break;
                }
            }
        } finally {
            restoreTerminal();
            output.finish();
            for (OutputStream file : files.values()) {
                if (file != out && file != errStream) {
                    file.close();
                }
            }
        }
        return exits.values().stream().mapToInt(Srun::exitCode).max().orElse(0);
    }

    /** What srun exits with for a task: its exit code, or 128+N when signal N ended it. */
    static int exitCode(StepTaskExit exit) {
        if (exit.signal() != null && exit.signal() > 0) {
            return 128 + exit.signal();
        }
        return exit.exitCode() == null ? 0 : exit.exitCode();
    }

    static String describe(StepTaskExit exit) {
        if (exit.signal() != null && exit.signal() > 0) {
            return switch (exit.signal()) {
                case 1 -> "Hangup";
                case 2 -> "Interrupt";
                case 6 -> "Aborted";
                case 9 -> "Killed";
                case 11 -> "Segmentation fault";
                case 15 -> "Terminated";
                default -> "Killed by signal " + exit.signal();
            };
        }
        return "Exited with exit code " + exit.exitCode();
    }

    /** Slurm's filename patterns: %j job, %J job.step, %s step, %t task, %n node id, %N node name, %% a %. */
    String expand(String pattern, int stepId, int procId, int nodeIndex, String node) {
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c != '%' || i + 1 >= pattern.length()) {
                name.append(c);
                continue;
            }
            char p = pattern.charAt(++i);
            switch (p) {
                case 'j' -> name.append(slurmJobId);
                case 'J' -> name.append(slurmJobId).append('.').append(stepId);
                case 's' -> name.append(stepId);
                case 't' -> name.append(procId);
                case 'n' -> name.append(nodeIndex);
                case 'N' -> name.append(node);
                case 'u' -> name.append(env.getOrDefault("USER", ""));
                case 'x' -> name.append(env.getOrDefault("SLURM_JOB_NAME", ""));
                case '%' -> name.append('%');
                default -> name.append('%').append(p);
            }
        }
        return name.toString();
    }

    private OutputStream open(SrunOptions options, String file) {
        Path base = options.chdir() == null ? cwd : cwd.resolve(options.chdir());
        try {
            return Files.newOutputStream(base.resolve(file));
        } catch (IOException e) {
            err.println("srun: error: cannot open " + base.resolve(file) + ": " + e.getMessage());
            return OutputStream.nullOutputStream();
        }
    }

    /**
     * Sends what srun reads from its standard input to task 0, as it comes (a keystroke at a time from
     * a raw terminal), one request at a time, in order; its end closes the task's input.
     */
    private void pumpInput(int stepId) {
        byte[] buffer = new byte[ControllerCalls.MAX_INPUT];
        FileInputStream in = new FileInputStream(FileDescriptor.in);
        try {
            while (!finished) {
                int n = in.read(buffer);
                if (!sendInput(stepId, n < 0 ? null : Arrays.copyOf(buffer, n), n < 0, null) || n < 0) {
                    return;
                }
            }
        } catch (IOException e) {
            sendInputQuietly(stepId, true);
        }
    }

    private void sendInputQuietly(int stepId, boolean eof) {
        try {
            sendInput(stepId, null, eof, null);
        } catch (IOException e) {
            // srun is going; the step ends with its tasks
        }
    }

    /** The terminal changed size: the remote one follows. */
    private void resized(int stepId) {
        int[] size = SrunTerminal.size();
        if (size != null && !finished) {
            try {
                sendInput(stepId, null, false, size);
            } catch (IOException e) {
                // the next resize tries again
            }
        }
    }

    /** One input request; false once the step no longer takes input (it ended). */
    private boolean sendInput(int stepId, byte[] data, boolean eof, int[] size) throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        if (data != null && data.length > 0) {
            body.put("data", java.util.Base64.getEncoder().encodeToString(data));
        }
        body.put("eof", eof);
        if (size != null) {
            body.put("rows", size[0]);
            body.put("cols", size[1]);
        }
        try {
            ControllerCalls.Answer answer = calls.call("POST", StepProtocol.input(jobId, stepId),
                    AgentJson.MAPPER.writeValueAsBytes(body), CALL_TIMEOUT);
            return answer.ok();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void restoreTerminal() {
        SrunTerminal t = terminal;
        terminal = null;
        if (t != null) {
            t.restore();
        }
    }

    /** srun is being stopped (SIGINT, SIGTERM): its step's tasks get SIGTERM, then SIGKILL from their agents. */
    void interrupted() {
        restoreTerminal();
        String own = ownJob;
        if (own != null && !finished) {
            // the job exists for this srun alone: it goes with it, waiting or running
            err.println("srun: Job allocation " + own + " has been revoked.");
            cancel(own);
            return;
        }
        StepCreated created = step;
        if (created == null || finished) {
            return;
        }
        err.println("srun: forcing job termination");
        try {
            signal(created.stepId(), "TERM");
        } catch (IOException | InterruptedException e) {
            err.println("srun: error: cannot signal StepId=" + slurmJobId + "." + created.stepId() + ": "
                    + e.getMessage());
        }
    }

    private void signal(int stepId, String signal) throws IOException, InterruptedException {
        ControllerCalls.Answer answer = calls.call("POST", StepProtocol.signal(jobId, stepId) + "?signal=" + signal, new byte[0],
                CALL_TIMEOUT);
        if (!answer.ok()) {
            err.println("srun: error: cannot signal StepId=" + slurmJobId + "." + stepId + ": HTTP " + answer.status()
                    + " " + AgentJson.problemDetail(answer.body()));
        }
    }

    private static <T> T read(ControllerCalls.Answer answer, Class<T> type) throws IOException {
        return answer.read(type);
    }

    /** For tests: the step srun created, once it has. */
    StepCreated step() {
        return step;
    }
}
