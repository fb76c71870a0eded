package io.gantry.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link StartEstimator} pass: an estimate for every pending job of the snapshot it was given,
 * in the order they were placed, with how many got a time and what the pass cost.
 *
 * @param cutShort whether the budget ran out before every job was searched for (the rest kept the
 *                 time an earlier pass gave them, if it still holds, or are {@link StartEstimate.Missing#OVER_BUDGET})
 * @param carried  how many jobs kept the time and nodes of an earlier pass instead of being searched for
 * @param resumeAt where the next pass, after the highest-priority jobs, goes on searching: the
 *                 position in the queue (jobs the plan reserved for included) of the first job this
 *                 one did not search for; 0 when it searched to the end
 */
public record StartEstimates(long now, List<StartEstimate> estimates, boolean cutShort, long nanos, int carried,
        int resumeAt) {

    public StartEstimates {
        estimates = List.copyOf(estimates);
    }

    /** A pass that searched for every job it placed. */
    public StartEstimates(long now, List<StartEstimate> estimates, boolean cutShort, long nanos) {
        this(now, estimates, cutShort, nanos, 0, 0);
    }

    public Optional<StartEstimate> of(JobId job) {
        return estimates.stream().filter(e -> e.job().equals(job)).findFirst();
    }

    /** Every estimate by job. */
    public Map<JobId, StartEstimate> byJob() {
        Map<JobId, StartEstimate> m = new HashMap<>(estimates.size() * 2);
        for (StartEstimate e : estimates) {
            m.put(e.job(), e);
        }
        return m;
    }

    /** How many of the expected starts are rough ({@link StartEstimate#rough()}). */
    public int rough() {
        int n = 0;
        for (StartEstimate e : estimates) {
            if (e.rough()) {
                n++;
            }
        }
        return n;
    }

    /** How many jobs got an expected start. */
    public int estimated() {
        int n = 0;
        for (StartEstimate e : estimates) {
            if (e.start().isPresent()) {
                n++;
            }
        }
        return n;
    }
}
