package io.gantry.agent.protocol;

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
 * </ol>
 * {@code GET /api/v1/jobs/{id}/steps} lists the batch step and every srun step (any user who may see the job).
 */
public final class StepProtocol {

    public static final String CREDENTIAL_ENV = "GANTRY_JOB_TOKEN";
    public static final String CONTROLLER_ENV = "GANTRY_URL";

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
            String export, Map<String, String> environment, boolean overlap, boolean exact, String mpi) {
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
