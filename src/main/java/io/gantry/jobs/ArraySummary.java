package io.gantry.jobs;

import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * An array job as one thing, summed up by the store however many tasks it has: what its page shows
 * before any task is listed (GET /jobs/{id}/array).
 */
@Schema(description = "An array job summed up: its tasks by state and by exit code, and their ids as ranges")
public record ArraySummary(
        @Schema(description = "The array's job id") long arrayJobId,
        @Schema(description = "The first task's name (an array's tasks share it)") String name,
        String user, String account,
        @Schema(description = "The first task's partition") String partition,
        @Schema(description = "How many tasks the array has") long tasks,
        @Schema(description = "The task ids, as sbatch --array writes them", example = "0-99,200") String taskIds,
        @Schema(description = "How many tasks are in each state (states with none left out)") List<StateCount> states,
        @Schema(description = "How many ended tasks ended with each exit code") List<ExitCodeCount> exitCodes) {

    public record StateCount(JobState state, long tasks) {
    }

    public record ExitCodeCount(int exitCode, long tasks) {
    }
}
