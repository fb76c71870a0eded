package io.gantry.simulation;

import java.util.List;
import java.util.Locale;

/** The schedule-quality figures of a replay. Bounded slowdown uses tau = 10 s. */
public record Figures(int jobs, double meanWait, double meanBoundedSlowdown, double utilization, long maxWait) {

    static final double TAU = 10;

    public static Figures of(List<Replay.Scheduled> schedule, long totalProcs) {
        if (schedule.isEmpty()) {
            return new Figures(0, 0, 0, 0, 0);
        }
        double wait = 0;
        double bsld = 0;
        long maxWait = 0;
        double work = 0;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (Replay.Scheduled s : schedule) {
            long w = s.waitSeconds();
            long run = s.end() - s.start();
            wait += w;
            maxWait = Math.max(maxWait, w);
            bsld += Math.max(1.0, (w + run) / Math.max((double) run, TAU));
            work += (double) s.procs() * run;
            first = Math.min(first, s.submit());
            last = Math.max(last, s.end());
        }
        int n = schedule.size();
        double span = Math.max(1, last - first);
        return new Figures(n, wait / n, bsld / n, work / (totalProcs * span), maxWait);
    }

    String line(long cycles, double meanCycleMs, double maxCycleMs, double wallSeconds) {
        return String.format(Locale.ROOT,
                "jobs=%d mean_wait_s=%.1f mean_bsld=%.2f utilization=%.4f cycles=%d mean_cycle_ms=%.3f "
                        + "max_cycle_ms=%.3f wall_s=%.2f",
                jobs, meanWait, meanBoundedSlowdown, utilization, cycles, meanCycleMs, maxCycleMs, wallSeconds);
    }
}
