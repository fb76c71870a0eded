package io.gantry.scheduling;

import java.util.List;

import org.springframework.stereotype.Component;

import io.gantry.engine.Waiting;
import io.gantry.jobs.ActiveJob;

/**
 * The pending jobs the leader's last full pass planned, highest priority first, each with the
 * engine's decision (reason, and the nodes held for its reservation if it has one): what other
 * features (the idle-cause report) read of the plan without planning again. Empty on a follower,
 * and until the first full pass; up to {@code gantry.scheduler.full-pass-interval} old.
 */
@Component
public class WaitingJobs {

    /** One pending job as the last full pass left it. */
    public record Pending(ActiveJob job, Waiting waiting) {
    }

    private final PriorityBoard board;

    WaitingJobs(PriorityBoard board) {
        this.board = board;
    }

    public List<Pending> lastFullPass() {
        return board.current().entries().stream().map(e -> new Pending(e.job(), e.waiting())).toList();
    }
}
