package io.gantry.scheduling;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;


import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.jobs.JobService;
import io.gantry.jobs.JobSubmission;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

/** {@code sbatch --test-only}: a submission checked and its start estimated, never stored. */
@Tag(name = "jobs")
@RestController
@RequestMapping("/api/v1/jobs")
class TrialController {

    private final JobService jobs;
    private final TrialStarts starts;

    TrialController(JobService jobs, TrialStarts starts) {
        this.jobs = jobs;
        this.starts = starts;
    }

    @Schema(name = "JobTrial", description = "When and where a submission would start if submitted now")
    record TrialView(
            @Schema(description = "Always 0: the job was not submitted", example = "0") long jobId,
            @Schema(description = "When it would start (now, when it would start at once); null when no time can be "
                    + "given, as reason says") Instant startTime,
            @Schema(description = "The CPUs it would hold", example = "4") long processors,
            @Schema(description = "Hostlist of the nodes it would run on", example = "gpu[001-002]") String nodes,
            @Schema(example = "gpu") String partition,
            @Schema(description = "Why no start time can be given; null when one is") String reason,
            @Schema(description = "What a submission would be warned about (options Gantry accepts but does not act on)")
            List<String> warnings) {
    }

    @Operation(operationId = "testJob", summary = "Check a submission and estimate when and where it would start, "
            + "without submitting it, like sbatch --test-only",
            description = "The body is a submission as for submitJob and is checked the same way (a 400 names every "
                    + "mistake). Nothing is stored and no event is written. The estimate places the job by its "
                    + "priority among the pending jobs of the scheduler's last full pass, running jobs ending at "
                    + "their time limits, as squeue --start's expected starts; its hold and dependencies are not "
                    + "weighed, its begin time is. An array is estimated for its first task.")
    @ApiResponse(responseCode = "200", description = "Checked; when and where it would start")
    @ApiResponse(responseCode = "400", description = "The submission is invalid (as submitJob would answer)",
            content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                    schema = @Schema(implementation = ProblemDetail.class)))
    @PostMapping("/test")
    TrialView testJob(@RequestBody JobSubmission submission, CurrentUser caller) {
        JobService.Trial trial = jobs.trial(submission, caller);
        TrialStarts.Estimate estimate = starts.estimate(trial.job());
        List<String> warnings = new ArrayList<>(trial.warnings());
        if (estimate.rough()) {
            warnings.add(TrialStarts.Estimate.ROUGH);
        }
        return new TrialView(TrialStarts.TRIAL_JOB_ID, estimate.start(), estimate.processors(),
                TrialStarts.hostlist(estimate.nodes()), estimate.partition(), estimate.reason(),
                warnings.isEmpty() ? null : warnings);
    }
}
