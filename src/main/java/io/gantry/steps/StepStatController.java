package io.gantry.steps;

import java.util.concurrent.CompletableFuture;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.security.CurrentUser;
import io.gantry.steps.StepStats.StepStat;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;

/** A running step's live usage ({@code sstat}), read from the agents of its nodes. */
@Tag(name = "steps")
@RestController
@RequestMapping("/api/v1/jobs/{id}/steps")
class StepStatController {

    private final StepStats stats;

    private final io.gantry.gpus.GpuSamples gpuSamples;

    StepStatController(StepStats stats, io.gantry.gpus.GpuSamples gpuSamples) {
        this.stats = stats;
        this.gpuSamples = gpuSamples;
    }

    @Operation(operationId = "readJobStepStat", summary = "A running step's live usage, like sstat: MaxRSS, AveRSS, "
            + "MaxVMSize, MinCPU, AveCPU, pages and bytes read and written over its tasks, read now from the agents "
            + "of its nodes (the job's owner, OPERATORs and ADMINs)",
            description = "409 when the job does not run (sstat: \"No steps running for job J\"), 404 when the step "
                    + "does not run; a node whose agent does not answer within 5 s is named in unansweredNodes.")
    @GetMapping("/{step}/stat")
    CompletableFuture<StepStat> readJobStepStat(@PathVariable String id,
            @Parameter(description = "\"batch\", or the srun step's number") @PathVariable String step,
            CurrentUser caller) {
        return stats.stat(id, step, caller).thenApply(stat -> stat.withGpuUsage(gpuSamples.usage(id)));
    }
}
