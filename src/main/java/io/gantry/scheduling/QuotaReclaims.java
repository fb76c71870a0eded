package io.gantry.scheduling;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;

import io.gantry.engine.JobId;
import io.gantry.engine.Preemption;
import io.gantry.engine.Snapshot;

/**
 * The scheduler's memory of quotas between cycles (issue 16): which running jobs the last plan said
 * borrow (fed back so borrowing only shrinks between starts), and the jobs a reclaim told to stop
 * that are still in their QOS's grace time (they are stopped when it is over, and the engine counts
 * their GPUs as coming back meanwhile). Kept by the leader, which writes where running jobs borrow
 * and each reclaim's grace deadline to the store in the transaction that decides them; a new leader
 * (after a restart or a takeover) is {@link #seed seeded} from it, so that its first plan places the
 * running jobs as the old leader's last plan did and its victims stop at the same deadlines.
 */
@Component
class QuotaReclaims {

    /**
     * A reclaimed job (or, not {@code reclaim}, a job a QOS preemption chose) in its grace time, and how
     * it is stopped when the grace is over.
     */
    record Stopping(long row, JobId id, Instant deadline, Preemption.Mode mode, String detail, String forJob,
            boolean reclaim) {

        /** A reclaim's victim. */
        Stopping(long row, JobId id, Instant deadline, Preemption.Mode mode, String detail, String forJob) {
            this(row, id, deadline, mode, detail, forJob, true);
        }
    }

    private volatile Set<JobId> borrowing;
    private volatile Map<JobId, Map<String, String>> borrowedAt = Map.of();
    private final Map<JobId, Stopping> stopping = new ConcurrentHashMap<>();
    private volatile Snapshot last;

    /** Null until a plan said which jobs borrow. */
    Set<JobId> borrowing() {
        return borrowing;
    }

    /** Per borrowing job, per GPU key, the account it borrows at; empty when not known. */
    Map<JobId, Map<String, String>> borrowedAt() {
        return borrowedAt;
    }

    Set<JobId> stoppingIds() {
        return Set.copyOf(stopping.keySet());
    }

    /**
     * What the store says running jobs borrow now (per GPU key, the account), as last written; a
     * cycle writes where its plan differs.
     */
    private volatile Map<JobId, Map<String, String>> stored = Map.of();

    /** A value {@link #stored} never equals: the store does not know (rows from before it said). */
    static final Map<String, String> UNKNOWN = Map.of("?", "?");

    /**
     * A new leader's memory, read from the store: these running jobs borrow, at these accounts where
     * known; {@code stored} is what the store says of them. The old leader's reclaims still in their
     * grace time are {@link #stop added} after, from the store too.
     */
    void seed(Set<JobId> borrowingNow, Map<JobId, Map<String, String>> at, Map<JobId, Map<String, String>> inStore) {
        stopping.clear();
        borrowedAt = Map.copyOf(at);
        stored = Map.copyOf(inStore);
        borrowing = Set.copyOf(borrowingNow);
        last = null;
    }

    Map<JobId, Map<String, String>> stored() {
        return stored;
    }

    /** The store now says these (an empty map: the job does not borrow now). */
    void written(Map<JobId, Map<String, String>> changes) {
        if (changes.isEmpty()) {
            return;
        }
        Map<JobId, Map<String, String>> next = new java.util.HashMap<>(stored);
        changes.forEach((id, levels) -> {
            if (levels.isEmpty()) {
                next.remove(id);
            } else {
                next.put(id, levels);
            }
        });
        stored = Map.copyOf(next);
    }

    /** This controller is no longer the leader: it forgets what it knew. */
    void forget() {
        stopping.clear();
        borrowedAt = Map.of();
        stored = Map.of();
        borrowing = null;
        last = null;
    }

    void planned(Snapshot snapshot, Set<JobId> borrowingNow, Map<JobId, Map<String, String>> borrowedAtNow) {
        borrowing = borrowingNow;
        borrowedAt = borrowedAtNow;
        last = snapshot;
    }

    /** The last snapshot planned: its running and pending jobs are what {@code GET /quotas} counts. */
    Snapshot last() {
        return last;
    }

    void stop(Stopping s) {
        stopping.putIfAbsent(s.id(), s);
    }

    boolean anyDue(Instant now) {
        for (Stopping s : stopping.values()) {
            if (!s.deadline().isAfter(now)) {
                return true;
            }
        }
        return false;
    }

    /** The reclaimed jobs whose grace time is over, taken out of the list. */
    List<Stopping> takeDue(Instant now) {
        List<Stopping> due = new ArrayList<>();
        for (Stopping s : List.copyOf(stopping.values())) {
            if (!s.deadline().isAfter(now) && stopping.remove(s.id(), s)) {
                due.add(s);
            }
        }
        return due;
    }

    /** Forgets stopping jobs that no longer run (they ended by themselves in their grace time). */
    void retainRunning(Set<JobId> running) {
        stopping.keySet().retainAll(running);
    }
}
