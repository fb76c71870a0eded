package io.gantry.steps;

import java.time.Instant;
import java.util.List;

import io.gantry.jobs.JobState;
import io.swagger.v3.oas.annotations.media.Schema;

/** What the steps API answers with. */
final class StepViews {

    private StepViews() {
    }

    @Schema(name = "JobStep", description = "A step of a job: the batch script (step \"batch\") or one srun")
    record StepView(
            @Schema(description = "\"batch\", or the srun step's number (0, 1, ...)", example = "0") String stepId,
            @Schema(description = "As sacct writes it", example = "42.0") String id,
            @Schema(example = "python") String name,
            @Schema(description = "The command srun ran; null for the batch step, and for anyone but the job's "
                    + "owner, OPERATORs and ADMINs (as the job's script)") List<String> argv,
            @Schema(description = "Hostlist of its nodes", example = "gpu[001-002]") String nodelist,
            int nodes, int tasks, Integer cpusPerTask, JobState state,
            @Schema(description = "Highest exit code of its tasks (the script's for batch), once ended") Integer exitCode,
            Instant startTime, Instant endTime,
            @Schema(description = "The container image it runs in (--container-image), else its OCI bundle "
                    + "(--container) or container name; null when it runs on the node") String containerImage,
            @Schema(description = "The digest that image resolved to on its (first) node; null before, and for "
                    + "none") String containerImageDigest) {
    }

    @Schema(name = "JobStepList")
    record StepList(List<StepView> items) {
    }

    @Schema(name = "StepSignalled")
    record Signalled(String step, String signal, List<String> nodes) {
    }

    @Schema(name = "StepInputAccepted", description = "Input taken for the step's task 0: sent on to its node")
    record InputAccepted(String step, int bytes, boolean eof) {
    }
}
