package io.gantry.engine;

import java.util.List;
import java.util.OptionalLong;

/**
 * When a pending job is expected to start (epoch seconds), as {@code squeue --start} shows it, or
 * why no time can be given. The time assumes every running and earlier-placed job runs to its
 * time limit, so jobs usually start sooner; a job waiting for its begin time gets a time at or
 * after it. {@code partition} and {@code nodes} are where it was placed (Slurm's SCHEDNODES).
 */
public record StartEstimate(JobId job, OptionalLong start, String partition, List<String> nodes, Missing missing) {

    /** Why a pending job has no expected start. */
    public enum Missing {
        /** Held by a user or an administrator: it starts only once released. */
        HELD,
        /** Waiting on another job: when depends on that job. */
        DEPENDENCY,
        /** A QOS or association limit keeps it waiting until jobs of the same user or account end. */
        LIMIT,
        /** It could not run even on an idle cluster as it is now (nodes down, partition, request). */
        NEVER_FITS,
        /**
         * The estimator's budget ran out before it got to this job and not even a rough time could be
         * given (its nodes' sums never hold it).
         */
        OVER_BUDGET
    }

    public StartEstimate {
        nodes = List.copyOf(nodes);
        if (start.isPresent() == (missing != null)) {
            throw new IllegalArgumentException("job " + job + ": either a start or why there is none");
        }
    }

    /**
     * Whether the time is rough: the estimator's budget left no search for the job in this pass, so its
     * time comes from the summed free resources of the nodes it may use (minute buckets or coarser; it
     * does not see fragmentation or topology) and no nodes are named. The next passes search for it.
     */
    public boolean rough() {
        return start.isPresent() && nodes.isEmpty();
    }

    static StartEstimate at(JobId job, long start, String partition, List<String> nodes) {
        return new StartEstimate(job, OptionalLong.of(start), partition, nodes, null);
    }

    static StartEstimate none(JobId job, Missing why) {
        return new StartEstimate(job, OptionalLong.empty(), null, List.of(), why);
    }
}
