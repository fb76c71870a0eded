package io.gantry.jobs;

import java.time.Instant;
import java.util.List;

import io.swagger.v3.oas.annotations.media.Schema;

/** What GET /work answers: the caller's own work at a glance, what the dashboard lands on. */
@Schema(name = "MyWork", description = "The caller's active jobs, newest ended jobs and recent failures, an array as one "
        + "row each, with the caller's GPU-hours and fair-share factors")
public record MyWork(
        String user,
        @Schema(description = "Running (and completing, suspended) first, then pending; an array with a task in either "
                + "is one row, placed by its most advanced task") List<Row> active,
        @Schema(description = "Jobs and arrays that have ended (no task still active), newest end first; at most "
                + MyJobs.RECENT_ROWS) List<Row> recent,
        @Schema(description = "Jobs and arrays with tasks that ended FAILED, TIMEOUT, OUT_OF_MEMORY or NODE_FAIL in "
                + "the last 24 hours, the latest failure first; listed counts the failed tasks") List<Row> failures,
        @Schema(description = "Since when failures are listed") Instant failuresSince,
        @Schema(description = "GPU-hours of the caller's jobs (whole GPUs x time run) in the last 7 days") double gpuHours7Days,
        @Schema(description = "GPU-hours of the caller's jobs in the last 30 days") double gpuHours30Days,
        @Schema(description = "The caller's fair-share factor in each account they have an association in "
                + "(GET /fairshare's fairShareFactor)") List<FairShare> fairShare) {

    @Schema(name = "MyWorkRow", description = "One job, or one whole array however many tasks it has")
    public record Row(
            @Schema(description = "The job's id as users write it (42, or 42_7 for a lone task); an array's own id")
            String id,
            long jobId,
            @Schema(description = "True for a row standing for an array's tasks") boolean array,
            String name, String partition,
            @Schema(description = "A job's state; for an array the state of its most advanced task in this list "
                    + "(RUNNING before PENDING), or of its latest ended task") JobState state,
            @Schema(description = "A pending job's reason") String reason,
            Instant submitTime, Instant startTime,
            @Schema(description = "When it ended; for an array, its latest task's end") Instant endTime,
            @Schema(description = "A job's exit code; for an array, that of the task shown") Integer exitCode,
            @Schema(description = "Hostlist of the nodes it runs (ran) on; for an array, the task shown") String allocatedNodes,
            @Schema(description = "How many tasks the array has; 1 for a job") long tasks,
            @Schema(description = "How many of its tasks this list is about: active ones, ended ones, or failed ones "
                    + "in the last 24 hours") long listed,
            @Schema(description = "An array's tasks in each state (states with none left out); a job's one state")
            List<ArraySummary.StateCount> states) {
    }

    @Schema(name = "MyFairShare")
    public record FairShare(String account, @Schema(description = "In [0,1]; null when not yet known") Double factor) {
    }
}
