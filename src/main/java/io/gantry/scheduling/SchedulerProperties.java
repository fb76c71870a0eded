package io.gantry.scheduling;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code gantry.scheduler.*}: {@code interval} is the longest time between quick cycles (a
 * submission, an ended job or a node change wakes the worker sooner; a quick cycle with nothing
 * changed costs nothing); {@code full-pass-interval} the longest time between full passes (every
 * eligible job planned, with backfill), as Slurm's backfill interval; {@code quick-depth} how many of
 * the highest-priority eligible jobs a quick cycle plans besides the new and the reserved ones;
 * {@code priority-write-interval} how often priorities that changed only by age are written back;
 * {@code estimate-max-jobs} and {@code estimate-time-budget} bound the pass after each full pass that
 * gives every pending job an expected start (0: no bound; the next pass goes on where a cut-short
 * one stopped, and jobs an earlier pass reached keep a time meanwhile);
 * {@code policy} is one of the engine's named policies (default, easy, fifo); {@code enabled=false}
 * stops this process scheduling at all; {@code kill-invalid-depend} (Slurm's
 * {@code DependencyParameters=kill_invalid_depend}) cancels a job whose dependency can never be satisfied
 * unless it asked otherwise with {@code --kill-on-invalid-dep=no} (by default it pends with reason
 * DependencyNeverSatisfied). {@code priority-weight-tres} is Slurm's {@code PriorityWeightTRES}
 * ({@code CPU=1000,Mem=2000,GRES/gpu=3000}): each TRES's share of the job's partition, times its weight,
 * added to the priority.
 */
@ConfigurationProperties("gantry.scheduler")
public record SchedulerProperties(
        @DefaultValue("1s") Duration interval,
        @DefaultValue("default") String policy,
        @DefaultValue("true") boolean enabled,
        @DefaultValue("4242") long advisoryLockKey,
        @DefaultValue("5s") Duration fullPassInterval,
        @DefaultValue("500") int quickDepth,
        @DefaultValue("60s") Duration priorityWriteInterval,
        @DefaultValue("0") int estimateMaxJobs,
        @DefaultValue("2s") Duration estimateTimeBudget,
        @DefaultValue("false") boolean killInvalidDepend,
        String priorityWeightTres) {

    public SchedulerProperties {
        try {
            io.gantry.engine.TresPriorityWeights.parse(priorityWeightTres);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("gantry.scheduler.priority-weight-tres: " + e.getMessage()
                    + "; write it as Slurm's PriorityWeightTRES, e.g. CPU=1000,GRES/gpu=3000", e);
        }
        if (estimateMaxJobs < 0 || estimateTimeBudget.isNegative()) {
            throw new IllegalArgumentException("gantry.scheduler.estimate-max-jobs and estimate-time-budget must not"
                    + " be negative");
        }
    }
}
