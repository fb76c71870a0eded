package io.gantry.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The engine's decision for one snapshot: the jobs to start now (in the order decided), and for
 * every other pending job a reason (in priority order), and the running jobs it stops for others.
 * {@code borrowing} holds the jobs that run (or start now) on guarantee borrowed from another
 * account (issue 16): the ones a reclaim may stop; {@code borrowedAt} says for each of them, per GPU
 * key ({@link Quota#ANY} or a type), the account whose children's idle guarantee it borrows (fed
 * back with {@link QuotaTree#borrowedAt()}).
 */
public record Plan(long now, List<Start> starts, List<Waiting> waiting, List<Preemption> preemptions,
        java.util.Set<JobId> borrowing, Map<JobId, Map<String, String>> borrowedAt) {

    public Plan {
        borrowing = borrowing == null ? java.util.Set.of() : java.util.Set.copyOf(borrowing);
        borrowedAt = borrowedAt == null ? Map.of() : Map.copyOf(borrowedAt);
        starts = List.copyOf(starts);
        waiting = List.copyOf(waiting);
        preemptions = preemptions == null ? List.of() : List.copyOf(preemptions);
    }

    public Plan(long now, List<Start> starts, List<Waiting> waiting, List<Preemption> preemptions,
            java.util.Set<JobId> borrowing) {
        this(now, starts, waiting, preemptions, borrowing, Map.of());
    }

    /** A plan in which no job borrows quota. */
    public Plan(long now, List<Start> starts, List<Waiting> waiting, List<Preemption> preemptions) {
        this(now, starts, waiting, preemptions, java.util.Set.of());
    }

    /** A plan that preempts nothing. */
    public Plan(long now, List<Start> starts, List<Waiting> waiting) {
        this(now, starts, waiting, List.of());
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
