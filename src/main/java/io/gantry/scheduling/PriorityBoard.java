package io.gantry.scheduling;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.springframework.stereotype.Component;

import io.gantry.engine.Plan;
import io.gantry.engine.PriorityWeights;
import io.gantry.engine.Waiting;
import io.gantry.jobs.ActiveJob;

/**
 * Every pending job's priority and its factors as the last scheduling cycle computed them: what
 * {@code GET /priority} (like sprio) shows. Kept by the leader, which plans.
 */
@Component
class PriorityBoard {

    /** One pending job's priority, factor by factor. */
    record Entry(ActiveJob job, Waiting waiting) {
    }

    record Board(Instant at, PriorityWeights weights, List<Entry> entries) {
    }

    private volatile Board board = new Board(null, null, List.of());

    void record(Instant at, PriorityWeights weights, Plan plan, java.util.Map<io.gantry.engine.JobId, ActiveJob> jobs) {
        List<Entry> entries = new ArrayList<>();
        for (Waiting w : plan.waiting()) {
            ActiveJob job = jobs.get(w.job());
            if (job != null && w.priority() != null) {
                entries.add(new Entry(job, w));
            }
        }
        entries.sort(Comparator.comparingLong((Entry e) -> -e.waiting().priority().value())
                .thenComparingLong(e -> e.job().jobId()).thenComparingInt(e -> e.job().arrayTaskId()));
        board = new Board(at, weights, List.copyOf(entries));
    }

    Board current() {
        return board;
    }
}
