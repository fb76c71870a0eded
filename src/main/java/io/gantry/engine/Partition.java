package io.gantry.engine;

import java.util.List;
import java.util.Objects;

/**
 * A partition: a named set of nodes with a time limit and a priority tier. Jobs of a higher tier
 * are scheduled first (Slurm's PriorityTier). {@code maxTimeSeconds <= 0} means no limit.
 * {@code memoryDefault} is what a job that asks for no memory gets on each node. {@code preemptMode} is
 * Slurm's partition PreemptMode: how its running jobs are stopped for a job of a partition of a higher
 * tier under {@link Preemption.Type#PARTITION_PRIO}; {@link PreemptMode#OFF} (the default) means never.
 * {@code qos} is Slurm's partition QOS (null for none): every job in the partition is held to its limits
 * as well as to its own QOS's (see {@link Limits}). {@code billing} is its TRESBillingWeights: what its
 * jobs' {@code billing} TRES is (budgets on billing); default {@link BillingWeights#CPUS}.
 */
public record Partition(String name, List<String> nodes, long maxTimeSeconds, int priorityTier, boolean up,
        MemoryDefault memoryDefault, PreemptMode preemptMode, String qos, BillingWeights billing) {

    /** A partition without a partition QOS, billing its jobs' CPUs (Slurm's default without TRESBillingWeights). */
    public Partition(String name, List<String> nodes, long maxTimeSeconds, int priorityTier, boolean up,
            MemoryDefault memoryDefault, PreemptMode preemptMode) {
        this(name, nodes, maxTimeSeconds, priorityTier, up, memoryDefault, preemptMode, null, null);
    }

    /** A partition with a partition QOS ({@code qos}, null for none), billing its jobs' CPUs. */
    public Partition(String name, List<String> nodes, long maxTimeSeconds, int priorityTier, boolean up,
            MemoryDefault memoryDefault, PreemptMode preemptMode, String qos) {
        this(name, nodes, maxTimeSeconds, priorityTier, up, memoryDefault, preemptMode, qos, null);
    }

    /** A partition without a partition QOS, billing with {@code billing}. */
    public Partition(String name, List<String> nodes, long maxTimeSeconds, int priorityTier, boolean up,
            MemoryDefault memoryDefault, PreemptMode preemptMode, BillingWeights billing) {
        this(name, nodes, maxTimeSeconds, priorityTier, up, memoryDefault, preemptMode, null, billing);
    }

    /** Slurm's partition PreemptMode: OFF, or how its jobs are stopped ({@link #mode()}). */
    public enum PreemptMode {
        OFF, CANCEL, REQUEUE, SUSPEND;

        /** How a job of such a partition is stopped; null for OFF (never). */
        public Preemption.Mode mode() {
            return this == OFF ? null : Preemption.Mode.valueOf(name());
        }
    }

    /** A partition whose jobs no partition preemption stops. */
    public Partition(String name, List<String> nodes, long maxTimeSeconds, int priorityTier, boolean up,
            MemoryDefault memoryDefault) {
        this(name, nodes, maxTimeSeconds, priorityTier, up, memoryDefault, PreemptMode.OFF);
    }

    /** A partition that accounts no memory for jobs that ask for none. */
    public Partition(String name, List<String> nodes, long maxTimeSeconds, int priorityTier, boolean up) {
        this(name, nodes, maxTimeSeconds, priorityTier, up, MemoryDefault.NONE);
    }

    public Partition {
        Objects.requireNonNull(name, "name");
        nodes = List.copyOf(nodes);
        memoryDefault = memoryDefault == null ? MemoryDefault.NONE : memoryDefault;
        preemptMode = preemptMode == null ? PreemptMode.OFF : preemptMode;
        qos = qos == null || qos.isEmpty() ? null : qos;
        billing = billing == null ? BillingWeights.CPUS : billing;
        if (priorityTier < 0) {
            throw new IllegalArgumentException("priority tier must not be negative");
        }
    }

    public static Partition of(String name, List<String> nodes) {
        return new Partition(name, nodes, 0, 0, true);
    }

    /** The same partition with partition QOS {@code qosName} (null for none). */
    public Partition withQos(String qosName) {
        return new Partition(name, nodes, maxTimeSeconds, priorityTier, up, memoryDefault, preemptMode, qosName,
                billing);
    }

    public boolean allows(long timeLimitSeconds) {
        return maxTimeSeconds <= 0 || timeLimitSeconds <= maxTimeSeconds;
    }
}
