package io.gantry.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Whom a pending job that cannot start otherwise may stop to start now, under the cluster's PreemptType
 * ({@link Preemption.Type}), and how; {@link QueuePass} picks the victims among them with its one picker.
 *
 * <ul>
 *   <li>{@code preempt/qos}: the running jobs of the QOS its QOS may preempt, youngest first, stopped as
 *       {@link Qos#modeFor} says, after their QOS's GraceTime.</li>
 *   <li>{@code preempt/partition_prio}: for each partition the job may start in (highest tier first), the
 *       running jobs of partitions of a lower PriorityTier whose PreemptMode is not OFF, holding a node of
 *       that partition; the lowest tier first, then the youngest; stopped as their own partition's
 *       PreemptMode says, at once (Gantry has no partition GraceTime).</li>
 *   <li>{@code preempt/none}: none.</li>
 * </ul>
 * Under every type, a job that ran less than its QOS's PreemptExemptTime is never chosen.
 */
final class PreemptRules {

    private static final Comparator<RunningJob> YOUNGEST_FIRST = Comparator.comparingLong(RunningJob::startTime)
            .reversed().thenComparing(RunningJob::id, Comparator.reverseOrder());

    private final Preemption.Type type;
    private final Cluster c;
    private final Limits limits;
    private final long now;
    private final Map<String, Partition> partitions = new HashMap<>();

    PreemptRules(Snapshot snapshot, Cluster cluster, Limits limits) {
        this.type = snapshot.preemptType();
        this.c = cluster;
        this.limits = limits;
        this.now = snapshot.now();
        snapshot.partitions().forEach(p -> partitions.put(p.name(), p));
    }

    /**
     * The groups of the job's candidate shapes to try preemption in, in turn (each group is tried with the
     * victims {@link #mayStop} allows for it); empty when a job of {@code qos} may preempt nothing.
     */
    List<List<Shape>> attempts(Qos qos, List<Shape> candidates) {
        return switch (type) {
            case NONE -> List.of();
            case QOS -> qos == null || qos.preempts().isEmpty() ? List.of() : List.of(candidates);
            case PARTITION_PRIO -> {
                List<List<Shape>> each = new ArrayList<>();
                for (Shape s : candidates) {
                    if (c.parts[s.partition()].tier() > 0) {
                        each.add(List.of(s));
                    }
                }
                yield each;
            }
        };
    }

    /**
     * Whether running job {@code r} is one a job of {@code qos} placed as one of {@code shapes} may stop
     * (its grace time or exempt time aside).
     */
    boolean mayStop(Qos qos, List<Shape> shapes, RunningJob r) {
        if (type == Preemption.Type.QOS) {
            return qos.preempts().contains(r.qos());
        }
        Partition of = partitions.get(r.partition());
        Cluster.Part in = c.parts[shapes.get(0).partition()];
        if (of == null || of.preemptMode() == Partition.PreemptMode.OFF || of.priorityTier() >= in.tier()) {
            return false;
        }
        for (NodeAllocation a : r.allocation()) {
            Integer node = c.nodeIndex.get(a.node());
            if (node != null && in.nodes().get(node)) {
                return true;
            }
        }
        return false;
    }

    /** Whether running job {@code r} ran less than its QOS's PreemptExemptTime, so no preemption chooses it. */
    boolean exempt(RunningJob r) {
        Qos of = limits.qos(r.qos());
        return of != null && of.preemptExemptSeconds() > 0 && now - r.startTime() < of.preemptExemptSeconds();
    }

    /** The order victims are taken in. */
    Comparator<RunningJob> order() {
        if (type != Preemption.Type.PARTITION_PRIO) {
            return YOUNGEST_FIRST;
        }
        return Comparator.comparingInt((RunningJob r) -> partitions.get(r.partition()).priorityTier())
                .thenComparing(YOUNGEST_FIRST);
    }

    /** How {@code victim} is stopped for a job of {@code qos}. */
    Preemption.Mode mode(Qos qos, RunningJob victim) {
        if (type == Preemption.Type.PARTITION_PRIO) {
            return partitions.get(victim.partition()).preemptMode().mode();
        }
        return qos.modeFor(limits.qos(victim.qos()));
    }

    /** How long {@code victim} runs on after it is told to stop (unless suspended). */
    long graceSeconds(RunningJob victim) {
        Qos of = limits.qos(victim.qos());
        return type == Preemption.Type.QOS && of != null ? of.graceSeconds() : 0;
    }

    /** Why a job placed as one of {@code shapes} may stop {@code victim}; null under QOS preemption. */
    String cause(List<Shape> shapes, RunningJob victim) {
        if (type != Preemption.Type.PARTITION_PRIO) {
            return null;
        }
        Cluster.Part in = c.parts[shapes.get(0).partition()];
        return "partition " + in.name() + " (PriorityTier " + in.tier() + ") may preempt partition "
                + victim.partition() + " (PriorityTier " + partitions.get(victim.partition()).priorityTier() + ")";
    }
}
