package io.gantry.engine;

import java.util.Objects;

/**
 * A TRES-minutes budget of one association or QOS (Slurm's {@code GrpTRESMins}, {@code GrpTRESRunMins}
 * and {@code MaxTRESMinsPerJob}), with what it has used. Exactly one of: a QOS ({@code qos} set, the
 * others null), an account's own association ({@code account} set, {@code user} null), or a user's
 * association ({@code account} and {@code user} set). Limits are in TRES-minutes, {@link Tres#UNLIMITED}
 * fields for none; {@code usedSeconds} is what its jobs used (decayed, times their QOS's usage factor)
 * in TRES-seconds up to {@link Budgets#accruedAt()}, an account's counting every association below it.
 * {@code grpWallSeconds} is Slurm's {@code GrpWall} in seconds ({@link #NO_WALL} for none): the wall-clock
 * time all its jobs together may run, each job's own (not times its size), against {@code usedWallSeconds},
 * counted, decayed and reset as {@code usedSeconds} is.
 */
public record Budget(String account, String user, String qos, Tres grpTresMins, Tres grpTresRunMins,
        Tres maxTresMinsPerJob, Tres usedSeconds, long grpWallSeconds, long usedWallSeconds, Billing billing) {

    /** No {@code GrpWall}. */
    public static final long NO_WALL = Long.MAX_VALUE;

    /**
     * The same budgets on Slurm's {@code billing} TRES: limits in billing-minutes ({@link Long#MAX_VALUE}: none),
     * used in billing-seconds (decayed, times the QOS's usage factor).
     */
    public record Billing(long grpMins, long runMins, long maxPerJobMins, long usedSeconds) {

        public static final Billing NONE = new Billing(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, 0);

        public Billing {
            if (grpMins < 0 || runMins < 0 || maxPerJobMins < 0 || usedSeconds < 0) {
                throw new IllegalArgumentException("billing budgets must not be negative");
            }
        }

        boolean unlimited() {
            return grpMins == Long.MAX_VALUE && runMins == Long.MAX_VALUE && maxPerJobMins == Long.MAX_VALUE;
        }
    }

    public Budget {
        if ((qos == null) == (account == null) || qos != null && user != null) {
            throw new IllegalArgumentException("a budget is a QOS's or an association's: qos=" + qos
                    + " account=" + account + " user=" + user);
        }
        grpTresMins = grpTresMins == null ? Tres.UNLIMITED : grpTresMins;
        grpTresRunMins = grpTresRunMins == null ? Tres.UNLIMITED : grpTresRunMins;
        maxTresMinsPerJob = maxTresMinsPerJob == null ? Tres.UNLIMITED : maxTresMinsPerJob;
        usedSeconds = usedSeconds == null ? Tres.ZERO : usedSeconds;
        if (grpWallSeconds < 0 || usedWallSeconds < 0) {
            throw new IllegalArgumentException("GrpWall and its usage must not be negative: " + grpWallSeconds + ", "
                    + usedWallSeconds);
        }
        billing = billing == null ? Billing.NONE : billing;
    }

    /** A budget of TRES-minutes only, without {@code GrpWall} or billing. */
    public Budget(String account, String user, String qos, Tres grpTresMins, Tres grpTresRunMins,
            Tres maxTresMinsPerJob, Tres usedSeconds) {
        this(account, user, qos, grpTresMins, grpTresRunMins, maxTresMinsPerJob, usedSeconds, NO_WALL, 0, null);
    }

    /** A budget of TRES-minutes and {@code GrpWall}, without billing. */
    public Budget(String account, String user, String qos, Tres grpTresMins, Tres grpTresRunMins,
            Tres maxTresMinsPerJob, Tres usedSeconds, long grpWallSeconds, long usedWallSeconds) {
        this(account, user, qos, grpTresMins, grpTresRunMins, maxTresMinsPerJob, usedSeconds, grpWallSeconds,
                usedWallSeconds, null);
    }

    public Budget withBilling(Billing v) {
        return new Budget(account, user, qos, grpTresMins, grpTresRunMins, maxTresMinsPerJob, usedSeconds,
                grpWallSeconds, usedWallSeconds, v);
    }

    public static Budget ofAccount(String account, Tres grpTresMins, Tres usedSeconds) {
        return new Budget(Objects.requireNonNull(account), null, null, grpTresMins, null, null, usedSeconds);
    }

    public static Budget ofUser(String account, String user, Tres grpTresMins, Tres usedSeconds) {
        return new Budget(Objects.requireNonNull(account), Objects.requireNonNull(user), null, grpTresMins, null,
                null, usedSeconds);
    }

    public static Budget ofQos(String qos, Tres grpTresMins, Tres usedSeconds) {
        return new Budget(null, null, Objects.requireNonNull(qos), grpTresMins, null, null, usedSeconds);
    }

    public Budget withRunMins(Tres v) {
        return new Budget(account, user, qos, grpTresMins, v, maxTresMinsPerJob, usedSeconds, grpWallSeconds,
                usedWallSeconds, billing);
    }

    public Budget withMaxPerJob(Tres v) {
        return new Budget(account, user, qos, grpTresMins, grpTresRunMins, v, usedSeconds, grpWallSeconds,
                usedWallSeconds, billing);
    }

    /** The same with {@code GrpWall} ({@code limitSeconds}, {@link #NO_WALL} for none) and its usage. */
    public Budget withGrpWall(long limitSeconds, long usedWall) {
        return new Budget(account, user, qos, grpTresMins, grpTresRunMins, maxTresMinsPerJob, usedSeconds,
                limitSeconds, usedWall, billing);
    }

    /** True when it limits nothing. */
    boolean unlimited() {
        return grpTresMins.equals(Tres.UNLIMITED) && grpTresRunMins.equals(Tres.UNLIMITED)
                && maxTresMinsPerJob.equals(Tres.UNLIMITED) && grpWallSeconds == NO_WALL && billing.unlimited();
    }
}
