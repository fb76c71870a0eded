package io.gantry.engine;

/**
 * An association's limits, as Slurm names them (sacctmgr's {@code GrpJobs}, {@code GrpTRES},
 * {@code MaxJobs}, {@code MaxTRESPerJob}, {@code MaxTRESPerNode}, {@code MaxWallDurationPerJob}).
 * Counts of 0 and {@link Tres#UNLIMITED} fields mean no limit.
 *
 * <p>The {@code Grp} limits cap what the running jobs of the association and of every association
 * below it hold together, and hold at every level of the account tree. The {@code Max} limits are
 * per user association (per job): an association that does not set one takes its nearest
 * ancestor's, as Slurm propagates them down the tree.
 *
 * @param grpJobs running jobs of the association and below, at most
 * @param grpTres TRES the running jobs of the association and below hold together, at most
 * @param maxJobs running jobs of one user association, at most
 * @param maxTresPerJob TRES of one job, at most
 * @param maxTresPerNode TRES of one job on one node, at most ({@code nodes} is not used)
 * @param maxWallSeconds time limit of one job, at most
 */
public record AssocLimits(int grpJobs, Tres grpTres, int maxJobs, Tres maxTresPerJob, Tres maxTresPerNode,
        long maxWallSeconds) {

    public static final AssocLimits NONE = new AssocLimits(0, Tres.UNLIMITED, 0, Tres.UNLIMITED, Tres.UNLIMITED, 0);

    public AssocLimits {
        grpTres = grpTres == null ? Tres.UNLIMITED : grpTres;
        maxTresPerJob = maxTresPerJob == null ? Tres.UNLIMITED : maxTresPerJob;
        maxTresPerNode = maxTresPerNode == null ? Tres.UNLIMITED : maxTresPerNode;
        if (grpJobs < 0 || maxJobs < 0 || maxWallSeconds < 0) {
            throw new IllegalArgumentException("limits must not be negative");
        }
    }

    /** Only {@code MaxJobs} and {@code GrpTRES}, the limits associations had before the tree. */
    public static AssocLimits of(int maxJobs, Tres grpTres) {
        return new AssocLimits(0, grpTres, maxJobs, Tres.UNLIMITED, Tres.UNLIMITED, 0);
    }
}
