package io.gantry.jobs;

import java.net.URI;
import java.util.List;

import jakarta.validation.Valid;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

import io.gantry.api.PageRequest;
import io.gantry.api.PageResponse;
import io.gantry.jobs.JobViews.ActionResult;
import io.gantry.jobs.JobViews.JobEventView;
import io.gantry.jobs.JobViews.JobUpdate;
import io.gantry.jobs.JobViews.JobView;
import io.gantry.jobs.JobViews.SignalResult;
import io.gantry.jobs.JobViews.SubmitResponse;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;

@Tag(name = "jobs")
@RestController
@RequestMapping("/api/v1/jobs")
class JobController {

    private final JobService jobs;

    private final io.gantry.gpus.GpuSamples gpuSamples;

    JobController(JobService jobs, io.gantry.gpus.GpuSamples gpuSamples) {
        this.gpuSamples = gpuSamples;
        this.jobs = jobs;
    }

    @Operation(operationId = "submitJob", summary = "Submit a batch job, like sbatch")
    @ResponseStatus(HttpStatus.CREATED) // what ResponseEntity.created answers; tells the OpenAPI document so
    @PostMapping
    ResponseEntity<SubmitResponse> submitJob(@RequestBody JobSubmission submission,
            CurrentUser caller, jakarta.servlet.http.HttpServletRequest request) {
        SubmitResponse response = jobs.submit(submission, caller, submitHost(request));
        return ResponseEntity.created(URI.create("/api/v1/jobs/" + response.jobId())).body(response);
    }

    /**
     * Where the submission came from, for the job's {@code SLURM_SUBMIT_HOST} when sbatch did not name
     * its host: the client's address, or the first one a forwarding controller passed on. It is only
     * informative (the submitter may set the variable itself), so the forwarded address is taken as given.
     */
    private static String submitHost(jakarta.servlet.http.HttpServletRequest request) {
        String forwarded = request.getHeader("X-Forwarded-For");
        if (forwarded != null && !forwarded.isBlank()) {
            return forwarded.split(",")[0].strip();
        }
        return request.getRemoteAddr();
    }

    @Operation(operationId = "listJobs", summary = "List jobs, like squeue (pending by priority, others by id, "
            + "unless sort says otherwise); items leave out script and environment, which getJob shows",
            description = "With gantry.jobs.private-jobs a USER gets only their own jobs.")
    @GetMapping
    PageResponse<JobView> listJobs(
            @Parameter(description = "Comma list of states, e.g. PENDING,RUNNING") @RequestParam(required = false) String state,
            @RequestParam(required = false) String user, @RequestParam(required = false) String account,
            @RequestParam(required = false) String partition, @RequestParam(required = false) String name,
            @Parameter(description = "Jobs whose name contains this text, in any case (name matches the whole "
                    + "name exactly, as squeue --name)") @RequestParam(required = false) String nameContains,
            @RequestParam(required = false) Long arrayJobId,
            @Parameter(description = "Sort keys, comma-separated, each one of id, submit, start, expected, end, priority, "
                    + "user, state, active (running first, then pending by priority, then ended newest first, as the "
                    + "dashboard lists jobs), with a leading '-' for descending (e.g. -submit or state,-priority); ties break by job "
                    + "id and task id. start is a pending job's expected start (as squeue --start; ?state=PENDING&sort=start "
                    + "lists the queue by it). Jobs without a start (not ended) sort after those with one, before them "
                    + "with '-'. expected is a pending job's expected start alone: jobs without one (running, ended, "
                    + "or pending without an estimate) sort last in both directions. "
                    + "Default: pending jobs first by priority, highest first, then the others by id",
                    example = "-submit") @RequestParam(required = false) String sort,
            @RequestParam(required = false) Integer page, @RequestParam(required = false) Integer size,
            CurrentUser caller) {
        PageRequest paging = PageRequest.of(page, size);
        return jobs.list(JobFilter.of(state, user, account, partition, name, nameContains, arrayJobId), JobSort.parse(sort),
                paging, caller);
    }

    @Operation(operationId = "listArrayTasks", summary = "An array's tasks by task id, a page at a time, filtered by "
            + "state, exit code and node (what the dashboard's array page shows)",
            description = "An empty page when the id names no array (or, with gantry.jobs.private-jobs, another user's).")
    @GetMapping("/{id}/tasks")
    PageResponse<JobView> listArrayTasks(@PathVariable long id,
            @Parameter(description = "Comma list of states, e.g. FAILED,TIMEOUT") @RequestParam(required = false) String state,
            @Parameter(description = "Only tasks that ended with this exit code") @RequestParam(required = false) Integer exitCode,
            @Parameter(description = "Only tasks that were given this node") @RequestParam(required = false) String node,
            @RequestParam(required = false) Integer page, @RequestParam(required = false) Integer size, CurrentUser caller) {
        return jobs.list(JobFilter.of(state, null, null, null, null, null, id).endedWith(exitCode, node), JobSort.parse("id"),
                PageRequest.of(page, size), caller);
    }

