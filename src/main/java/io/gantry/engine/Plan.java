package io.gantry.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The engine's decision for one snapshot: the jobs to start now (in the order decided), and for
 * every other pending job a reason (in priority order). Preemptions are not planned yet (#3).
 */
public record Plan(long now, List<Start> starts, List<Waiting> waiting) {

    public Plan {
        starts = List.copyOf(starts);
        waiting = List.copyOf(waiting);
    }

    public Optional<Start> start(JobId job) {
        return starts.stream().filter(s -> s.job().equals(job)).findFirst();
    }

    public Optional<Waiting> waiting(JobId job) {
        return waiting.stream().filter(w -> w.job().equals(job)).findFirst();
    }

    public Map<JobId, PendingReason> reasons() {
        Map<JobId, PendingReason> m = new HashMap<>();
        for (Waiting w : waiting) {
            m.put(w.job(), w.reason());
        }
        return m;
    }
}
