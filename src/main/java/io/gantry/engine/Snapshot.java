package io.gantry.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * Everything the engine decides from, at one instant {@code now} (epoch seconds). Immutable.
 * The lists are copied on construction; pass the same node and partition lists from cycle to
 * cycle and the engine reuses its index of them.
 */
public record Snapshot(long now, List<Node> nodes, List<Partition> partitions, List<Switch> switches,
        List<RunningJob> running, List<PendingJob> pending, List<Qos> qos, List<Association> associations,
        Policy policy, List<AdvanceReservation> reservations, QuotaTree quotas, Budgets budgets,
        Preemption.Type preemptType) {

    public Snapshot {
        preemptType = preemptType == null ? Preemption.Type.QOS : preemptType;
        quotas = quotas == null ? QuotaTree.NONE : quotas;
        budgets = budgets == null ? Budgets.NONE : budgets;
        reservations = reservations == null ? List.of() : List.copyOf(reservations);
        nodes = List.copyOf(nodes);
        partitions = List.copyOf(partitions);
        switches = List.copyOf(switches);
        running = List.copyOf(running);
        pending = List.copyOf(pending);
        qos = List.copyOf(qos);
        associations = List.copyOf(associations);
        policy = policy == null ? Policy.defaults() : policy;
    }

    /** A snapshot under QOS preemption (preempt/qos). */
    public Snapshot(long now, List<Node> nodes, List<Partition> partitions, List<Switch> switches,
            List<RunningJob> running, List<PendingJob> pending, List<Qos> qos, List<Association> associations,
            Policy policy, List<AdvanceReservation> reservations, QuotaTree quotas, Budgets budgets) {
        this(now, nodes, partitions, switches, running, pending, qos, associations, policy, reservations, quotas,
                budgets, Preemption.Type.QOS);
    }

    /** A snapshot without TRES-minutes budgets. */
    public Snapshot(long now, List<Node> nodes, List<Partition> partitions, List<Switch> switches,
            List<RunningJob> running, List<PendingJob> pending, List<Qos> qos, List<Association> associations,
            Policy policy, List<AdvanceReservation> reservations, QuotaTree quotas) {
        this(now, nodes, partitions, switches, running, pending, qos, associations, policy, reservations, quotas,
                Budgets.NONE);
    }

    /** A snapshot without quotas. */
    public Snapshot(long now, List<Node> nodes, List<Partition> partitions, List<Switch> switches,
            List<RunningJob> running, List<PendingJob> pending, List<Qos> qos, List<Association> associations,
            Policy policy, List<AdvanceReservation> reservations) {
        this(now, nodes, partitions, switches, running, pending, qos, associations, policy, reservations,
                QuotaTree.NONE);
    }

    /** A snapshot without advance reservations. */
    public Snapshot(long now, List<Node> nodes, List<Partition> partitions, List<Switch> switches,
            List<RunningJob> running, List<PendingJob> pending, List<Qos> qos, List<Association> associations,
            Policy policy) {
        this(now, nodes, partitions, switches, running, pending, qos, associations, policy, List.of());
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.now = now;
        b.nodes = nodes;
        b.partitions = partitions;
        b.switches = switches;
        b.running = new ArrayList<>(running);
        b.pending = new ArrayList<>(pending);
        b.qos = qos;
        b.associations = associations;
        b.policy = policy;
        b.reservations = reservations;
        b.quotas = quotas;
        b.budgets = budgets;
        b.preemptType = preemptType;
        return b;
    }

    public static final class Builder {
        private long now;
        private List<Node> nodes = List.of();
        private List<Partition> partitions = List.of();
        private List<Switch> switches = List.of();
        private List<RunningJob> running = new ArrayList<>();
        private List<PendingJob> pending = new ArrayList<>();
        private List<Qos> qos = List.of();
        private List<Association> associations = List.of();
        private Policy policy = Policy.defaults();
        private List<AdvanceReservation> reservations = List.of();
        private QuotaTree quotas = QuotaTree.NONE;
        private Budgets budgets = Budgets.NONE;
        private Preemption.Type preemptType = Preemption.Type.QOS;

        public Builder now(long v) { now = v; return this; }
        public Builder nodes(List<Node> v) { nodes = v; return this; }
        public Builder partitions(List<Partition> v) { partitions = v; return this; }
        public Builder switches(List<Switch> v) { switches = v; return this; }
        public Builder running(List<RunningJob> v) { running = v; return this; }
        public Builder pending(List<PendingJob> v) { pending = v; return this; }
        public Builder qos(List<Qos> v) { qos = v; return this; }
        public Builder associations(List<Association> v) { associations = v; return this; }
        public Builder policy(Policy v) { policy = v; return this; }
        public Builder reservations(List<AdvanceReservation> v) { reservations = v; return this; }
        public Builder quotas(QuotaTree v) { quotas = v; return this; }
        public Builder budgets(Budgets v) { budgets = v; return this; }
        public Builder preemptType(Preemption.Type v) { preemptType = v; return this; }

        public Snapshot build() {
            return new Snapshot(now, nodes, partitions, switches, running, pending, qos, associations, policy,
                    reservations, quotas, budgets, preemptType);
        }
    }
}
