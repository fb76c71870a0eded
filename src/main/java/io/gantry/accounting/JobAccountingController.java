package io.gantry.accounting;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.api.PageRequest;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

@Tag(name = "accounting")
@RestController
@RequestMapping("/api/v1/accounting")
class JobAccountingController {

    static final MediaType TEXT_CSV = new MediaType("text", "csv", StandardCharsets.UTF_8);

    private static final String JSON_EXAMPLE = """
            {"items": [{"jobId": "42_7", "name": "train-llm", "user": "alice", "account": "physics",
              "partition": "gpu", "qos": "normal", "state": "COMPLETED", "exitCode": 0,
              "submitTime": "2026-03-01T08:00:00Z", "startTime": "2026-03-01T08:00:05Z",
              "endTime": "2026-03-01T10:00:05Z", "elapsedSeconds": 7200, "timeLimitSeconds": 86400,
              "allocTres": "cpu=64,mem=256G,gres/gpu=8,node=1", "cpuSeconds": 460800, "gpuSeconds": 57600,
              "nodeList": "gpu001", "maxRssBytes": 126418944, "maxRss": "123456K", "totalCpuMillis": 62345,
              "totalCpu": "01:02.345"}],
             "page": 0, "size": 50, "total": 1}""";
    private static final String CSV_EXAMPLE = """
            jobId,name,user,account,partition,qos,state,exitCode,submitTime,startTime,endTime,elapsedSeconds,\
            timeLimitSeconds,allocTres,cpuSeconds,gpuSeconds,nodeList,maxRssBytes,maxRss,totalCpuMillis,totalCpu\r
            42_7,train-llm,alice,physics,gpu,normal,COMPLETED,0,2026-03-01T08:00:00Z,2026-03-01T08:00:05Z,\
            2026-03-01T10:00:05Z,7200,86400,"cpu=64,mem=256G,gres/gpu=8,node=1",460800,57600,gpu001,126418944,123456K,\
            62345,01:02.345\r
            """;

    private final JobAccountingService accounting;

    JobAccountingController(JobAccountingService accounting) {
        this.accounting = accounting;
    }

    @Operation(operationId = "listAccountingJobs", summary = "Job accounting, like sacct: jobs that were eligible "
            + "or running in [start, end), with what they held and for how long",
            description = "Sorted by job id. Running jobs accrue up to now. With `Accept: text/csv` every matching "
                    + "row comes as CSV (header line, RFC 4180 quoting), unpaged, like `sacct -P`. USERs see only "
                    + "their own jobs when gantry.jobs.private-jobs is on.")
    @ApiResponse(responseCode = "200", description = "One page of jobs, or all of them as CSV", content = {
            @Content(mediaType = "application/json", schema = @Schema(implementation = JobAccountingRecord.Page.class),
                    examples = @ExampleObject(name = "completed-array-task", value = JSON_EXAMPLE)),
            @Content(mediaType = "text/csv", schema = @Schema(type = "string"),
                    examples = @ExampleObject(name = "completed-array-task", value = CSV_EXAMPLE)) })
    @GetMapping(path = "/jobs", produces = { MediaType.APPLICATION_JSON_VALUE, "text/csv" })
    ResponseEntity<JobAccountingRecord.Page> listAccountingJobs(
            @Parameter(description = "Window start, ISO-8601 (default: end minus 24 hours; all time with jobId)",
                    example = "2026-03-01T00:00:00Z") @RequestParam(required = false) String start,
            @Parameter(description = "Window end, exclusive, ISO-8601 (default: now)", example = "2026-03-02T00:00:00Z")
            @RequestParam(required = false) String end,
            @Parameter(description = "Comma list of users", example = "alice,bob") @RequestParam(required = false) String user,
            @Parameter(description = "Comma list of accounts", example = "physics") @RequestParam(required = false) String account,
            @Parameter(description = "Comma list of job states", example = "COMPLETED,FAILED")
            @RequestParam(required = false) String state,
            @Parameter(description = "Comma list of partitions", example = "gpu") @RequestParam(required = false) String partition,
            @Parameter(description = "Comma list of job ids; 42 means the job and all its array tasks",
                    example = "42,43_7") @RequestParam(required = false) String jobId,
            @RequestParam(required = false) Integer page, @RequestParam(required = false) Integer size,
            @Parameter(description = "Also list each job's steps after it, as sacct does: ID.batch, ID.0, ID.1, ... "
                    + "(pages count jobs, not lines)") @RequestParam(defaultValue = "false") boolean includeSteps,
            @Parameter(hidden = true) @RequestHeader(name = HttpHeaders.ACCEPT, required = false) String accept,
            CurrentUser caller, HttpServletResponse response) throws IOException {
        JobAccountingFilter filter = accounting.filter(start, end, user, account, state, partition, jobId);
        if (!wantsCsv(accept)) {
            return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON)
                    .body(accounting.page(filter, PageRequest.of(page, size), caller, includeSteps));
        }
        // Written straight to the response as the rows come from the database cursor: a year's export
        // never sits in memory. The filters were checked above, so a bad one still answers 400.
        response.setContentType(TEXT_CSV.toString());
        response.setHeader(HttpHeaders.CONTENT_DISPOSITION, "inline; filename=\"sacct.csv\"");
        Writer writer = new BufferedWriter(new OutputStreamWriter(response.getOutputStream(), StandardCharsets.UTF_8),
                1 << 16);
        accounting.csv(filter, caller, writer, includeSteps);
        writer.flush();
        return null; // the response is written; Spring writes nothing more
    }

    /** CSV when the caller prefers it to JSON: {@code text/csv} (or {@code text/*}) ranks first. */
    static boolean wantsCsv(String accept) {
        if (accept == null || accept.isBlank()) {
            return false;
        }
        List<MediaType> types;
        try {
            types = MediaType.parseMediaTypes(accept);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return types.stream()
                .sorted(Comparator.comparingDouble(MediaType::getQualityValue).reversed())
                .filter(t -> t.isCompatibleWith(MediaType.APPLICATION_JSON) || t.isCompatibleWith(TEXT_CSV))
                .findFirst()
                .map(t -> !t.isCompatibleWith(MediaType.APPLICATION_JSON))
                .orElse(false);
    }
}
