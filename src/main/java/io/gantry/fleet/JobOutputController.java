package io.gantry.fleet;

import java.util.concurrent.CompletableFuture;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

import io.gantry.fleet.JobOutputs.Stream;
import io.gantry.api.GantryException;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

/**
 * A job's stdout and stderr as its node's agent reads them (see {@link JobOutputs}). One operation
 * per file in the API document; {@code follow=true} is served by a method of its own (a stream), so
 * the document describes both answers on the one operation.
 */
@RestController
@RequestMapping("/api/v1/jobs/{id}")
@Tag(name = "jobs")
class JobOutputController {

    private static final String DESCRIPTION = "Read from the agent of the node that runs the job's batch script (only "
            + "the job's owner, OPERATORs and ADMINs). Without follow: text/plain, the file's bytes from `offset`, at most "
            + "4 MiB; headers Gantry-Output-Size (the file's length), Gantry-Output-Next-Offset (where to ask next) and "
            + "Gantry-Job-Running. With follow=true: text/event-stream, like tail -f: an `output` event per new piece "
            + "(JSON {offset, text}; its id is the offset after it, so Last-Event-ID resumes there), `end` (JSON {size, "
            + "state}) once the job ended and everything was sent, or `notice` (JSON {detail}) when the file cannot be "
            + "read or the token the stream was opened with no longer holds (revoked or expired, its user disabled or "
            + "changed: checked before every read, about once a second); then the stream ends. 409 when the job has not started, 404 when it ran on a simulated node (such "
            + "jobs write nothing), when the file does not exist or the agent no longer knows the job; 503 when the agent "
            + "is not connected or does not answer. With follow=true the first two are a `notice` instead.";

    private final JobOutputs outputs;

    JobOutputController(JobOutputs outputs) {
        this.outputs = outputs;
    }

    @Operation(operationId = "readJobOutput", summary = "The job's standard output (--output), at once or followed",
            description = DESCRIPTION)
    @ApiResponse(responseCode = "200", description = "The output", headers = {
            @Header(name = JobOutputs.SIZE_HEADER, description = "The file's length in bytes", schema = @Schema(type = "integer")),
            @Header(name = JobOutputs.NEXT_OFFSET_HEADER, description = "The offset to ask from next",
                    schema = @Schema(type = "integer")),
            @Header(name = JobOutputs.RUNNING_HEADER, description = "Whether the job still runs", schema = @Schema(type = "boolean"))},
            content = {@Content(mediaType = "text/plain", schema = @Schema(type = "string")),
                    @Content(mediaType = "text/event-stream", schema = @Schema(type = "string"))})
    @GetMapping("/output")
    CompletableFuture<ResponseEntity<byte[]>> readJobOutput(@PathVariable String id,
            @Parameter(description = "Byte offset to start from (default 0)") @RequestParam(defaultValue = "0") long offset,
            @Parameter(description = "Stream new output as server-sent events until the job ends")
            @RequestParam(defaultValue = "false") boolean follow, CurrentUser caller) {
        return outputs.read(id, Stream.OUTPUT, offset, caller);
    }

    @Operation(operationId = "readJobError", summary = "The job's standard error (--error), at once or followed",
            description = DESCRIPTION + " 404 too when the job named no --error: its errors are in its output.")
    @ApiResponse(responseCode = "200", description = "The errors", headers = {
            @Header(name = JobOutputs.SIZE_HEADER, description = "The file's length in bytes", schema = @Schema(type = "integer")),
            @Header(name = JobOutputs.NEXT_OFFSET_HEADER, description = "The offset to ask from next",
                    schema = @Schema(type = "integer")),
            @Header(name = JobOutputs.RUNNING_HEADER, description = "Whether the job still runs", schema = @Schema(type = "boolean"))},
            content = {@Content(mediaType = "text/plain", schema = @Schema(type = "string")),
                    @Content(mediaType = "text/event-stream", schema = @Schema(type = "string"))})
    @GetMapping("/error")
    CompletableFuture<ResponseEntity<byte[]>> readJobError(@PathVariable String id,
            @Parameter(description = "Byte offset to start from (default 0)") @RequestParam(defaultValue = "0") long offset,
            @Parameter(description = "Stream new errors as server-sent events until the job ends")
            @RequestParam(defaultValue = "false") boolean follow, CurrentUser caller) {
        return outputs.read(id, Stream.ERROR, offset, caller);
    }

    @Operation(hidden = true)
    @GetMapping(path = "/output", params = "follow=true")
    SseEmitter followJobOutput(@PathVariable String id, @RequestParam(defaultValue = "0") long offset,
            @RequestHeader(name = "Last-Event-ID", required = false) String lastEventId, CurrentUser caller) {
        return outputs.follow(id, Stream.OUTPUT, resume(offset, lastEventId), caller);
    }

    @Operation(hidden = true)
    @GetMapping(path = "/error", params = "follow=true")
    SseEmitter followJobError(@PathVariable String id, @RequestParam(defaultValue = "0") long offset,
            @RequestHeader(name = "Last-Event-ID", required = false) String lastEventId, CurrentUser caller) {
        return outputs.follow(id, Stream.ERROR, resume(offset, lastEventId), caller);
    }

    /** Last-Event-ID (the offset after the last piece received) wins over {@code offset}. */
    private static long resume(long offset, String lastEventId) {
        if (lastEventId == null || lastEventId.isBlank()) {
            return offset;
        }
        try {
            return Long.parseLong(lastEventId.strip());
        } catch (NumberFormatException e) {
            throw GantryException.badRequest("Last-Event-ID", "must be a byte offset from an earlier output event");
        }
    }
}
