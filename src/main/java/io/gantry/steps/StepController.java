package io.gantry.steps;

import java.util.List;

import java.net.URI;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

import io.gantry.noded.protocol.StepProtocol;
import io.gantry.noded.protocol.StepProtocol.StepCreated;
import io.gantry.noded.protocol.StepProtocol.StepIo;
import io.gantry.noded.protocol.StepProtocol.StepRequest;
import io.gantry.api.GantryException;
import io.gantry.api.InputText;
import io.gantry.api.ProblemType;
import io.gantry.security.CurrentUser;
import io.gantry.steps.StepViews.StepList;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Job steps: what srun asks of the controller inside a job (see {@code StepProtocol}), and the steps' record. */
@Tag(name = "steps", description = "Job steps: srun inside a job's allocation, its output and the steps' record")
@RestController
@RequestMapping("/api/v1/jobs/{id}/steps")
class StepController {

    private final StepService steps;
    /** Leaves out flags ({@code overlap}, {@code exact}) a client does not send as false. */
    private final JsonMapper requests;

    StepController(StepService steps, JsonMapper json) {
        this.steps = steps;
        this.requests = json.rebuild().disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES).build();
    }

    @Operation(operationId = "createJobStep", summary = "Start a step in the job's allocation, like srun inside a job "
            + "(with the job's own credential, GANTRY_JOB_TOKEN), or srun --jobid=N by the job's owner",
            description = "400 with Slurm's message when the allocation cannot hold the step; 409 with Retry-After "
                    + "when it can but running steps hold what it needs (srun retries).")
    @ApiResponse(responseCode = "201", description = "Started: where its tasks run")
    @ApiResponse(responseCode = "409", description = "Not now: running steps hold what it needs; retry after Retry-After",
            content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                    schema = @Schema(implementation = ProblemDetail.class)))
    @ResponseStatus(HttpStatus.CREATED)
    @PostMapping
    ResponseEntity<?> createJobStep(@PathVariable String id,
            @io.swagger.v3.oas.annotations.parameters.RequestBody(required = true, content = @Content(
                    mediaType = MediaType.APPLICATION_JSON_VALUE, schema = @Schema(implementation = StepRequest.class)))
            @RequestBody JsonNode body, CurrentUser caller) {
        StepRequest request;
        try {
            request = requests.treeToValue(body, StepRequest.class);
        } catch (JacksonException e) {
            String field = InputText.path(e);
            String message = InputText.jsonProblem(e);
            throw new GantryException(ProblemType.MALFORMED, "The request body is not a valid step request: "
                    + (field.isEmpty() ? "" : field + ": ") + message,
                    field.isEmpty() ? List.of() : List.of(new GantryException.FieldError(field, message)));
        }
        StepCreated created;
        try {
            created = steps.create(id, request, caller);
        } catch (StepLayout.Refused refused) {
            if (!refused.busy()) {
                throw new GantryException(ProblemType.VALIDATION, refused.getMessage());
            }
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, refused.getMessage());
            problem.setType(ProblemType.CONFLICT.uri());
            problem.setTitle("Step creation temporarily disabled");
            return ResponseEntity.status(HttpStatus.CONFLICT).header("Retry-After", "1")
                    .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
        }
        return ResponseEntity.created(URI.create("/api/v1/jobs/" + id + "/steps/" + created.stepId())).body(created);
    }

    @Operation(operationId = "listJobSteps", summary = "The job's steps, like sacct's step lines: the batch step "
            + "(\"batch\") and each srun step")
    @GetMapping
    StepList listJobSteps(@PathVariable String id, CurrentUser caller) {
        return new StepList(steps.list(id, caller));
    }

    @Operation(operationId = "readJobStepIo", summary = "srun's long poll (up to about 20 s) for a step's output after "
            + "sequence number `after`, and once every task ended, their exits")
    @GetMapping("/{step}/io")
    DeferredResult<StepIo> readJobStepIo(@PathVariable String id, @PathVariable int step,
            @Parameter(description = "The last sequence number read (0 at first)") @RequestParam(defaultValue = "0")
            long after, CurrentUser caller) {
        return steps.io(id, step, after, caller);
    }

    @Operation(operationId = "writeJobStepInput", summary = "Input for task 0 of a running step: what srun reads "
            + "from its standard input (base64 `data`, `eof` to close it) and, with --pty, the terminal's new size",
            description = "Only the job's owner (or its own credential) may write: an operator may signal a step, "
                    + "not type into it. 404 for no such step, 409 once it has ended.")
    @ResponseStatus(HttpStatus.ACCEPTED)
    @PostMapping("/{step}/input")
    StepViews.InputAccepted writeJobStepInput(@PathVariable String id, @PathVariable int step,
            @RequestBody StepProtocol.StepInput input, CurrentUser caller) {
        return steps.input(id, step, input, caller);
    }

    @Operation(operationId = "signalJobStep", summary = "Signal every task of a running step on every node of it")
    @ResponseStatus(HttpStatus.ACCEPTED)
    @PostMapping("/{step}/signal")
    StepViews.Signalled signalJobStep(@PathVariable String id, @PathVariable int step,
            @Parameter(description = "TERM (default), KILL, INT, HUP, QUIT, USR1, USR2, CONT, STOP, TSTP, ALRM")
            @RequestParam(required = false) String signal, CurrentUser caller) {
        return steps.signal(id, step, signal, caller);
    }
}