    @Operation(operationId = "getArraySummary", summary = "An array job summed up: its tasks by state and by exit code",
            description = "However many tasks the array has, counted in the store; list the tasks themselves with "
                    + "listArrayTasks, a page at a time. A job that is no array has no tasks (tasks 0), so a client may "
                    + "ask before it knows which the id names. 404 when the id names no job (or, with "
                    + "gantry.jobs.private-jobs, another user's); 400 for a task id.")
    @GetMapping("/{id}/array")
    ArraySummary getArraySummary(@PathVariable String id, CurrentUser caller) {
        return jobs.arraySummary(id, caller);
    }

    @Operation(operationId = "getJob", summary = "One job or array task (42 or 42_7), like scontrol show job",
            description = "Script and environment only for the job's owner, OPERATORs and ADMINs. With "
                    + "gantry.jobs.private-jobs another user's job is 404 to a USER, as if it did not exist.")
    @GetMapping("/{id}")
    JobView getJob(@PathVariable String id, CurrentUser caller) {
        JobView job = jobs.get(id, caller);
        return job.withGpuUsage(job.startTime() == null ? null : gpuSamples.usage(job.id()), jobs.clusterName());
    }

    @Operation(operationId = "getJobGpuUsage", summary = "One job's GPU readings over time, per GPU (for a chart)",
            description = "What its nodes' agents read with nvidia-smi every gantry.agents.gpu-sample-interval: "
                    + "utilisation, memory and power per GPU, oldest first. Over maxPoints readings, they are merged "
                    + "into equal time buckets. Empty for a job that held no GPU nvidia-smi answers for. Visible to "
                    + "whoever may see the job.")
    @ApiResponse(responseCode = "400", description = "maxPoints out of range",
            content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                    schema = @Schema(implementation = ProblemDetail.class)))
    @GetMapping("/{id}/gpu-usage")
    io.gantry.gpus.GpuUsageSeries getJobGpuUsage(@PathVariable String id,
            @Parameter(description = "At most this many points (1 to 10000; default 2000)")
            @RequestParam(required = false) Integer maxPoints, CurrentUser caller) {
        int points = maxPoints == null ? io.gantry.gpus.GpuSamples.DEFAULT_POINTS : maxPoints;
        if (points < 1 || points > io.gantry.gpus.GpuSamples.MAX_POINTS) {
            throw io.gantry.api.GantryException.badRequest("maxPoints", "must be 1 to "
                    + io.gantry.gpus.GpuSamples.MAX_POINTS);
        }
        JobView job = jobs.get(id, caller);
        return gpuSamples.series(job.id(), points);
    }

    @Operation(operationId = "cancelJob", summary = "Cancel a job, a whole array, or one task, like scancel; "
            + "202 when running jobs must first be stopped on their nodes")
    @ApiResponse(responseCode = "200", description = "Cancelled")
    @ApiResponse(responseCode = "202", description = "Cancelled where pending; `stopping` lists the running jobs "
            + "their agents are stopping")
    @DeleteMapping("/{id}")
    ResponseEntity<ActionResult> cancelJob(@PathVariable String id, CurrentUser caller) {
        ActionResult result = retrying(() -> jobs.cancel(id, caller));
        return ResponseEntity.status(result.stopping().isEmpty() ? HttpStatus.OK : HttpStatus.ACCEPTED).body(result);
    }

    @Operation(operationId = "signalJob", summary = "Send a signal to a running job's processes, like scancel --signal",
            description = "By default the signal reaches the batch step (the batch shell and everything it started) "
                    + "and every srun step's tasks on every node, as `scancel --signal=SIG --full` in Slurm 22.05; "
                    + "`batch=true` sends it to the batch shell alone (`scancel -b`), `stepsOnly=true` to the srun "
                    + "steps' tasks alone (Slurm's `scancel --signal` without -b or -f). An array id signals every "
                    + "running task. The job's state does not change; its history gets a SIGNALLED line. Only its "
                    + "owner, OPERATORs and ADMINs may signal it.")
    @ApiResponse(responseCode = "202", description = "On its way to the nodes' agents")
    @ApiResponse(responseCode = "400", description = "Not a signal, or batch and stepsOnly together",
            content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                    schema = @Schema(implementation = ProblemDetail.class)))
    @ApiResponse(responseCode = "409", description = "Not running (the detail says its state), or on simulated nodes",
            content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                    schema = @Schema(implementation = ProblemDetail.class)))
    @ResponseStatus(HttpStatus.ACCEPTED)
    @PostMapping("/{id}/signal")
    SignalResult signalJob(@Parameter(description = "Job id, array id (every running task) or array task (42_7)",
            example = "42") @PathVariable String id,
            @Parameter(description = "A name with or without SIG, in any case (USR1, SIGTERM), or a number from 1 "
                    + "to 64", example = "USR1", required = true) @RequestParam String signal,
            @Parameter(description = "Only the batch shell, not its children nor the srun steps (scancel -b)")
            @RequestParam(defaultValue = "false") boolean batch,
            @Parameter(description = "Only the srun steps' tasks, not the batch step")
            @RequestParam(defaultValue = "false") boolean stepsOnly, CurrentUser caller) {
        return retrying(() -> jobs.signal(id, signal, batch, stepsOnly, caller));
    }

    @Operation(operationId = "holdJob", summary = "Hold a pending job (a user hold, or an admin hold by an operator)")
    @PostMapping("/{id}/hold")
    ActionResult holdJob(@PathVariable String id, CurrentUser caller) {
        return retrying(() -> jobs.hold(id, caller));
    }

    @Operation(operationId = "releaseJob", summary = "Release a held job")
    @PostMapping("/{id}/release")
    ActionResult releaseJob(@PathVariable String id, CurrentUser caller) {
        return retrying(() -> jobs.release(id, caller));
    }

    @Operation(operationId = "requeueJob", summary = "Put an ended job back in the queue",
            description = "A job, a task (42_7) or every ended task of an array; with state, only the tasks in those "
                    + "states (state=FAILED,TIMEOUT resubmits an array's failed tasks). 409 when nothing matches.")
    @PostMapping("/{id}/requeue")
    ActionResult requeueJob(@PathVariable String id,
            @Parameter(description = "Comma list of states: only the tasks in these", example = "FAILED,TIMEOUT")
            @RequestParam(required = false) String state, CurrentUser caller) {
        java.util.Set<JobState> only = JobFilter.states(state);
        return retrying(() -> jobs.requeue(id, only, caller));
    }

    @Operation(operationId = "suspendJob", summary = "Suspend a running job, like scontrol suspend (OPERATOR)",
            description = "Freezes the job's processes on its nodes (every running task of an array id). It stays "
                    + "SUSPENDED, keeping its CPUs, memory and GPUs (no other job gets them), until an operator resumes "
                    + "it; its time limit does not run meanwhile. Its history says who suspended it.")
    @ApiResponse(responseCode = "403", description = "Access/permission denied: not an OPERATOR or ADMIN",
            content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                    schema = @Schema(implementation = ProblemDetail.class)))
    @ApiResponse(responseCode = "409", description = "Job is not running (the detail says its state)",
            content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                    schema = @Schema(implementation = ProblemDetail.class)))
    @PostMapping("/{id}/suspend")
    ActionResult suspendJob(@PathVariable String id, CurrentUser caller) {
        return retrying(() -> jobs.suspend(id, caller));
    }

    @Operation(operationId = "resumeJob", summary = "Resume a job an operator suspended, like scontrol resume (OPERATOR)",
            description = "Thaws its processes; it runs on what it kept. A job suspended for its preemptor "
                    + "(PreemptMode SUSPEND) resumes on its own when what it held is free again.")
    @ApiResponse(responseCode = "403", description = "Access/permission denied: not an OPERATOR or ADMIN",
            content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                    schema = @Schema(implementation = ProblemDetail.class)))
    @ApiResponse(responseCode = "409", description = "Job is not suspended (by an operator)",
            content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE,
                    schema = @Schema(implementation = ProblemDetail.class)))
    @PostMapping("/{id}/resume")
    ActionResult resumeJob(@PathVariable String id, CurrentUser caller) {
        return retrying(() -> jobs.resume(id, caller));
    }

    @Operation(operationId = "updateJob", summary = "Change a pending job; raising a running job's time limit needs OPERATOR")
    @PatchMapping("/{id}")
    JobView updateJob(@PathVariable String id, @Valid @RequestBody JobUpdate update, CurrentUser caller) {
        return retrying(() -> jobs.update(id, update, caller));
    }

    @Operation(operationId = "listJobEvents", summary = "A job's history")
    @GetMapping("/{id}/events")
    List<JobEventView> listJobEvents(@PathVariable String id, CurrentUser caller) {
        return jobs.events(id, caller);
    }

    /**
     * Runs a change to jobs again when the scheduler (or another request) changed one of them in the
     * meantime, or when the database broke a deadlock between the two by failing this one.
     */
    private static <T> T retrying(java.util.function.Supplier<T> change) {
        for (int attempt = 1;; attempt++) {
            try {
                return change.get();
            } catch (org.springframework.dao.OptimisticLockingFailureException
                    | org.springframework.dao.PessimisticLockingFailureException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }
}
