package io.gantry.engine;

import java.util.Objects;

/**
 * A quality of service: a priority and limits. Zero counts and {@link Tres#UNLIMITED} mean no
 * limit; {@code maxWallSeconds <= 0} means no wall limit. {@code preempts} names the QOS whose
 * running jobs a pending job of this QOS may stop to start now. {@code preemptMode} is how a job of this
 * QOS is stopped when preempted (Slurm takes the victim's QOS's); null for the cluster's default, which is
 * the preemptor's QOS's mode, else REQUEUE (see {@link #modeFor}). When a job of
 * this QOS is preempted it keeps running {@code graceSeconds} after it is told to stop (Slurm's
 * GraceTime: its preemptor waits for it), and none that has run less than {@code preemptExemptSeconds}
 * is chosen (Slurm's PreemptExemptTime). {@code maxJobsPerAccount} and {@code maxTresPerAccount} bound
 * what the running jobs of one account under this QOS hold; {@code minTresPerJob} ({@link Tres#ZERO} for
 * none) is the least a job of this QOS must ask. {@code overPartQos} is Slurm's OverPartQOS flag: where this
 * QOS and the partition QOS of a job's partition set the same limit, this QOS's wins (without it the partition
 * QOS's does; see {@link #withoutLimitsOf}).
 */
