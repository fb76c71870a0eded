package io.gantry.scheduling;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionPhase;
import org.springframework.transaction.event.TransactionalEventListener;

import io.gantry.engine.Waiting;
import io.gantry.jobs.ActiveJob;

/**
 * The pending jobs the leader's last full pass planned, highest priority first, each with the
 * engine's decision (reason, and the nodes held for its reservation if it has one): what other
 * features (the idle-cause report) read of the plan without planning again. Jobs a quick cycle
 * started since are left out. Empty on a follower, and until the first full pass; up to
 * {@code gantry.scheduler.full-pass-interval} old.
 */
@Component
public class WaitingJobs {

    /** One pending job as the last full pass left it. */
    public record Pending(ActiveJob job, Waiting waiting) {
    }

    private final PriorityBoard board;
    /** Rows started since {@link #startedSince} was the board: a new board no longer lists them. */
    private final Set<Long> started = ConcurrentHashMap.newKeySet();
    private volatile PriorityBoard.Board startedSince;

    WaitingJobs(PriorityBoard board) {
        this.board = board;
    }

    public List<Pending> lastFullPass() {
        PriorityBoard.Board current = board.current();
        boolean fresh = current != startedSince;
        return current.entries().stream().filter(e -> fresh || !started.contains(e.job().row()))
                .map(e -> new Pending(e.job(), e.waiting())).toList();
    }

    /** Runs on the scheduler's thread after the start commits, before its next cycle records a board. */
    @TransactionalEventListener(phase = TransactionPhase.AFTER_COMMIT, fallbackExecution = true)
    void on(JobStarted event) {
        PriorityBoard.Board current = board.current();
        if (current != startedSince) {
            started.clear();
            startedSince = current;
        }
        event.jobs().forEach(j -> started.add(j.row()));
    }
}
