package io.gantry.noded.protocol;

import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * What {@code sstat} reads: a running step's live usage, asked of the agents of its nodes. The controller
 * sends each node a STEP_STAT command (the step in {@code step.stepId}, the request's id in
 * {@code detail}); the agent answers at once with a {@link StepUsage} to
 * {@code POST /api/v1/agents/{node}/step-stats}, from readings of its tasks' processes it takes while the
 * step runs (so a peak between two {@code sstat}s still counts).
 */
public final class StepStatProtocol {

    /** The batch step's number, as Slurm numbers it ({@code SLURM_BATCH_SCRIPT}, 0xfffffffb as a signed int). */
    public static final int BATCH_STEP = -5;

    private StepStatProtocol() {
    }

    public static String stepStats(String node) {
        return AgentProtocol.BASE + "/" + node + "/step-stats";
    }

    /**
     * One task's usage on its node: each figure summed over the task's processes (its process group; for
     * the batch step, the job's processes that are not srun tasks). {@code max*} is the highest reading
     * since the task started, the rest the latest; CPU time is user plus system, of the live processes and
     * of the children they waited for. {@code readBytes}/{@code writeBytes} count what the processes read
     * and wrote ({@code rchar}/{@code wchar}, as Slurm's jobacct_gather/linux does); {@code pages} major
     * page faults.
     */
    @Schema(name = "AgentTaskUsage")
    public record TaskUsage(int procId, long pid, long rssBytes, long maxRssBytes, long vmBytes, long maxVmBytes,
            long cpuMillis, long pages, long maxPages, long readBytes, long writeBytes) {
    }

    /**
     * A node's answer to STEP_STAT: its tasks of the step that still run ({@code tasks} empty when none
     * does here).
     */
    @Schema(name = "AgentStepUsage")
    public record StepUsage(String requestId, String jobId, int stepId, List<TaskUsage> tasks) {
    }
}
