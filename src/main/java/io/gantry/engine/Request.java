package io.gantry.engine;

import java.util.Objects;

/**
 * What a job asks for, as sbatch would: {@code nodes} (0 = let the engine choose the fewest),
 * {@code tasks} of {@code cpusPerTask} CPUs, {@code memoryMb} per node (0 = none asked: the partition's
 * {@link MemoryDefault}),
 * GPUs either in total ({@code gpus}) or per node ({@code gpusPerNode}), an optional GPU type,
 * a feature constraint, whole nodes ({@code exclusive}) and whether all nodes must come from
 * one block ({@code oneBlock}, like {@code --segment}/Slurm's block topology), and the nodes the
 * allocation must include ({@code nodelist}, sbatch's {@code -w}) or must avoid ({@code exclude},
 * {@code -x}), each a Slurm hostlist expression or null. {@code switches} (sbatch's
 * {@code --switches=N@wait}, 0 for none) is the most leaf switches the job wants to span; it waits
 * up to {@code switchWaitSeconds} after it became eligible for such an allocation, then takes any.
 * {@code maxNodes} above {@code nodes} (sbatch's {@code -N min-max}) lets the job start on as many
 * nodes as fit, up to it; {@code timeMinSeconds} (sbatch's {@code --time-min}, 0 for none) lets it
 * start now with a shorter time limit, down to that, where its full limit would not fit.
 * {@code segment} (sbatch's {@code --segment}, 0 for none) puts the nodes in groups of that many,
 * each group inside one block; a segment of the whole node count is {@code oneBlock}.
 * {@code topoExclusive} (sbatch's {@code --exclusive=topo}) gives the job whole nodes and the whole
 * blocks they are in: no other job runs on any node of those blocks while it runs, and a job that fits
 * in one block gets exactly one.
 *
 * <p>Shared GPUs (Slurm's {@code --gres=gpu:1g.10gb:N} and {@code --gres=shard:N}): {@code migProfile}
 * with {@code migCount} asks for that many MIG instances of that profile, {@code shards} for that many
 * shards of one GPU. Either is per node, for a one-node job, and excludes whole GPUs.
 *
 * <p>A nodelist of more nodes than {@code nodes} raises the node count to the nodelist's, as in
 * Slurm; the other nodes of a bigger job are the engine's choice. A node named in the nodelist
 * that the snapshot does not know, or cannot use now, keeps the job waiting (ReqNodeNotAvail);
 * an unknown node in {@code exclude} is ignored.
 *
 * <p>When the engine chooses the node count, it takes the fewest nodes that hold the CPUs and
 * GPUs and spreads tasks and GPUs evenly over them (the first nodes get one more when they do
 * not divide), which is how cons_tres would lay out a balanced job.
 */
