package io.gantry.scheduling;

import java.time.Clock;
import java.time.Instant;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;

import io.gantry.control.LeaderLock;

@Tag(name = "diag")
@RestController
@RequestMapping("/api/v1")
class DiagController {

    private final SchedulerStats stats;
    private final LeaderLock leader;
    private final Clock clock;

    DiagController(SchedulerStats stats, LeaderLock leader, Clock clock) {
        this.stats = stats;
        this.leader = leader;
        this.clock = clock;
    }

    @Schema(name = "Diag")
    record Diag(long cycles, double lastCycleMs, double meanCycleMs, double maxCycleMs, long jobsSubmitted,
            long jobsStarted, long jobsBackfilled, long jobsCompleted, long pending, long running, boolean leader,
            Instant serverTime) {
    }

    @Operation(operationId = "getDiag", summary = "Scheduler statistics, like sdiag")
    @GetMapping("/diag")
    Diag getDiag() {
        SchedulerStats.Figures f = stats.figures();
        return new Diag(f.cycles(), f.lastCycleMs(), f.meanCycleMs(), f.maxCycleMs(), f.jobsSubmitted(),
                f.jobsStarted(), f.jobsBackfilled(), f.jobsCompleted(), f.pending(), f.running(), leader.heldNow(),
                clock.instant());
    }
}