public record Qos(String name, int priority, long maxWallSeconds, int maxJobsPerUser, Tres maxTresPerUser,
        Tres maxTresPerJob, Tres grpTres, java.util.Set<String> preempts, Preemption.Mode preemptMode,
        long graceSeconds, long preemptExemptSeconds, int maxJobsPerAccount, Tres maxTresPerAccount,
        Tres minTresPerJob, boolean overPartQos) {

    /** A QOS without the OverPartQOS flag. */
    public Qos(String name, int priority, long maxWallSeconds, int maxJobsPerUser, Tres maxTresPerUser,
            Tres maxTresPerJob, Tres grpTres, java.util.Set<String> preempts, Preemption.Mode preemptMode,
            long graceSeconds, long preemptExemptSeconds, int maxJobsPerAccount, Tres maxTresPerAccount,
            Tres minTresPerJob) {
        this(name, priority, maxWallSeconds, maxJobsPerUser, maxTresPerUser, maxTresPerJob, grpTres, preempts,
                preemptMode, graceSeconds, preemptExemptSeconds, maxJobsPerAccount, maxTresPerAccount, minTresPerJob,
                false);
    }

    /** A QOS without per-account limits or per-job minimums. */
    public Qos(String name, int priority, long maxWallSeconds, int maxJobsPerUser, Tres maxTresPerUser,
            Tres maxTresPerJob, Tres grpTres, java.util.Set<String> preempts, Preemption.Mode preemptMode,
            long graceSeconds, long preemptExemptSeconds) {
        this(name, priority, maxWallSeconds, maxJobsPerUser, maxTresPerUser, maxTresPerJob, grpTres, preempts,
                preemptMode, graceSeconds, preemptExemptSeconds, 0, null, null);
    }

    /** A QOS that preempts nothing. */
    public Qos(String name, int priority, long maxWallSeconds, int maxJobsPerUser, Tres maxTresPerUser,
            Tres maxTresPerJob, Tres grpTres) {
        this(name, priority, maxWallSeconds, maxJobsPerUser, maxTresPerUser, maxTresPerJob, grpTres,
                java.util.Set.of(), null);
    }

    /** A QOS whose jobs are stopped at once when preempted, however long they ran. */
    public Qos(String name, int priority, long maxWallSeconds, int maxJobsPerUser, Tres maxTresPerUser,
            Tres maxTresPerJob, Tres grpTres, java.util.Set<String> preempts, Preemption.Mode preemptMode) {
        this(name, priority, maxWallSeconds, maxJobsPerUser, maxTresPerUser, maxTresPerJob, grpTres, preempts,
                preemptMode, 0, 0);
    }

    public Qos {
        preempts = preempts == null ? java.util.Set.of() : java.util.Set.copyOf(preempts);
        Objects.requireNonNull(name, "name");
        maxTresPerUser = maxTresPerUser == null ? Tres.UNLIMITED : maxTresPerUser;
        maxTresPerJob = maxTresPerJob == null ? Tres.UNLIMITED : maxTresPerJob;
        grpTres = grpTres == null ? Tres.UNLIMITED : grpTres;
        maxTresPerAccount = maxTresPerAccount == null ? Tres.UNLIMITED : maxTresPerAccount;
        minTresPerJob = minTresPerJob == null ? Tres.ZERO : minTresPerJob;
        if (graceSeconds < 0 || preemptExemptSeconds < 0 || maxJobsPerAccount < 0) {
            throw new IllegalArgumentException("QOS " + name
                    + ": grace and exempt times and MaxJobsPerAccount must not be negative");
        }
    }

    public static Qos named(String name, int priority) {
        return new Qos(name, priority, 0, 0, Tres.UNLIMITED, Tres.UNLIMITED, Tres.UNLIMITED);
    }

    /**
     * How a running job of QOS {@code victim} (null: none known) is stopped for a job of this QOS: the
     * victim's QOS's own mode, as in Slurm, where it sets one; else this QOS's; else REQUEUE.
     */
    public Preemption.Mode modeFor(Qos victim) {
        if (victim != null && victim.preemptMode != null) {
            return victim.preemptMode;
        }
        return preemptMode == null ? Preemption.Mode.REQUEUE : preemptMode;
    }

    /** The same QOS with this grace time and exempt time, in seconds. */
    public Qos withPreemptTimes(long grace, long exempt) {
        return new Qos(name, priority, maxWallSeconds, maxJobsPerUser, maxTresPerUser, maxTresPerJob, grpTres,
                preempts, preemptMode, grace, exempt, maxJobsPerAccount, maxTresPerAccount, minTresPerJob, overPartQos);
    }

    /**
     * The same QOS with Slurm's per-account limits ({@code MaxJobsPerAccount}, 0 for none, and
     * {@code MaxTRESPerAccount}: what all running jobs of one account under this QOS may hold) and
     * {@code MinTRESPerJob} (null for none).
     */
    public Qos withAccountLimits(int maxJobs, Tres maxTres, Tres minTresPerJob) {
        return new Qos(name, priority, maxWallSeconds, maxJobsPerUser, maxTresPerUser, maxTresPerJob, grpTres,
                preempts, preemptMode, graceSeconds, preemptExemptSeconds, maxJobs, maxTres, minTresPerJob, overPartQos);
    }

    /** The same QOS with Slurm's OverPartQOS flag set or not. */
    public Qos withOverPartQos(boolean over) {
        return new Qos(name, priority, maxWallSeconds, maxJobsPerUser, maxTresPerUser, maxTresPerJob, grpTres,
                preempts, preemptMode, graceSeconds, preemptExemptSeconds, maxJobsPerAccount, maxTresPerAccount,
                minTresPerJob, over);
    }

    /**
     * This QOS without the limits {@code winner} sets (each TRES on its own): what is left of it to check
     * when both this QOS and {@code winner} hold a job, as Slurm checks a job's QOS and its partition's QOS
     * (acct_policy: a limit the first sets is not looked up in the second). Its name stays, so its usage is
     * still this QOS's.
     */
    public Qos withoutLimitsOf(Qos winner) {
        return new Qos(name, priority, winner.maxWallSeconds > 0 ? 0 : maxWallSeconds,
                winner.maxJobsPerUser > 0 ? 0 : maxJobsPerUser, unsetWhere(maxTresPerUser, winner.maxTresPerUser),
                unsetWhere(maxTresPerJob, winner.maxTresPerJob), unsetWhere(grpTres, winner.grpTres), preempts,
                preemptMode, graceSeconds, preemptExemptSeconds, winner.maxJobsPerAccount > 0 ? 0 : maxJobsPerAccount,
                unsetWhere(maxTresPerAccount, winner.maxTresPerAccount), minUnsetWhere(minTresPerJob, winner.minTresPerJob),
                overPartQos);
    }

    /**
     * What a job of QOS {@code own} in a partition of QOS {@code partition} (either null for none) is held
     * to, in the order the limits are checked: the partition QOS first unless {@code own} has OverPartQOS,
     * the other one without the limits the first sets. One QOS when both are the same.
     */
    public static java.util.List<Qos> heldTo(Qos own, Qos partition) {
        if (partition == null || partition.equals(own)) {
            return own == null ? java.util.List.of() : java.util.List.of(own);
        }
        if (own == null) {
            return java.util.List.of(partition);
        }
        Qos first = own.overPartQos ? own : partition;
        Qos second = first == own ? partition : own;
        return java.util.List.of(first, second.withoutLimitsOf(first));
    }

    private static Tres unsetWhere(Tres limit, Tres winner) {
        long u = Long.MAX_VALUE;
        return new Tres(winner.cpu() != u ? u : limit.cpu(), winner.memoryMb() != u ? u : limit.memoryMb(),
                winner.gpus() != u ? u : limit.gpus(), winner.nodes() != u ? u : limit.nodes());
    }

    private static Tres minUnsetWhere(Tres min, Tres winner) {
        return new Tres(winner.cpu() != 0 ? 0 : min.cpu(), winner.memoryMb() != 0 ? 0 : min.memoryMb(),
                winner.gpus() != 0 ? 0 : min.gpus(), winner.nodes() != 0 ? 0 : min.nodes());
    }
}
