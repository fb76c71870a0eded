package io.gantry.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link StartEstimator} pass: an estimate for every pending job of the snapshot it was given,
 * in the order they were placed, with how many got a time and what the pass cost.
 *
 * @param cutShort whether the budget ran out (some jobs are {@link StartEstimate.Missing#OVER_BUDGET})
 */
public record StartEstimates(long now, List<StartEstimate> estimates, boolean cutShort, long nanos) {

    public StartEstimates {
        estimates = List.copyOf(estimates);
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