public record Request(int nodes, int tasks, int cpusPerTask, long memoryMb, int gpus, int gpusPerNode,
        String gpuType, Constraint constraint, boolean exclusive, boolean oneBlock, String nodelist,
        String exclude, int switches, long switchWaitSeconds, int maxNodes, long timeMinSeconds, int segment,
        boolean topoExclusive, String migProfile, int migCount, int shards) {

    public Request {
        if (nodes < 0 || tasks < 1 || cpusPerTask < 1 || memoryMb < 0 || gpus < 0 || gpusPerNode < 0
                || switches < 0 || switchWaitSeconds < 0 || maxNodes < 0 || timeMinSeconds < 0 || segment < 0) {
            throw new IllegalArgumentException("invalid request: nodes=" + nodes + " tasks=" + tasks
                    + " cpusPerTask=" + cpusPerTask + " memoryMb=" + memoryMb + " gpus=" + gpus
                    + " gpusPerNode=" + gpusPerNode + " switches=" + switches + "@" + switchWaitSeconds);
        }
        if (gpus > 0 && gpusPerNode > 0) {
            throw new IllegalArgumentException("ask for GPUs either in total or per node, not both");
        }
        constraint = constraint == null ? Constraint.NONE : constraint;
        Objects.requireNonNull(constraint);
        migProfile = migProfile == null || migProfile.isEmpty() ? null : migProfile;
        if (migCount < 0 || shards < 0 || (migProfile == null) != (migCount == 0)) {
            throw new IllegalArgumentException("invalid request: a MIG profile needs a positive count, shards must "
                    + "not be negative");
        }
        if ((migCount > 0 || shards > 0) && (migCount > 0 && shards > 0 || gpus > 0 || gpusPerNode > 0 || nodes > 1
                || maxNodes > 1 || exclusive || topoExclusive)) {
            throw new IllegalArgumentException("MIG instances and shards are for one node, without whole GPUs, "
                    + "each other or exclusive nodes");
        }
        nodelist = nodelist == null || nodelist.isEmpty() ? null : nodelist;
        exclude = exclude == null || exclude.isEmpty() ? null : exclude;
    }

    /** A request that names no nodes. */
    public Request(int nodes, int tasks, int cpusPerTask, long memoryMb, int gpus, int gpusPerNode, String gpuType,
            Constraint constraint, boolean exclusive, boolean oneBlock) {
        this(nodes, tasks, cpusPerTask, memoryMb, gpus, gpusPerNode, gpuType, constraint, exclusive, oneBlock, null,
                null, 0, 0, 0, 0, 0, false, null, 0, 0);
    }

    /** A request without shared GPUs. */
    public Request(int nodes, int tasks, int cpusPerTask, long memoryMb, int gpus, int gpusPerNode, String gpuType,
            Constraint constraint, boolean exclusive, boolean oneBlock, String nodelist, String exclude, int switches,
            long switchWaitSeconds, int maxNodes, long timeMinSeconds, int segment, boolean topoExclusive) {
        this(nodes, tasks, cpusPerTask, memoryMb, gpus, gpusPerNode, gpuType, constraint, exclusive, oneBlock, nodelist,
                exclude, switches, switchWaitSeconds, maxNodes, timeMinSeconds, segment, topoExclusive, null, 0, 0);
    }

    /**
     * Written out, cheapest fields first: the queue pass looks every pending job's request up in its layouts
     * ({@link Layouts}), and a record's generated equals and hashCode of 21 fields go through a method handle
     * each time (a sixth of the 200,000-GPU cycle's samples).
     */
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Request r && nodes == r.nodes && tasks == r.tasks
                && cpusPerTask == r.cpusPerTask && memoryMb == r.memoryMb && gpus == r.gpus
                && gpusPerNode == r.gpusPerNode && exclusive == r.exclusive && oneBlock == r.oneBlock
                && switches == r.switches && switchWaitSeconds == r.switchWaitSeconds && maxNodes == r.maxNodes
                && timeMinSeconds == r.timeMinSeconds && segment == r.segment && topoExclusive == r.topoExclusive
                && migCount == r.migCount && shards == r.shards && Objects.equals(gpuType, r.gpuType)
                && Objects.equals(nodelist, r.nodelist) && Objects.equals(exclude, r.exclude)
                && Objects.equals(migProfile, r.migProfile) && constraint.anyOf().equals(r.constraint.anyOf());
    }

    @Override
    public int hashCode() {
        int h = nodes;
        h = 31 * h + tasks;
        h = 31 * h + cpusPerTask;
        h = 31 * h + Long.hashCode(memoryMb);
        h = 31 * h + gpus;
        h = 31 * h + gpusPerNode;
        h = 31 * h + Objects.hashCode(gpuType);
        h = 31 * h + constraint.anyOf().hashCode();
        h = 31 * h + (exclusive ? 1 : 0);
        h = 31 * h + (oneBlock ? 1 : 0);
        h = 31 * h + Objects.hashCode(nodelist);
        h = 31 * h + Objects.hashCode(exclude);
        h = 31 * h + switches;
        h = 31 * h + Long.hashCode(switchWaitSeconds);
        h = 31 * h + maxNodes;
        h = 31 * h + Long.hashCode(timeMinSeconds);
        h = 31 * h + segment;
        h = 31 * h + (topoExclusive ? 1 : 0);
        h = 31 * h + Objects.hashCode(migProfile);
        h = 31 * h + migCount;
        return 31 * h + shards;
    }

    /**
     * NVIDIA's MIG profile names, as Slurm's gres.conf and {@code nvidia-smi -L} spell them: {@code 1g.10gb},
     * {@code 3g.40gb}, {@code 1g.10gb+me}, {@code 1c.3g.40gb}. A GPU type of this form asks for MIG instances.
     */
    public static final java.util.regex.Pattern MIG_PROFILE =
            java.util.regex.Pattern.compile("(\\d+c\\.)?\\d+g\\.\\d+gb(\\+[a-z]+)?");

    /** Whether {@code gpuType} names a MIG profile rather than a GPU model. */
    public static boolean isMigProfile(String gpuType) {
        return gpuType != null && MIG_PROFILE.matcher(gpuType).matches();
    }

    /** Whether it asks for MIG instances or shards. */
    public boolean sharesGpus() {
        return migCount > 0 || shards > 0;
    }

    /** Whether it names nodes to run on or to avoid. */
    public boolean namesNodes() {
        return nodelist != null || exclude != null;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** One task of one CPU on one node. */
    public static Request oneCpu() {
        return builder().build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.nodes = nodes;
        b.tasks = tasks;
        b.cpusPerTask = cpusPerTask;
        b.memoryMb = memoryMb;
        b.gpus = gpus;
        b.gpusPerNode = gpusPerNode;
        b.gpuType = gpuType;
        b.constraint = constraint;
        b.exclusive = exclusive;
        b.oneBlock = oneBlock;
        b.nodelist = nodelist;
        b.exclude = exclude;
        b.switches = switches;
        b.switchWaitSeconds = switchWaitSeconds;
        b.maxNodes = maxNodes;
        b.timeMinSeconds = timeMinSeconds;
        b.segment = segment;
        b.topoExclusive = topoExclusive;
        b.migProfile = migProfile;
        b.migCount = migCount;
        b.shards = shards;
        return b;
    }

    public static final class Builder {
        private int nodes;
        private int tasks = 1;
        private int cpusPerTask = 1;
        private long memoryMb;
        private int gpus;
        private int gpusPerNode;
        private String gpuType;
        private Constraint constraint = Constraint.NONE;
        private boolean exclusive;
        private boolean oneBlock;
        private String nodelist;
        private String exclude;
        private int switches;
        private long switchWaitSeconds;
        private int maxNodes;
        private long timeMinSeconds;
        private int segment;
        private boolean topoExclusive;
        private String migProfile;
        private int migCount;
        private int shards;

        public Builder nodes(int v) { nodes = v; return this; }
        public Builder tasks(int v) { tasks = v; return this; }
        public Builder cpusPerTask(int v) { cpusPerTask = v; return this; }
        public Builder memoryMb(long v) { memoryMb = v; return this; }
        public Builder gpus(int v) { gpus = v; return this; }
        public Builder gpusPerNode(int v) { gpusPerNode = v; return this; }
        public Builder gpuType(String v) { gpuType = v; return this; }
        public Builder constraint(Constraint v) { constraint = v; return this; }
        public Builder constraint(String v) { constraint = Constraint.parse(v); return this; }
        public Builder exclusive(boolean v) { exclusive = v; return this; }
        public Builder oneBlock(boolean v) { oneBlock = v; return this; }
        public Builder nodelist(String v) { nodelist = v; return this; }
        public Builder exclude(String v) { exclude = v; return this; }
        public Builder switches(int v) { switches = v; return this; }
        public Builder switchWaitSeconds(long v) { switchWaitSeconds = v; return this; }
        public Builder maxNodes(int v) { maxNodes = v; return this; }
        public Builder timeMinSeconds(long v) { timeMinSeconds = v; return this; }
        public Builder segment(int v) { segment = v; return this; }
        public Builder topoExclusive(boolean v) { topoExclusive = v; return this; }
        public Builder mig(String profile, int count) { migProfile = profile; migCount = count; return this; }
        public Builder shards(int v) { shards = v; return this; }

        /**
         * GPUs as a job stores them: a type that is a MIG profile asks for that many MIG instances on
         * its one node (Slurm's {@code --gres=gpu:1g.10gb:N}); any other type, or none, for whole GPUs.
         */
        public Builder typedGpus(String type, int total, int perNode) {
            if (isMigProfile(type)) {
                int count = Math.max(total, perNode);
                return mig(count > 0 ? type : null, count).gpus(0).gpusPerNode(0).gpuType(null);
            }
            return gpus(total).gpusPerNode(perNode).gpuType(type);
        }

        public Request build() {
            return new Request(nodes, tasks, cpusPerTask, memoryMb, gpus, gpusPerNode, gpuType, constraint,
                    exclusive, oneBlock, nodelist, exclude, switches, switchWaitSeconds, maxNodes, timeMinSeconds,
                    segment, topoExclusive, migProfile, migCount, shards);
        }
    }
}
