package io.gantry.jobs;

import java.util.List;
import java.util.Set;

import io.gantry.engine.Qos;

/**
 * Where a job is charged and under which QOS, with the limits checked when it is submitted:
 * the QOS's own, its MaxSubmitJobsPerUser and the association's MaxSubmitJobs (its own, else its
 * nearest ancestor's, as Slurm propagates it; null: no limit), and the GrpSubmitJobs of every level
 * of the account tree from the user's association up to the root ({@code groupSubmitLimits}).
 */
public record Charge(String account, String qos, Qos limits, Integer maxSubmitJobsPerUser,
        Integer associationMaxSubmitJobs, List<GroupSubmitLimit> groupSubmitLimits) {

    /**
     * A GrpSubmitJobs at one level: the user's association ({@code user} set: their jobs in
     * {@code account}) or an account's ({@code user} null: the jobs of every account in {@code accounts},
     * the account and those below it) may have at most {@code limit} pending and running jobs.
     */
    public record GroupSubmitLimit(String account, String user, int limit, Set<String> accounts) {

        public GroupSubmitLimit {
            accounts = accounts == null ? Set.of() : Set.copyOf(accounts);
        }
    }

    public Charge {
        groupSubmitLimits = groupSubmitLimits == null ? List.of() : List.copyOf(groupSubmitLimits);
    }

    /** A charge without GrpSubmitJobs anywhere up its tree. */
    public Charge(String account, String qos, Qos limits, Integer maxSubmitJobsPerUser,
            Integer associationMaxSubmitJobs) {
        this(account, qos, limits, maxSubmitJobsPerUser, associationMaxSubmitJobs, List.of());
    }
}
