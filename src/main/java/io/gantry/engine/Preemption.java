package io.gantry.engine;

import java.util.Objects;

/**
 * A running job the plan stops so that a job of a QOS allowed to preempt it can start now:
 * {@code REQUEUE} puts the victim back in the queue, {@code CANCEL} ends it PREEMPTED, {@code SUSPEND}
 * freezes it and gives what it holds to {@code by}, to resume once that is free again. A
 * {@code reclaim} stops a job that borrows another account's guarantee so that the owner ({@code by}
 * is its job) gets it back (issue 16): the caller requeues it when the job allows that, else ends it
 * PREEMPTED, after its QOS's grace time; {@code by} then starts in a later cycle. {@code cause} says why
 * {@code by} may stop the victim when a partition preemption does it ({@link Type#PARTITION_PRIO}: the
 * partitions and their tiers); null for a QOS preemption or a reclaim, whose callers know why.
 */
public record Preemption(JobId victim, JobId by, Mode mode, boolean reclaim, String cause) {

    /** A QOS preemption. */
    public Preemption(JobId victim, JobId by, Mode mode) {
        this(victim, by, mode, false, null);
    }

    /** A QOS preemption or a reclaim. */
    public Preemption(JobId victim, JobId by, Mode mode, boolean reclaim) {
        this(victim, by, mode, reclaim, null);
    }

    public enum Mode {
        REQUEUE, CANCEL, SUSPEND
    }

    /**
     * Slurm's PreemptType, cluster-wide: {@code QOS} (preempt/qos, the default) lets a job stop jobs of the
     * QOS its own QOS may preempt; {@code PARTITION_PRIO} (preempt/partition_prio) lets a job stop jobs of
     * partitions of a lower PriorityTier on the nodes their partitions share; {@code NONE} (preempt/none)
     * preempts nothing. Reclaiming guarantees (issue 16) is apart from all three.
     */
    public enum Type {
        NONE("preempt/none"), QOS("preempt/qos"), PARTITION_PRIO("preempt/partition_prio");

        private final String slurmName;

        Type(String slurmName) {
            this.slurmName = slurmName;
        }

        /** Slurm's name: preempt/none, preempt/qos, preempt/partition_prio. */
        public String slurmName() {
            return slurmName;
        }

        /** The type named as Slurm names it, or without its {@code preempt/} prefix, any case; null if none is. */
        public static Type named(String name) {
            String bare = name.strip().toLowerCase(java.util.Locale.ROOT);
            bare = bare.startsWith("preempt/") ? bare.substring("preempt/".length()) : bare;
            for (Type t : values()) {
                if (t.name().toLowerCase(java.util.Locale.ROOT).equals(bare)) {
                    return t;
                }
            }
            return null;
        }
    }

    public Preemption {
        Objects.requireNonNull(victim, "victim");
        Objects.requireNonNull(by, "by");
        Objects.requireNonNull(mode, "mode");
    }

    /** As a record prints itself, without {@code cause} when there is none (as before partition preemption). */
    @Override
    public String toString() {
        return "Preemption[victim=" + victim + ", by=" + by + ", mode=" + mode + ", reclaim=" + reclaim
                + (cause == null ? "" : ", cause=" + cause) + "]";
    }
}
