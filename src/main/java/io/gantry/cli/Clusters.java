package io.gantry.cli;

/**
 * {@code -M/--clusters}: a Gantry controller is one cluster, named as sacctmgr names it
 * ({@link Sacctmgr#cluster}). Workflow engines pass the option as soon as a site names its cluster
 * (Open OnDemand adds {@code -M cluster} to every call, Snakemake's plugin {@code --clusters all} to sacct
 * and scancel, Parsl {@code --clusters=X}), so the commands accept that name and {@code all}; any other name
 * is refused as Slurm refuses a cluster it cannot reach, rather than quietly answering for this one.
 */
final class Clusters {

    private Clusters() {
    }

    /**
     * The cluster {@code value} names (this one), or null when the option was not given; a
     * {@link CommandLine.UsageError} when it names only clusters this controller is not.
     */
    static String named(CliEnvironment env, String command, String value) {
        if (value == null) {
            return null;
        }
        String self = Sacctmgr.cluster(env);
        for (String name : value.split(",")) {
            if (name.strip().equalsIgnoreCase("all") || name.strip().equals(self)) {
                return self;
            }
        }
        env.err().println(command + ": error: '" + value + "' can't be reached now, or it is an invalid entry for "
                + "--cluster.  Use 'sacctmgr list clusters' to see available clusters.");
        throw new Refused();
    }

    /** The cluster named was not this one: said already, the command exits 1. */
    static final class Refused extends RuntimeException {
        Refused() {
            super(null, null, false, false);
        }
    }
}
