package io.gantry.jobs;

import java.util.List;

import io.gantry.engine.Constraint;
import io.gantry.engine.JobId;
import io.gantry.engine.NodeAllocation;
import io.gantry.engine.PendingJob;
import io.gantry.engine.Request;
import io.gantry.engine.RunningJob;

/**
 * The one bridge from a job to the engine. Submission asks the engine whether a job could ever run
 * with {@link #trial}, and the scheduler plans it with {@link #pending}: both build the request with
 * {@link #request}, so what submission accepts and what the scheduler plans cannot drift apart.
 */
public final class EngineRequests {

    private EngineRequests() {
    }

    /** The engine's request for a job: every field the engine places by, named. */
    public static Request request(JobRequest job) {
        JobSwitches switches = job.switches() == null ? null : JobSwitches.stored(job.switches());
        return Request.builder().nodes(job.minNodes()).tasks(job.tasks()).cpusPerTask(job.cpusPerTask())
                .memoryMb(job.memoryMb()).typedGpus(job.gpuType(), job.gpus(), job.gpusPerNode())
                .shards(job.shards() == null ? 0 : job.shards())
                .constraint(Constraint.parse(job.constraints())).exclusive(job.exclusive())
                .nodelist(job.nodelist()).exclude(job.exclude())
                .switches(switches == null ? 0 : switches.count())
                .switchWaitSeconds(switches == null ? 0 : switches.waitSeconds())
                .maxNodes(job.maxNodes() == null ? 0 : job.maxNodes())
                .timeMinSeconds(job.timeMinSeconds() == null ? 0 : job.timeMinSeconds())
                .segment(job.segment() == null ? 0 : job.segment())
                .topoExclusive(ExclusiveMode.TOPO.equals(job.exclusiveMode())).build();
    }

    /** A stored job waiting to start, as the scheduler's engine sees it. */
    public static PendingJob pending(ActiveJob job) {
        long eligible = job.eligibleTime() == null ? job.submitTime().getEpochSecond()
                : job.eligibleTime().getEpochSecond();
        return new PendingJob(JobId.of(job.jobId(), job.arrayTaskId()), job.user(), job.account(), job.qos(),
                job.partitions(), request(job), job.timeLimitSeconds(), job.submitTime().getEpochSecond(), eligible,
                job.nice(), null, 0, job.reservation());
    }

    /** A stored job that runs (or completes), holding its allocation until its time limit. */
    public static RunningJob running(ActiveJob job) {
        List<NodeAllocation> allocation = job.allocation().stream()
                .map(a -> new NodeAllocation(a.node(), a.cpus(), a.memoryMb(), a.gpuIndices(), a.migIndices(),
                        a.shardGpu() == null ? -1 : a.shardGpu(), a.shards())).toList();
        long start = job.startTime().getEpochSecond();
        return new RunningJob(JobId.of(job.jobId(), job.arrayTaskId()), job.user(), job.account(), job.qos(),
                job.partition(), allocation, start, start + job.timeLimitSeconds(), job.topoExclusive());
    }

    /**
     * A job being submitted by {@code user} at {@code now}, for the engine to say whether it could
     * ever run: eligible now, with no nice value, hold or reservation (feasibility ignores them).
     */
    static PendingJob trial(JobRequest job, String user, long now) {
        return new PendingJob(JobId.of(0), user, job.account(), job.qos(), job.partitions(), request(job),
                job.timeLimitSeconds(), now, now, 0, null);
    }
}
