package io.gantry.noded.protocol;

import java.util.List;
import java.util.Map;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * How {@code srun}, inside a job, talks to the controller (JSON over HTTP, authenticated with the
 * job's credential from {@code GANTRY_JOB_TOKEN}); the controller relays to and from the agents of
 * the step's nodes:
 * <ol>
 * <li>{@code POST /api/v1/jobs/{id}/steps} with a {@link StepRequest}: 201 with the {@link StepCreated}
 * (its id and where its tasks run), or 400 with Slurm's message when the allocation cannot hold it.</li>
 * <li>{@code GET /api/v1/jobs/{id}/steps/{step}/io?after=N}: a long poll (at most about 20 s) for the
 * step's {@link StepIo}: output chunks after sequence number N, in order, and once every task has
 * ended, {@code done} with each task's exit.</li>
 * <li>{@code POST /api/v1/jobs/{id}/steps/{step}/signal?signal=TERM}: signal every task of the step
 * (srun interrupted, or {@code --kill-on-bad-exit} after a task failed).</li>
 * <li>{@code POST /api/v1/jobs/{id}/steps/{step}/input} with a {@link StepInput}: bytes for task 0's
 * standard input (a step asked with {@code pty} or {@code input}), in order, and the terminal's size
 * when it changed (srun --pty).</li>
 * </ol>
 * {@code GET /api/v1/jobs/{id}/steps} lists the batch step and every srun step (any user who may see the job).
 */
public final class StepProtocol {

    public static final String CREDENTIAL_ENV = "GANTRY_JOB_TOKEN";
    public static final String CONTROLLER_ENV = "GANTRY_URL";

    /**
     * Linux's ARG_MAX with the usual 8 MiB stack: what {@code execve} takes of arguments and
     * environment together, counting each string's bytes, its NUL and its pointer.
     */
    public static final int ARG_MAX = 2 * 1024 * 1024;
    /** Linux's MAX_ARG_STRLEN: the longest single argument or {@code NAME=value}, its NUL included. */
    public static final int MAX_ARG_STRLEN = 128 * 1024;
    /**
     * What a step request's argv and environment (with {@code export}'s items) may take of
     * {@link #ARG_MAX}, counted as {@link #execBytes(String)} does: the rest is left for the
     * variables the controller and the agent set for each task.
     */
    public static final int MAX_STEP_EXEC_BYTES = ARG_MAX - 128 * 1024;
    /** The most strings a step's argv may hold. */
    public static final int MAX_ARGV = 4096;
    /** The most variables a step's environment may hold (a login shell has a few hundred). */
    public static final int MAX_ENVIRONMENT = 8192;
    /** The longest working directory, in bytes: PATH_MAX less its NUL. */
    public static final int MAX_PATH_BYTES = 4095;
    /** The longest step name. */
    public static final int MAX_NAME = 256;
    /** The longest nodelist expression read before expanding it. */
    public static final int MAX_NODELIST = 65_536;
    /** The longest {@code mpi} value. */
    public static final int MAX_MPI = 64;
    /**
     * The largest step request body: twice what the kernel takes of argv and environment, room for
     * JSON's quoting; a larger body is refused 413 before it is read.
     */
    public static final int MAX_REQUEST_BYTES = 2 * ARG_MAX;

    /** What one argument or {@code NAME=value} costs of {@link #ARG_MAX}: its UTF-8 bytes, its NUL, its pointer. */
    public static long execBytes(String text) {
        return utf8Length(text) + 1L + 8L;
    }

    /** The UTF-8 length of {@code text} without encoding it (a lone surrogate counts as the '?' it becomes). */
    public static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private StepProtocol() {
    }

    public static String steps(String jobId) {
        return "/api/v1/jobs/" + jobId + "/steps";
    }

    public static String io(String jobId, int step) {
        return steps(jobId) + "/" + step + "/io";
    }

    public static String signal(String jobId, int step) {
        return steps(jobId) + "/" + step + "/signal";
    }

    public static String input(String jobId, int step) {
        return steps(jobId) + "/" + step + "/input";
    }

    /** The most bytes one {@link StepInput} carries (srun sends what it read, a keystroke or a pasted block). */
    public static final int MAX_INPUT_BYTES = 64 * 1024;
    /** The largest terminal side srun --pty passes on, in rows or columns. */
    public static final int MAX_TERMINAL_SIDE = 10_000;

    /**
     * What srun asks for. Null counts take Slurm's defaults inside an allocation: {@code nodes} all
     * of the job's nodes (or as few as {@code ntasks} need), {@code ntasks} one per node (or
     * {@code nodes x ntasksPerNode}). {@code nodelist} is a hostlist within the allocation;
     * {@code export} as sbatch's ({@code ALL}, {@code NONE}, or {@code ALL,NAME=value,...});
     * {@code environment} the srun caller's environment (what ALL exports).
     */
    @Schema(name = "StepRequest")
    public record StepRequest(String name, List<String> argv, Integer ntasks, Integer nodes, Integer ntasksPerNode,
            Integer cpusPerTask, Integer gpusPerTask, Integer gpusPerNode, String nodelist, String workdir,
            String export, Map<String, String> environment, boolean overlap, boolean exact, String mpi,
            @Schema(description = "srun --pty: task 0 runs on a pseudo-terminal of its node; its standard input "
                    + "comes from srun (POST .../input) and its output, both streams in one, goes back as stdout")
            boolean pty,
            @Schema(description = "srun --input=0: task 0's standard input comes from srun (POST .../input); "
                    + "without it (and without pty) every task reads /dev/null")
            boolean input,
            @Schema(description = "With pty: the terminal's rows and columns at the start") Integer rows,
            Integer cols,
            @Schema(description = "srun's --container-* (pyxis) or --container (Slurm): the container the step's "
                    + "tasks run in on every node; null runs them on the node, also inside a job whose batch "
                    + "script runs in a container, as pyxis does") ContainerSpec container) {

        /** A step with no container of its own, as srun asks for one without --container-*. */
        public StepRequest(String name, List<String> argv, Integer ntasks, Integer nodes, Integer ntasksPerNode,
                Integer cpusPerTask, Integer gpusPerTask, Integer gpusPerNode, String nodelist, String workdir,
                String export, Map<String, String> environment, boolean overlap, boolean exact, String mpi,
                boolean pty, boolean input, Integer rows, Integer cols) {
            this(name, argv, ntasks, nodes, ntasksPerNode, cpusPerTask, gpusPerTask, gpusPerNode, nodelist, workdir,
                    export, environment, overlap, exact, mpi, pty, input, rows, cols, null);
        }

        /** A step whose tasks read /dev/null, as srun runs one without --pty. */
        public StepRequest(String name, List<String> argv, Integer ntasks, Integer nodes, Integer ntasksPerNode,
                Integer cpusPerTask, Integer gpusPerTask, Integer gpusPerNode, String nodelist, String workdir,
                String export, Map<String, String> environment, boolean overlap, boolean exact, String mpi) {
            this(name, argv, ntasks, nodes, ntasksPerNode, cpusPerTask, gpusPerTask, gpusPerNode, nodelist, workdir,
                    export, environment, overlap, exact, mpi, false, false, null, null, null);
        }
    }

    /**
     * Input for task 0 of a step: {@code data} (base64) to write to its standard input, {@code eof} to
     * close it after, and with a terminal its new size ({@code rows} and {@code cols}, both or neither).
     */
    @Schema(name = "StepInput")
    public record StepInput(String data, boolean eof, Integer rows, Integer cols) {
    }

    /** Where a step runs: its node list and, per node in order, the global ranks of its tasks. */
    @Schema(name = "StepCreated")
    public record StepCreated(int stepId, String nodelist, List<String> nodes, List<List<Integer>> tasksPerNode) {
    }

    @Schema(name = "StepOutputChunk")
    public record StepOutputChunk(long seq, int procId, String stream, String data) {
    }

    @Schema(name = "StepTaskExit")
    public record StepTaskExit(int procId, Integer exitCode, Integer signal) {
    }

    /** Output after the asked sequence number; {@code next} is the {@code after} of the next poll. */
    @Schema(name = "StepIo")
    public record StepIo(List<StepOutputChunk> chunks, long next, boolean done, List<StepTaskExit> exits) {
    }
}
