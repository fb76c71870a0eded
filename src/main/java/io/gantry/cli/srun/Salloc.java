package io.gantry.cli.srun;

import io.gantry.noded.protocol.AgentJson;
import io.gantry.noded.protocol.StepProtocol;
import io.gantry.noded.protocol.StepProtocol.StepCreated;
import io.gantry.noded.protocol.StepProtocol.StepRequest;
import io.gantry.engine.TaskCounts;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * {@code salloc [options] [command]}, as Slurm's: asks for an allocation from sbatch's options, says
 * so while it waits ({@code salloc: Pending job allocation N}, {@code queued and waiting for
 * resources}), then ({@code Granted job allocation N}) runs the command (the user's shell by default)
 * right here with the allocation's {@code SLURM_*} variables, so {@code srun} in it starts steps on the
 * allocated nodes; when the command exits the allocation is released and the job ends with the
 * command's exit code (COMPLETED, or FAILED for a non-zero one). Ctrl-C while it waits cancels the
 * request; while the command runs, Ctrl-C is the command's.
 * <p>
 * The job's batch work on its first node waits for step 0 ({@code srun --gantry-await-step=0}), which
 * salloc starts there at once: one task that holds nothing ({@code --overlap}) and reads from salloc
 * the exit code to end with. salloc's own {@code --no-shell} leaves the allocation running after the
 * grant, until {@code scancel} or its time limit.
 */
public final class Salloc {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    /** How long salloc waits for the job to end after the command, before it cancels the job instead. */
    private static final Duration RELEASE_WAIT = Duration.ofSeconds(30);
    /** What step 0 runs: reads the exit code salloc sends and ends with it, so the job ends with it. */
    static final List<String> HOLDER = List.of("/bin/sh", "-c",
            "read -r code; case \"$code\" in ''|*[!0-9]*) code=1;; esac; exit \"$code\"");

    private final Map<String, String> env;
    private final PrintStream err;
    private final Path cwd;
    private final Srun.Sleeper sleeper;
    private ControllerCalls calls;
    private volatile String jobId;
    private volatile boolean granted;
    private volatile boolean finished;

    Salloc(Map<String, String> env, PrintStream err, Path cwd, Srun.Sleeper sleeper) {
        this.env = env;
        this.err = err;
        this.cwd = cwd;
        this.sleeper = sleeper;
    }

    public static int run(String[] args) {
        Salloc salloc = new Salloc(System.getenv(), new PrintStream(new java.io.FileOutputStream(
                java.io.FileDescriptor.err), true, StandardCharsets.UTF_8), Path.of("").toAbsolutePath(),
                Thread::sleep);
        Runtime.getRuntime().addShutdownHook(new Thread(salloc::interrupted, "salloc-interrupted"));
        int code = salloc.run(Arrays.asList(args));
        salloc.finished = true;
        return code;
    }

    int run(List<String> args) {
        boolean noShell = false;
        List<String> rest = new ArrayList<>();
        int i = 0;
        for (; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--no-shell")) {
                noShell = true;
            } else if (a.equals("--bell") || a.equals("--no-bell") || a.startsWith("--immediate") || a.startsWith("-I")
                    && !a.startsWith("--")) {
                // accepted: salloc waits as long as the request is pending, and rings no bell
            } else {
                rest.add(a);
            }
        }
        SrunOptions options;
        try {
            options = SrunOptions.parse(rest);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            // getopt's own words, as Slurm's salloc prints them
            boolean getopt = message.startsWith("unrecognized") || message.startsWith("invalid option")
                    || message.contains("argument") || message.contains("ambiguous");
            err.println("salloc: " + (getopt ? message + "\nTry \"salloc --help\" for more information"
                    : "error: " + message));
            return 1;
        }
        if (options.container() != null) {
            // pyxis's flags mean a container for srun's tasks; salloc's command runs on this machine
            err.println("salloc: error: --container-* runs nothing here: salloc's command runs on this machine. "
                    + "Give the container to the steps instead: srun --container-image=... inside the allocation");
            return 1;
        }
        if (options.help()) {
            err.print("""
                    Usage: salloc [OPTIONS...] [command [args...]]
                      Asks for an allocation with sbatch's options (-N -n -c --mem --gres --gpus -p -A -q -t -J -w -C
                      --exclusive ...), runs the command (default: your shell) here with its SLURM_* variables,
                      and releases the allocation when the command exits; srun in it runs on the allocated nodes.
                          --no-shell            only allocate: the job runs until scancel or its time limit
                    """);
            return 0;
        }
        SrunLogin login = SrunLogin.of(env);
        if (login == null) {
            err.println("salloc: error: not logged in: run 'gantry login' (or set GANTRY_URL and GANTRY_TOKEN)");
            return 1;
        }
        calls = ControllerCalls.to(login.controllers(), login.token());
        try {
            jobId = submit(options);
            if (jobId == null) {
                return 1;
            }
            JsonNode job = awaitStart(options);
            if (job == null) {
                return 1;
            }
            if (!startHolder()) {
                cancel();
                return 1;
            }
            err.println("salloc: Granted job allocation " + jobId);
            granted = true;
            if (noShell) {
                return 0;
            }
            int code = command(options.command(), job, options);
            err.println("salloc: Relinquishing job allocation " + jobId);
            release(code);
            return code;
        } catch (IOException e) {
            err.println("salloc: error: " + e.getMessage());
            if (jobId != null) {
                cancel();
            }
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    /** Asks for the job; its id, or null when refused (said as Slurm says it). */
    private String submit(SrunOptions options) throws IOException, InterruptedException {
        StringBuilder script = new StringBuilder("#!/bin/sh\n# salloc's allocation: the command runs where salloc "
                + "was typed; this waits for salloc to release it.\n");
        for (String directive : options.allocation()) {
            script.append("#SBATCH --").append(directive.replace("\n", " ")).append('\n');
        }
        script.append("#SBATCH --output=/dev/null\n");
        script.append("exec srun --gantry-await-step=0\n");
        ControllerCalls.Answer answer = calls.submitJob(script.toString(), env,
                options.jobName() == null ? "interactive" : null, cwd.toString(), CALL_TIMEOUT);
        if (!answer.ok()) {
            String detail = AgentJson.problemDetail(answer.body());
            err.println("salloc: error: Job submit/allocate failed: " + (answer.status() == 401
                    ? "the controller refused the login token (run 'gantry login' again)"
                    : detail.isBlank() ? "HTTP " + answer.status() : detail));
            return null;
        }
        return AgentJson.MAPPER.readTree(answer.body()).path("jobId").asString();
    }

    /** Waits for the job to run, saying so as salloc does; its view, or null when it ended first. */
    private JsonNode awaitStart(SrunOptions options) throws IOException, InterruptedException {
        long start = System.nanoTime();
        boolean queued = false;
        long pause = 10;
        while (true) {
            ControllerCalls.Answer answer = calls.call("GET", "/api/v1/jobs/" + jobId, null, CALL_TIMEOUT);
            if (answer.ok()) {
                JsonNode view = AgentJson.MAPPER.readTree(answer.body());
                String state = view.path("state").asString();
                if (state.equals("RUNNING")) {
                    if (queued && !options.quiet()) {
                        err.println("salloc: job " + jobId + " has been allocated resources");
                    }
                    return view;
                }
                if (!state.equals("PENDING") && !state.equals("CONFIGURING")) {
                    String reason = view.path("reason").asString();
                    err.println("salloc: error: Job allocation " + jobId + " has been revoked" + (reason.isBlank()
                            || reason.equals("None") ? "" : " (" + reason + ")") + ": it ended " + state);
                    return null;
                }
                if (!queued && System.nanoTime() - start > 1_000_000_000L && !options.quiet()) {
                    err.println("salloc: Pending job allocation " + jobId);
                    err.println("salloc: job " + jobId + " queued and waiting for resources");
                    queued = true;
                }
            }
            sleeper.sleep(pause);
            pause = Math.min(500, pause * 2);
        }
    }

    /** Starts step 0 on the job's first node: it holds the job until salloc sends the exit code. */
    private boolean startHolder() throws IOException, InterruptedException {
        StepRequest request = new StepRequest("interactive", HOLDER, 1, 1, null, null, null, null, null,
                cwd.toString(), "NONE", Map.of(), true, false, null, false, true, null, null);
        ControllerCalls.Answer answer = calls.call("POST", StepProtocol.steps(jobId),
                AgentJson.MAPPER.writeValueAsBytes(request), CALL_TIMEOUT);
        if (!answer.ok()) {
            err.println("salloc: error: cannot hold job allocation " + jobId + ": HTTP " + answer.status() + " "
                    + AgentJson.problemDetail(answer.body()));
            return false;
        }
        StepCreated created = answer.read(StepCreated.class);
        if (created.stepId() != 0) {
            err.println("salloc: error: job " + jobId + " already has steps: it is not salloc's");
            return false;
        }
        return true;
    }

    /** Runs the command here with the allocation's variables; its exit code (128+N for signal N). */
    private int command(List<String> command, JsonNode job, SrunOptions options)
            throws IOException, InterruptedException {
        List<String> argv = command.isEmpty()
                ? List.of(env.getOrDefault("SHELL", "/bin/sh").isBlank() ? "/bin/sh" : env.get("SHELL"))
                : command;
        ProcessBuilder builder = new ProcessBuilder(argv).inheritIO().directory(cwd.toFile());
        builder.environment().clear();
        builder.environment().putAll(env);
        builder.environment().putAll(allocationEnvironment(job, options));
        // Ctrl-C at the terminal is the command's now, not a reason to give the allocation up
        ignoreInterrupts();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            err.println("salloc: error: " + argv.get(0) + ": " + e.getMessage());
            return 127;
        }
        int code = process.waitFor();
        return code;
    }

    /** The variables Slurm's salloc gives its command, from the job's view. */
    static Map<String, String> allocationEnvironment(JsonNode job, SrunOptions options) {
        Map<String, String> vars = new LinkedHashMap<>();
        String id = job.path("id").asString();
        List<String> nodes = new ArrayList<>();
        List<Integer> cpus = new ArrayList<>();
        for (JsonNode a : job.path("allocation")) {
            nodes.add(a.path("node").asString());
            cpus.add(a.path("cpus").asInt());
        }
        String nodelist = job.path("allocatedNodes").asString();
        vars.put("SLURM_JOB_ID", id);
        vars.put("SLURM_JOBID", id);
        vars.put("SLURM_JOB_NAME", job.path("name").asString());
        vars.put("SLURM_JOB_NODELIST", nodelist);
        vars.put("SLURM_NODELIST", nodelist);
        vars.put("SLURM_JOB_NUM_NODES", Integer.toString(nodes.size()));
        vars.put("SLURM_NNODES", Integer.toString(nodes.size()));
        vars.put("SLURM_JOB_CPUS_PER_NODE", TaskCounts.compressed(cpus));
        int tasks = Math.max(1, job.path("tasks").asInt(1));
        int cpusPerTask = Math.max(1, job.path("cpusPerTask").asInt(1));
        vars.put("SLURM_TASKS_PER_NODE", options.ntasks() == null && options.ntasksPerNode() == null
                ? TaskCounts.compressed(nodes.stream().map(n -> 1).toList())
                : TaskCounts.compressed(TaskCounts.blockLayout(cpus, tasks, cpusPerTask)));
        if (options.ntasks() != null || options.ntasksPerNode() != null) {
            vars.put("SLURM_NTASKS", Integer.toString(tasks));
            vars.put("SLURM_NPROCS", Integer.toString(tasks));
        }
        if (options.ntasksPerNode() != null) {
            vars.put("SLURM_NTASKS_PER_NODE", Integer.toString(options.ntasksPerNode()));
        }
        if (options.cpusPerTask() != null) {
            vars.put("SLURM_CPUS_PER_TASK", Integer.toString(options.cpusPerTask()));
        }
        put(vars, "SLURM_JOB_PARTITION", job.path("partition").asString());
        put(vars, "SLURM_JOB_ACCOUNT", job.path("account").asString());
        put(vars, "SLURM_JOB_QOS", job.path("qos").asString());
        put(vars, "SLURM_SUBMIT_DIR", job.path("workdir").asString());
        try {
            put(vars, "SLURM_SUBMIT_HOST", java.net.InetAddress.getLocalHost().getHostName());
        } catch (IOException e) {
            // no host name to give
        }
        return vars;
    }

    private static void put(Map<String, String> vars, String name, String value) {
        if (value != null && !value.isBlank()) {
            vars.put(name, value);
        }
    }

    /**
     * Ends the job with the command's code: step 0 reads it and exits with it, and so does the batch
     * work that waits for step 0. When the job has not ended a while later, it is cancelled instead.
     */
    private void release(int code) throws IOException, InterruptedException {
        Map<String, Object> body = Map.of("data", java.util.Base64.getEncoder().encodeToString(
                (code + "\n").getBytes(StandardCharsets.US_ASCII)), "eof", true);
        calls.call("POST", StepProtocol.input(jobId, 0), AgentJson.MAPPER.writeValueAsBytes(body), CALL_TIMEOUT);
        long deadline = System.nanoTime() + RELEASE_WAIT.toNanos();
        long pause = 20;
        while (System.nanoTime() < deadline) {
            ControllerCalls.Answer answer = calls.call("GET", "/api/v1/jobs/" + jobId, null, CALL_TIMEOUT);
            if (answer.ok()) {
                String state = AgentJson.MAPPER.readTree(answer.body()).path("state").asString();
                if (!state.equals("RUNNING") && !state.equals("COMPLETING") && !state.equals("CONFIGURING")) {
                    return;
                }
            }
            sleeper.sleep(pause);
            pause = Math.min(500, pause * 2);
        }
        cancel();
    }

    /** salloc is being stopped: a request still waiting is cancelled, an allocation it holds released. */
    void interrupted() {
        String own = jobId;
        if (own == null || finished || calls == null) {
            return;
        }
        err.println(granted ? "salloc: Relinquishing job allocation " + own
                : "salloc: Job allocation " + own + " has been revoked.");
        cancel();
    }

    private void cancel() {
        String failure = calls.cancelJob(jobId, CALL_TIMEOUT);
        if (failure != null) {
            err.println("salloc: error: cannot cancel job " + jobId + ": " + failure);
        }
    }

    private static void ignoreInterrupts() {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("INT"), sun.misc.SignalHandler.SIG_IGN);
            sun.misc.Signal.handle(new sun.misc.Signal("QUIT"), sun.misc.SignalHandler.SIG_IGN);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            // the JVM keeps its own handling
        }
    }
}
