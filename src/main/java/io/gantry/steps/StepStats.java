package io.gantry.steps;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Service;

import io.gantry.noded.protocol.AgentProtocol.Command;
import io.gantry.noded.protocol.StepStatProtocol;
import io.gantry.noded.protocol.StepStatProtocol.StepUsage;
import io.gantry.noded.protocol.StepStatProtocol.TaskUsage;
import io.gantry.api.GantryException;
import io.gantry.api.ProblemType;
import io.gantry.engine.Hostlist;
import io.gantry.jobs.HostedJobs;
import io.gantry.jobs.HostedJobs.HostedJob;
import io.gantry.jobs.JobService;
import io.gantry.jobs.JobState;
import io.gantry.jobs.JobViews.JobView;
import io.gantry.security.CurrentUser;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * A running step's live usage ({@code sstat}): each node of the step is asked with a STEP_STAT command
 * through its agent's long poll and answers with its tasks' readings ({@link StepStatProtocol}); the
 * answers are put together as Slurm's sstat does: the highest and lowest task with their node and task
 * id, the total and the average over the tasks. A node that does not answer within {@link #ANSWER_WAIT}
 * is left out and named.
 */
@Service
public class StepStats {

    static final Duration ANSWER_WAIT = Duration.ofSeconds(5);

    private record Pending(String node, String jobId, int stepId, CompletableFuture<StepUsage> answer) {
    }

    @Schema(name = "StepUsageFigure", description = "One figure over a step's tasks: the highest and the lowest "
            + "task (its node and task id, the global rank), the sum and the average (rounded down)")
    public record Figure(long max, String maxNode, int maxTask, long min, String minNode, int minTask, long total,
            long average) {
    }

    @Schema(name = "StepNodePids", description = "The processes of the step's tasks on one node")
    public record NodePids(String node, List<Long> pids) {
    }

    @Schema(name = "JobStepStat", description = "A running step's live usage, as sstat shows it. Memory, virtual "
            + "memory and pages take each task's highest reading so far for max and min and its latest for "
            + "total and average (Slurm's MaxRSS and AveRSS); CPU time and bytes read and written what each task "
            + "used so far")
    public record StepStat(
            @Schema(description = "As sstat writes it", example = "42.0") String id,
            @Schema(description = "\"batch\", or the srun step's number", example = "0") String stepId,
            @Schema(description = "Hostlist of the nodes that answered", example = "gpu[001-002]") String nodelist,
            @Schema(description = "How many tasks the figures cover") int tasks,
            List<NodePids> pids,
            @Schema(description = "User plus system CPU time, milliseconds (MinCPU, AveCPU)") Figure cpuMillis,
            @Schema(description = "Resident memory, bytes (MaxRSS, AveRSS)") Figure rssBytes,
            @Schema(description = "Virtual memory, bytes (MaxVMSize, AveVMSize)") Figure vmSizeBytes,
            @Schema(description = "Major page faults (MaxPages, AvePages)") Figure pages,
            @Schema(description = "Bytes read (MaxDiskRead, AveDiskRead)") Figure diskReadBytes,
            @Schema(description = "Bytes written (MaxDiskWrite, AveDiskWrite)") Figure diskWriteBytes,
            @Schema(description = "Nodes of the step whose agents did not answer in time: their tasks are left out")
            List<String> unansweredNodes,
            @Schema(description = "The job's GPU use so far from its nodes' nvidia-smi readings (gres/gpuutil and "
                    + "gres/gpumem of sstat's TRESUsageIn); GPUs are held by the job, so every step of it shows "
                    + "the same; null when none arrived") io.gantry.gpus.GpuUsage gpuUsage) {

        public StepStat(String id, String stepId, String nodelist, int tasks, List<NodePids> pids, Figure cpuMillis,
                Figure rssBytes, Figure vmSizeBytes, Figure pages, Figure diskReadBytes, Figure diskWriteBytes,
                List<String> unansweredNodes) {
            this(id, stepId, nodelist, tasks, pids, cpuMillis, rssBytes, vmSizeBytes, pages, diskReadBytes,
                    diskWriteBytes, unansweredNodes, null);
        }

        /** The same figures with the job's GPU use. */
        public StepStat withGpuUsage(io.gantry.gpus.GpuUsage usage) {
            return new StepStat(id, stepId, nodelist, tasks, pids, cpuMillis, rssBytes, vmSizeBytes, pages,
                    diskReadBytes, diskWriteBytes, unansweredNodes, usage);
        }
    }

    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final HostedJobs hosted;
    private final JobService jobs;
    private final StepStore store;
    private final ApplicationEventPublisher events;

    StepStats(HostedJobs hosted, JobService jobs, StepStore store, ApplicationEventPublisher events) {
        this.hosted = hosted;
        this.jobs = jobs;
        this.store = store;
        this.events = events;
    }

    /**
     * The live usage of step {@code step} ("batch" or its number) of job {@code id}, for its owner, an
     * operator or the job itself: 409 when the job does not run, 404 when the step does not run.
     */
    CompletableFuture<StepStat> stat(String id, String step, CurrentUser caller) {
        HostedJob job = hosted.find(List.of(id)).stream().findFirst()
                .orElseThrow(() -> GantryException.notFound("Job", id));
        JobView view = readable(job, caller);
        if (job.state() != JobState.RUNNING || view.allocation() == null || view.allocation().isEmpty()) {
            throw GantryException.conflict("No steps running for job " + job.id());
        }
        int stepId;
        List<String> nodes;
        if ("batch".equalsIgnoreCase(step)) {
            stepId = StepStatProtocol.BATCH_STEP;
            nodes = List.of(view.allocation().get(0).node());
        } else {
            try {
                stepId = Integer.parseInt(step);
            } catch (NumberFormatException e) {
                throw GantryException.badRequest("step", "must be \"batch\" or a step number");
            }
            StepRecord running = store.running(job.row()).stream().filter(s -> s.stepId() == stepId).findFirst()
                    .orElseThrow(() -> new GantryException(ProblemType.NOT_FOUND, "StepId=" + job.id() + "." + step
                            + " not found running."));
            nodes = running.nodes();
        }
        Map<String, CompletableFuture<StepUsage>> answers = new LinkedHashMap<>();
        Map<String, List<Command>> commands = new LinkedHashMap<>();
        for (String node : nodes) {
            String requestId = UUID.randomUUID().toString();
            CompletableFuture<StepUsage> answer = new CompletableFuture<>();
            pending.put(requestId, new Pending(node, job.id(), stepId, answer));
            answers.put(node, answer.orTimeout(ANSWER_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                    .whenComplete((u, failure) -> pending.remove(requestId)).exceptionally(failure -> null));
            commands.put(node, List.of(Command.stepStat(job.id(), stepId, requestId)));
        }
        events.publishEvent(new StepCommands(commands));
        String stepName = stepId == StepStatProtocol.BATCH_STEP ? "batch" : Integer.toString(stepId);
        return CompletableFuture.allOf(answers.values().toArray(CompletableFuture[]::new)).thenApply(done -> {
            Map<String, StepUsage> byNode = new LinkedHashMap<>();
            List<String> unanswered = new ArrayList<>();
            answers.forEach((node, answer) -> {
                StepUsage usage = answer.join();
                if (usage == null) {
                    unanswered.add(node);
                } else {
                    byNode.put(node, usage);
                }
            });
            return aggregate(job.id() + "." + stepName, stepName, byNode, unanswered);
        });
    }

    /**
     * An agent's answer; false when no request of this node waits for it (too late, or another node's
     * request or step): it is dropped.
     */
    public boolean answer(String node, StepUsage usage) {
        if (usage == null || usage.requestId() == null) {
            return false;
        }
        Pending waiting = pending.get(usage.requestId());
        if (waiting == null || !waiting.node().equals(node) || !waiting.jobId().equals(usage.jobId())
                || waiting.stepId() != usage.stepId()) {
            return false;
        }
        pending.remove(usage.requestId());
        return waiting.answer().complete(usage);
    }

    /** The nodes' answers put together as sstat's one line for the step. */
    public static StepStat aggregate(String id, String stepId, Map<String, StepUsage> byNode, List<String> unanswered) {
        List<Reading> readings = new ArrayList<>();
        List<NodePids> pids = new ArrayList<>();
        List<String> answered = new ArrayList<>();
        byNode.forEach((node, usage) -> {
            List<TaskUsage> tasks = usage.tasks() == null ? List.of() : usage.tasks();
            if (tasks.isEmpty()) {
                return;
            }
            answered.add(node);
            pids.add(new NodePids(node, tasks.stream().map(TaskUsage::pid).toList()));
            tasks.forEach(t -> readings.add(new Reading(node, t)));
        });
        readings.sort(Comparator.comparingInt(r -> r.task().procId()));
        return new StepStat(id, stepId, answered.isEmpty() ? "" : Hostlist.of(answered).toString(), readings.size(),
                pids,
                figure(readings, TaskUsage::cpuMillis, TaskUsage::cpuMillis),
                figure(readings, TaskUsage::maxRssBytes, TaskUsage::rssBytes),
                figure(readings, TaskUsage::maxVmBytes, TaskUsage::vmBytes),
                figure(readings, TaskUsage::maxPages, TaskUsage::pages),
                figure(readings, TaskUsage::readBytes, TaskUsage::readBytes),
                figure(readings, TaskUsage::writeBytes, TaskUsage::writeBytes),
                List.copyOf(unanswered));
    }

    private record Reading(String node, TaskUsage task) {
    }

    /** Max and min by {@code peak}, ties to the lowest task; total and average of {@code now}. */
    private static Figure figure(List<Reading> readings, ToLongFunction<TaskUsage> peak, ToLongFunction<TaskUsage> now) {
        if (readings.isEmpty()) {
            return new Figure(0, null, 0, 0, null, 0, 0, 0);
        }
        Reading max = readings.get(0);
        Reading min = readings.get(0);
        long total = 0;
        for (Reading r : readings) {
            if (peak.applyAsLong(r.task()) > peak.applyAsLong(max.task())) {
                max = r;
            }
            if (peak.applyAsLong(r.task()) < peak.applyAsLong(min.task())) {
                min = r;
            }
            total += now.applyAsLong(r.task());
        }
        return new Figure(peak.applyAsLong(max.task()), max.node(), max.task().procId(), peak.applyAsLong(min.task()),
                min.node(), min.task().procId(), total, total / readings.size());
    }

    /** The job's view, when the caller may read its steps' usage: its owner, an operator, or the job itself. */
    private JobView readable(HostedJob job, CurrentUser caller) {
        String credential = CurrentUser.credentialJob().orElse(null);
        if (credential != null) {
            HostedJob own = hosted.find(List.of(credential)).stream().findFirst().orElse(null);
            if (own != null && own.row() == job.row()) {
                return hosted.views(List.of(job.row())).get(0);
            }
        }
        JobView view = jobs.get(job.id(), caller);
        if (!caller.mayActFor(view.user())) {
            throw new GantryException(ProblemType.FORBIDDEN, "Job " + job.id() + " is " + view.user()
                    + "'s: only its owner or an operator may read its steps' usage");
        }
        return view;
    }
}
