package io.gantry.engine;

/**
 * What is left of usage (fair share's, the budgets' TRES-minutes and {@code GrpWall}) from one accrual to
 * the next, as Slurm's priority/multifactor decays it: halved every {@code halfLifeSeconds}
 * (PriorityDecayHalfLife; 0: never), and nothing left when a new PriorityUsageResetPeriod started in
 * between ({@code periodStarted}). A QOS with Slurm's {@code NoDecay} flag is not multiplied at all: it
 * keeps its own usage through both (its associations' usage still decays), so its budgets, once used,
 * stay used until raised or reset with {@code RawUsage=0}.
 */
public record UsageDecay(long elapsedSeconds, long halfLifeSeconds, boolean periodStarted) {

    public UsageDecay {
        if (elapsedSeconds < 0 || halfLifeSeconds < 0) {
            throw new IllegalArgumentException("elapsed time and half-life must not be negative: " + elapsedSeconds
                    + ", " + halfLifeSeconds);
        }
    }

    /** The factor usage is multiplied by: 1 when nothing decays, 0 when a period started. */
    public double factor() {
        return periodStarted ? 0 : FairTree.decay(1.0, elapsedSeconds, halfLifeSeconds);
    }
}
