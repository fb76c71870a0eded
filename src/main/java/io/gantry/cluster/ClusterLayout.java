package io.gantry.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.gantry.engine.Hostlist;
import io.gantry.engine.HostlistException;
import io.gantry.engine.SlurmTime;
import io.gantry.engine.SlurmTimeException;

/**
 * The configured cluster after every check: each node with its partitions, leaf switch and block.
 * {@link #from} reports every problem at once, each naming its configuration key, so a site
 * fixes its file in one go.
 */
public record ClusterLayout(
        String name,
        Map<String, NodeSpec> nodes,
        Map<String, PartitionSpec> partitions,
        List<SwitchSpec> switches,
        List<BlockSpec> blocks,
        List<Integer> blockSizes,
        io.gantry.engine.Preemption.Type preemptType) {

    private static final String PREFIX = "gantry.cluster.";

    public ClusterLayout {
        blockSizes = blockSizes == null ? defaultBlockSizes(blocks) : List.copyOf(blockSizes);
        preemptType = preemptType == null ? io.gantry.engine.Preemption.Type.QOS : preemptType;
    }

    /** A layout under QOS preemption (preempt/qos). */
    public ClusterLayout(String name, Map<String, NodeSpec> nodes, Map<String, PartitionSpec> partitions,
            List<SwitchSpec> switches, List<BlockSpec> blocks, List<Integer> blockSizes) {
        this(name, nodes, partitions, switches, blocks, blockSizes, null);
    }

    /** A layout with the default block sizes. */
    public ClusterLayout(String name, Map<String, NodeSpec> nodes, Map<String, PartitionSpec> partitions,
            List<SwitchSpec> switches, List<BlockSpec> blocks) {
        this(name, nodes, partitions, switches, blocks, null);
    }

    /** The planning base block size: the smallest of the block sizes; 0 without blocks. */
    public int baseBlockSize() {
        return blockSizes.isEmpty() ? 0 : blockSizes.get(0);
    }

    /**
     * Slurm's default when BlockSizes is not set: the smallest block's node count as the base, and
     * every power-of-two aggregate of it up to as many base blocks as there are blocks.
     */
    static List<Integer> defaultBlockSizes(List<BlockSpec> blocks) {
        if (blocks.isEmpty()) {
            return List.of();
        }
        int base = blocks.stream().mapToInt(b -> b.nodes().size()).min().orElse(0);
        List<Integer> sizes = new ArrayList<>();
        for (int k = 1; k <= blocks.size() && base > 0; k *= 2) {
            sizes.add(base * k);
        }
        return List.copyOf(sizes);
    }

    /**
     * One node's shape. {@code mig} are its MIG instances in index order (profile and, from an agent's
     * {@code nvidia-smi -L}, the instance's UUID; null for a configured node), {@code shardsPerGpu} the
     * shards each whole GPU offers (0 for none).
     */
    public record NodeSpec(String name, int cpus, long memoryMb, int gpus, String gpuType,
            List<String> features, boolean simulated, List<String> partitions, String switchName, String block,
            List<MigInstance> mig, int shardsPerGpu) {

        public NodeSpec {
            mig = mig == null ? List.of() : List.copyOf(mig);
        }

        /**
         * What MIG instances {@code migIndices} and {@code shards} shards of one GPU are worth, in thousandths
         * of a whole GPU, for billing: a MIG instance its compute slices of the GPU's seven ({@code 1g.10gb}
         * 1/7, {@code 3g.40gb} 3/7), shards their part of the GPU's shards.
         */
        public int gpuMillis(List<Integer> migIndices, int shards) {
            double share = 0;
            for (int m : migIndices) {
                if (m >= 0 && m < mig.size()) {
                    share += migSlices(mig.get(m).profile()) / 7.0;
                }
            }
            if (shards > 0 && shardsPerGpu > 0) {
                share += (double) shards / shardsPerGpu;
            }
            return (int) Math.round(share * 1000);
        }

        /** The {@code N} of a profile's {@code Ng} (its compute slices); 1 when it has none. */
        static int migSlices(String profile) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)g\\.").matcher(profile);
            return m.find() ? Math.min(7, Integer.parseInt(m.group(1))) : 1;
        }

        public NodeSpec(String name, int cpus, long memoryMb, int gpus, String gpuType, List<String> features,
                boolean simulated, List<String> partitions, String switchName, String block) {
            this(name, cpus, memoryMb, gpus, gpuType, features, simulated, partitions, switchName, block, List.of(), 0);
        }
    }

    /** A MIG instance of a node: its profile ({@code 1g.10gb}) and its UUID ({@code MIG-...}; null when not known). */
    @io.swagger.v3.oas.annotations.media.Schema(name = "MigInstance")
    public record MigInstance(String profile, String uuid) {

        /** Stored as {@code profile=uuid,...} (nothing after {@code =} when the UUID is not known). */
        public static String encode(List<MigInstance> instances) {
            return instances.stream().map(m -> m.profile() + "=" + (m.uuid() == null ? "" : m.uuid()))
                    .collect(java.util.stream.Collectors.joining(","));
        }

        public static List<MigInstance> decode(String text) {
            if (text == null || text.isEmpty()) {
                return List.of();
            }
            List<MigInstance> out = new ArrayList<>();
            for (String item : text.split(",")) {
                int eq = item.indexOf('=');
                String uuid = eq < 0 ? "" : item.substring(eq + 1);
                out.add(new MigInstance(eq < 0 ? item : item.substring(0, eq), uuid.isEmpty() ? null : uuid));
            }
            return List.copyOf(out);
        }
    }

    /**
     * Times in seconds; {@code null} means UNLIMITED. Of {@code defaultMemPerCpuMb} and
     * {@code defaultMemPerNodeMb} (Slurm's DefMemPerCPU and DefMemPerNode) at most one is set; with
     * neither, a job that asks for no memory gets the whole of each node's.
     */
    public record PartitionSpec(String name, List<String> nodes, boolean isDefault, Long defaultTimeSeconds,
            Long maxTimeSeconds, int priorityTier, PartitionState state, Long defaultMemPerCpuMb,
            Long defaultMemPerNodeMb, GpuIdlePolicy gpuIdle, io.gantry.engine.Partition.PreemptMode preemptMode,
            String qos, io.gantry.engine.BillingWeights billingWeights) {

        public PartitionSpec {
            preemptMode = preemptMode == null ? io.gantry.engine.Partition.PreemptMode.OFF : preemptMode;
            qos = qos == null || qos.isBlank() ? null : qos.strip();
            billingWeights = billingWeights == null ? DEFAULT_BILLING : billingWeights;
        }

        /** A partition with partition QOS {@code qos} (null: none), billing with the default weights. */
        public PartitionSpec(String name, List<String> nodes, boolean isDefault, Long defaultTimeSeconds,
                Long maxTimeSeconds, int priorityTier, PartitionState state, Long defaultMemPerCpuMb,
                Long defaultMemPerNodeMb, GpuIdlePolicy gpuIdle, io.gantry.engine.Partition.PreemptMode preemptMode,
                String qos) {
            this(name, nodes, isDefault, defaultTimeSeconds, maxTimeSeconds, priorityTier, state, defaultMemPerCpuMb,
                    defaultMemPerNodeMb, gpuIdle, preemptMode, qos, null);
        }

        /**
         * A partition without a configured partition QOS, billing with the default weights
         * ({@link #DEFAULT_BILLING}).
         */
        public PartitionSpec(String name, List<String> nodes, boolean isDefault, Long defaultTimeSeconds,
                Long maxTimeSeconds, int priorityTier, PartitionState state, Long defaultMemPerCpuMb,
                Long defaultMemPerNodeMb, GpuIdlePolicy gpuIdle, io.gantry.engine.Partition.PreemptMode preemptMode) {
            this(name, nodes, isDefault, defaultTimeSeconds, maxTimeSeconds, priorityTier, state, defaultMemPerCpuMb,
                    defaultMemPerNodeMb, gpuIdle, preemptMode, null);
        }

        /** A partition whose jobs no partition preemption stops. */
        public PartitionSpec(String name, List<String> nodes, boolean isDefault, Long defaultTimeSeconds,
                Long maxTimeSeconds, int priorityTier, PartitionState state, Long defaultMemPerCpuMb,
                Long defaultMemPerNodeMb, GpuIdlePolicy gpuIdle) {
            this(name, nodes, isDefault, defaultTimeSeconds, maxTimeSeconds, priorityTier, state, defaultMemPerCpuMb,
                    defaultMemPerNodeMb, gpuIdle, null);
        }

        /** A partition without a GPU idle policy. */
        public PartitionSpec(String name, List<String> nodes, boolean isDefault, Long defaultTimeSeconds,
                Long maxTimeSeconds, int priorityTier, PartitionState state, Long defaultMemPerCpuMb,
                Long defaultMemPerNodeMb) {
            this(name, nodes, isDefault, defaultTimeSeconds, maxTimeSeconds, priorityTier, state, defaultMemPerCpuMb,
                    defaultMemPerNodeMb, null);
        }

        /** What the engine gives a job that asks for no memory. */
        public io.gantry.engine.MemoryDefault memoryDefault() {
            return defaultMemPerCpuMb != null ? io.gantry.engine.MemoryDefault.perCpu(defaultMemPerCpuMb)
                    : defaultMemPerNodeMb != null ? io.gantry.engine.MemoryDefault.perNode(defaultMemPerNodeMb)
                    : io.gantry.engine.MemoryDefault.WHOLE_NODE;
        }

        public String hostlist() {
            return Hostlist.of(nodes).toString();
        }
    }

    public record SwitchSpec(String name, String parent, List<String> nodes) {

        public String hostlist() {
            return Hostlist.of(nodes).toString();
        }
    }

    public record BlockSpec(String name, List<String> nodes) {

        public String hostlist() {
            return Hostlist.of(nodes).toString();
        }
    }

    /**
     * What a partition without {@code tres-billing-weights} bills: {@code gantry.fairshare}'s default weights
     * ({@code cpu-weight} 1, {@code gpu-weight} 16, {@code memory-gb-weight} 0).
     */
    public static final io.gantry.engine.BillingWeights DEFAULT_BILLING =
            new io.gantry.engine.BillingWeights(1, 0, 16, 0, false);

    public static ClusterLayout from(ClusterProperties config) {
        return from(config, DEFAULT_BILLING);
    }

    /** The layout, partitions without {@code tres-billing-weights} billing with {@code defaultBilling}. */
    public static ClusterLayout from(ClusterProperties config, io.gantry.engine.BillingWeights defaultBilling) {
        Builder b = new Builder(config);
        b.defaultBilling = defaultBilling;
        return b.build();
    }

    /**
     * This layout with {@code node} added or replaced (a node that joined through its agent), and
     * listed in each of its partitions.
     */
    public ClusterLayout withNode(NodeSpec node) {
        NodeMap newNodes = NodeMap.of(nodes).with(node);
        Map<String, PartitionSpec> newPartitions = new LinkedHashMap<>(partitions);
        for (String name : node.partitions()) {
            PartitionSpec p = partitions.get(name);
            // The members are kept in host order: find the new one's place by binary search. Sorting
            // (and a linear contains) per join cost O(n log n) name parses each, and 12,500 agents
            // joining one after another spent minutes of CPU here.
            int at = p == null ? 0 : java.util.Collections.binarySearch(p.nodes(), node.name(), Hostlist.HOST_ORDER);
            if (p != null && at < 0) {
                List<String> members = new ArrayList<>(p.nodes().size() + 1);
                members.addAll(p.nodes());
                members.add(-at - 1, node.name());
                newPartitions.put(name, new PartitionSpec(p.name(), List.copyOf(members), p.isDefault(),
                        p.defaultTimeSeconds(), p.maxTimeSeconds(), p.priorityTier(), p.state(),
                        p.defaultMemPerCpuMb(), p.defaultMemPerNodeMb(), p.gpuIdle(), p.preemptMode(), p.qos(),
                        p.billingWeights()));
            }
        }
        return new ClusterLayout(name, newNodes, Map.copyOf(newPartitions), switches, blocks, blockSizes,
                preemptType);
    }

    public PartitionSpec defaultPartition() {
        return partitions.values().stream().filter(PartitionSpec::isDefault).findFirst().orElse(null);
    }

    private static final class Builder {

        private final ClusterProperties config;
        private final List<String> problems = new ArrayList<>();
        private io.gantry.engine.Preemption.Type preemptType;
        private io.gantry.engine.BillingWeights defaultBilling = DEFAULT_BILLING;

        Builder(ClusterProperties config) {
            this.config = config;
        }

        ClusterLayout build() {
            io.gantry.engine.Preemption.Type preemptType = io.gantry.engine.Preemption.Type.named(config.preemptType());
            if (preemptType == null) {
                problems.add(PREFIX + "preempt-type: must be preempt/qos, preempt/partition_prio or preempt/none, was '"
                        + config.preemptType() + "'");
            }
            this.preemptType = preemptType;
            Map<String, ClusterProperties.NodeSet> nodeSets = nodes();
            Map<String, List<String>> partitionsOfNode = new HashMap<>();
            Map<String, PartitionSpec> partitions = partitions(nodeSets.keySet(), partitionsOfNode);
            for (String node : nodeSets.keySet()) {
                if (!partitionsOfNode.containsKey(node)) {
                    problems.add(PREFIX + "nodes: node '" + node + "' is in no partition; add it to one of "
                            + PREFIX + "partitions[*].nodes");
                }
            }
            Map<String, String> leafOfNode = new HashMap<>();
            List<SwitchSpec> switches = switches(nodeSets.keySet(), leafOfNode);
            Map<String, String> blockOfNode = new HashMap<>();
            List<BlockSpec> blocks = blocks(nodeSets.keySet(), blockOfNode);
            List<Integer> blockSizes = blockSizes(blocks);
            if (!problems.isEmpty()) {
                throw new ClusterConfigException(problems);
            }
            Map<String, NodeSpec> nodes = new LinkedHashMap<>();
            nodeSets.forEach((node, set) -> nodes.put(node, new NodeSpec(node, set.cpus(), set.memoryMb(),
                    set.gpus(), set.gpus() > 0 ? set.gpuType() : null, set.features(), set.simulated(),
                    List.copyOf(partitionsOfNode.get(node)), leafOfNode.get(node), blockOfNode.get(node),
                    migOf.get(set), set.shardsPerGpu())));
            String name = config.name() == null || config.name().isBlank() ? "gantry" : config.name();
            return new ClusterLayout(name, NodeMap.of(nodes), Map.copyOf(partitions), switches, blocks, blockSizes,
                    preemptType);
        }

        /**
         * topology.conf's BlockSizes rules: positive, ascending, each a power of two times the one before,
         * the smallest (the base block size) no more than any block has, the largest no more than all
         * blocks together; sizes without blocks mean nothing.
         */
        private List<Integer> blockSizes(List<BlockSpec> blocks) {
            List<Integer> sizes = config.blockSizes();
            String key = PREFIX + "block-sizes";
            if (sizes.isEmpty()) {
                return defaultBlockSizes(blocks);
            }
            if (blocks.isEmpty()) {
                problems.add(key + ": " + sizes + " given, but " + PREFIX + "blocks names no block");
                return List.of();
            }
            int before = 0;
            for (int i = 0; i < sizes.size(); i++) {
                Integer size = sizes.get(i);
                if (size == null || size <= 0) {
                    problems.add(key + "[" + i + "]: " + size + " is not a positive node count");
                    return List.of();
                }
                if (before > 0 && (size <= before || size % before != 0 || Integer.bitCount(size / before) != 1)) {
                    problems.add(key + "[" + i + "]: " + size + " must be a power of two (2, 4, 8, ...) times the size "
                            + "before it, " + before);
                }
                before = size;
            }
            int base = sizes.get(0);
            for (BlockSpec b : blocks) {
                if (b.nodes().size() < base) {
                    problems.add(key + "[0]: the base block size " + base + " is more than block '" + b.name()
                            + "' has (" + b.nodes().size() + " nodes); every block needs at least the base size");
                }
            }
            long all = (long) base * blocks.size();
            if (sizes.get(sizes.size() - 1) > all) {
                problems.add(key + "[" + (sizes.size() - 1) + "]: " + sizes.get(sizes.size() - 1) + " is more than "
                        + "all " + blocks.size() + " blocks give at the base size (" + all + ")");
            }
            return List.copyOf(sizes);
        }

        /** The MIG instances of each node set, as its {@code mig} ({@code profile:count,...}) lists them. */
        private final Map<ClusterProperties.NodeSet, List<MigInstance>> migOf = new java.util.IdentityHashMap<>();

        private List<MigInstance> mig(String key, String text) {
            if (text == null || text.isBlank()) {
                return List.of();
            }
            List<MigInstance> out = new ArrayList<>();
            for (String item : text.split(",")) {
                String[] parts = item.strip().split(":");
                int from = parts.length > 0 && parts[0].equals("gpu") ? 1 : 0;
                String profile = parts.length > from ? parts[from] : "";
                int count = 1;
                boolean ok = io.gantry.engine.Request.isMigProfile(profile) && parts.length - from <= 2;
                if (ok && parts.length - from == 2) {
                    try {
                        count = Integer.parseInt(parts[from + 1]);
                    } catch (NumberFormatException e) {
                        ok = false;
                    }
                }
                if (!ok || count < 1) {
                    problems.add(key + ": '" + item.strip() + "' is not a MIG profile with a count, such as "
                            + "1g.10gb:7");
                    return List.of();
                }
                for (int k = 0; k < count; k++) {
                    out.add(new MigInstance(profile, null));
                }
            }
            if (out.size() > io.gantry.engine.Node.MAX_MIG_INSTANCES) {
                problems.add(key + ": at most " + io.gantry.engine.Node.MAX_MIG_INSTANCES + " MIG instances per node, was "
                        + out.size());
                return List.of();
            }
            return List.copyOf(out);
        }

        private Map<String, ClusterProperties.NodeSet> nodes() {
            Map<String, ClusterProperties.NodeSet> nodes = new LinkedHashMap<>();
            if (config.nodes().isEmpty()) {
                problems.add(PREFIX + "nodes: the cluster has no nodes; define at least one node set");
            }
            for (int i = 0; i < config.nodes().size(); i++) {
                ClusterProperties.NodeSet set = config.nodes().get(i);
                String key = PREFIX + "nodes[" + i + "]";
                if (set.cpus() <= 0) {
                    problems.add(key + ".cpus: must be at least 1, was " + set.cpus());
                }
                if (set.memoryMb() <= 0) {
                    problems.add(key + ".memory-mb: must be at least 1, was " + set.memoryMb());
                }
                if (set.gpus() < 0) {
                    problems.add(key + ".gpus: must be 0 or more, was " + set.gpus());
                }
                if (set.shardsPerGpu() < 0 || set.shardsPerGpu() > io.gantry.engine.Node.MAX_SHARDS_PER_GPU
                        || (set.shardsPerGpu() > 0 && set.gpus() <= 0)) {
                    problems.add(key + ".shards-per-gpu: must be 0 to " + io.gantry.engine.Node.MAX_SHARDS_PER_GPU
                            + ", and needs whole GPUs (gpus) to split; was " + set.shardsPerGpu());
                }
                migOf.put(set, mig(key + ".mig", set.mig()));
                for (String host : hosts(key + ".names", set.names())) {
                    if (nodes.putIfAbsent(host, set) != null) {
                        problems.add(key + ".names: duplicate node name '" + host + "'");
                    }
                }
            }
            return nodes;
        }

        private Map<String, PartitionSpec> partitions(Set<String> known, Map<String, List<String>> partitionsOfNode) {
            Map<String, PartitionSpec> partitions = new LinkedHashMap<>();
            if (config.partitions().isEmpty()) {
                problems.add(PREFIX + "partitions: the cluster has no partitions; define at least one");
            }
            int defaults = 0;
            for (int i = 0; i < config.partitions().size(); i++) {
                ClusterProperties.PartitionConfig p = config.partitions().get(i);
                String key = PREFIX + "partitions[" + i + "]";
                if (!validName(key + ".name", p.name())) {
                    continue;
                }
                List<String> hosts = hosts(key + ".nodes", p.nodes());
                for (String host : hosts) {
                    if (!known.contains(host)) {
                        problems.add(key + ".nodes: unknown node '" + host + "' (not in " + PREFIX + "nodes)");
                    } else {
                        partitionsOfNode.computeIfAbsent(host, h -> new ArrayList<>()).add(p.name());
                    }
                }
                Long defaultTime = time(key + ".default-time", p.defaultTime());
                Long maxTime = time(key + ".max-time", p.maxTime());
                if (defaultTime != null && maxTime != null && defaultTime > maxTime) {
                    problems.add(key + ".default-time: " + p.defaultTime() + " is longer than max-time " + p.maxTime());
                }
                PartitionState state = partitionState(key + ".state", p.state());
                if (p.isDefault()) {
                    defaults++;
                }
                if (p.defaultMemPerCpu() != null && p.defaultMemPerNode() != null) {
                    problems.add(key + ".default-mem-per-cpu: give default-mem-per-cpu or default-mem-per-node, "
                            + "not both (as Slurm's DefMemPerCPU and DefMemPerNode)");
                }
                Long perCpu = memoryDefault(key + ".default-mem-per-cpu", p.defaultMemPerCpu());
                Long perNode = memoryDefault(key + ".default-mem-per-node", p.defaultMemPerNode());
                // In host order, as joining nodes are inserted (ClusterLayout#withNode searches it).
                List<String> members = new ArrayList<>(new java.util.LinkedHashSet<>(hosts));
                members.sort(Hostlist.HOST_ORDER);
                PartitionSpec spec = new PartitionSpec(p.name(), List.copyOf(members), p.isDefault(), defaultTime,
                        maxTime, p.priorityTier(), state, perCpu, perNode, GpuIdlePolicy.of(key, p, problems),
                        preemptMode(key + ".preempt-mode", p.preemptMode()), qosName(key + ".qos", p.qos()),
                        billingWeights(key + ".tres-billing-weights", p.tresBillingWeights()));
                if (partitions.putIfAbsent(p.name(), spec) != null) {
                    problems.add(key + ".name: duplicate partition name '" + p.name() + "'");
                }
            }
            if (defaults > 1) {
                problems.add(PREFIX + "partitions: " + defaults + " partitions are marked default; mark at most one");
            }
            return partitions;
        }

        /** A partition's TRESBillingWeights as configured; unset: the default ones. */
        private io.gantry.engine.BillingWeights billingWeights(String key, String value) {
            if (value == null || value.isBlank()) {
                return defaultBilling;
            }
            try {
                return io.gantry.engine.BillingWeights.parse(value);
            } catch (IllegalArgumentException e) {
                problems.add(key + ": " + e.getMessage() + "; write it as Slurm's TRESBillingWeights, e.g. "
                        + "CPU=1.0,Mem=0.25G,GRES/gpu=2.0, was '" + value + "'");
                return null;
            }
        }

        /**
         * A partition's PreemptMode as configured; unset: REQUEUE under preempt/partition_prio (Slurm takes the
         * cluster-wide PreemptMode, which must then not be OFF), else OFF.
         */
        private io.gantry.engine.Partition.PreemptMode preemptMode(String key, String value) {
            if (value == null || value.isBlank()) {
                return preemptType == io.gantry.engine.Preemption.Type.PARTITION_PRIO
                        ? io.gantry.engine.Partition.PreemptMode.REQUEUE : io.gantry.engine.Partition.PreemptMode.OFF;
            }
            try {
                return io.gantry.engine.Partition.PreemptMode.valueOf(value.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                problems.add(key + ": must be OFF, CANCEL, REQUEUE or SUSPEND, was '" + value + "'");
                return null;
            }
        }

        /** A partition QOS's name as configured (null for none); whether it exists is checked against the store at start. */
        private String qosName(String key, String value) {
            if (value != null && !value.isBlank() && (value.strip().length() > 64 || value.strip().contains(","))) {
                problems.add(key + ": '" + value + "' is not a QOS name (one name of at most 64 characters)");
                return null;
            }
            return value;
        }

        private List<SwitchSpec> switches(Set<String> known, Map<String, String> leafOfNode) {
            Map<String, SwitchSpec> switches = new LinkedHashMap<>();
            Map<String, Integer> indexOf = new HashMap<>();
            for (int i = 0; i < config.switches().size(); i++) {
                ClusterProperties.SwitchConfig s = config.switches().get(i);
                String key = PREFIX + "switches[" + i + "]";
                if (!validName(key + ".name", s.name())) {
                    continue;
                }
                List<String> hosts = s.nodes() == null ? List.of() : hosts(key + ".nodes", s.nodes());
                for (String host : hosts) {
                    if (!known.contains(host)) {
                        problems.add(key + ".nodes: unknown node '" + host + "' (not in " + PREFIX + "nodes)");
                    } else {
                        String other = leafOfNode.putIfAbsent(host, s.name());
                        if (other != null) {
                            problems.add(key + ".nodes: node '" + host + "' is already under switch '" + other + "'");
                        }
                    }
                }
                String parent = s.parent() == null || s.parent().isBlank() ? null : s.parent();
                if (switches.putIfAbsent(s.name(), new SwitchSpec(s.name(), parent, List.copyOf(hosts))) != null) {
                    problems.add(key + ".name: duplicate switch name '" + s.name() + "'");
                } else {
                    indexOf.put(s.name(), i);
                }
            }
            for (SwitchSpec s : switches.values()) {
                String key = PREFIX + "switches[" + indexOf.get(s.name()) + "]";
                if (s.parent() != null && !switches.containsKey(s.parent())) {
                    problems.add(key + ".parent: unknown switch '" + s.parent() + "'");
                } else if (s.parent() != null && !switches.get(s.parent()).nodes().isEmpty()) {
                    problems.add(key + ".parent: switch '" + s.parent() + "' has nodes, so it cannot have child switches");
                }
            }
            for (SwitchSpec s : switches.values()) {
                Set<String> seen = new HashSet<>();
                String at = s.name();
                while (at != null && switches.containsKey(at)) {
                    if (!seen.add(at)) {
                        if (!at.equals(s.name())) {
                            break; // s leads into a cycle it is not on; the switches on it report it
                        }
                        problems.add(PREFIX + "switches[" + indexOf.get(s.name()) + "].parent: the switch tree has a cycle through '"
                                + at + "' (" + String.join(" -> ", seen) + ")");
                        break;
                    }
                    at = switches.get(at).parent();
                }
            }
            return List.copyOf(switches.values());
        }

        private List<BlockSpec> blocks(Set<String> known, Map<String, String> blockOfNode) {
            Map<String, BlockSpec> blocks = new LinkedHashMap<>();
            for (int i = 0; i < config.blocks().size(); i++) {
                ClusterProperties.BlockConfig b = config.blocks().get(i);
                String key = PREFIX + "blocks[" + i + "]";
                if (!validName(key + ".name", b.name())) {
                    continue;
                }
                List<String> hosts = hosts(key + ".nodes", b.nodes());
                for (String host : hosts) {
                    if (!known.contains(host)) {
                        problems.add(key + ".nodes: unknown node '" + host + "' (not in " + PREFIX + "nodes)");
                    } else {
                        String other = blockOfNode.putIfAbsent(host, b.name());
                        if (other != null) {
                            problems.add(key + ".nodes: node '" + host + "' is already in block '" + other + "'");
                        }
                    }
                }
                if (blocks.putIfAbsent(b.name(), new BlockSpec(b.name(), List.copyOf(hosts))) != null) {
                    problems.add(key + ".name: duplicate block name '" + b.name() + "'");
                }
            }
            return List.copyOf(blocks.values());
        }

        private boolean validName(String key, String name) {
            if (name == null || !name.matches("[A-Za-z0-9_.-]{1,64}")) {
                problems.add(key + ": '" + name + "' is not a valid name (1-64 of letters, digits, _ . -)");
                return false;
            }
            return true;
        }

        private List<String> hosts(String key, String expression) {
            if (expression == null || expression.isBlank()) {
                problems.add(key + ": is required (a hostlist such as gpu[001-016])");
                return List.of();
            }
            try {
                List<String> hosts = Hostlist.parse(expression).hosts();
                Set<String> unique = new TreeSet<>();
                for (String host : hosts) {
                    if (!unique.add(host)) {
                        problems.add(key + ": node '" + host + "' is listed twice");
                    }
                }
                return hosts;
            } catch (HostlistException e) {
                problems.add(key + ": " + e.getMessage());
                return List.of();
            }
        }

        private Long time(String key, String value) {
            if (value == null || value.isBlank()) {
                return null;
            }
            try {
                long seconds = SlurmTime.parseSeconds(value);
                return seconds == SlurmTime.UNLIMITED ? null : seconds;
            } catch (SlurmTimeException e) {
                problems.add(key + ": " + e.getMessage());
                return null;
            }
        }

        private Long memoryDefault(String key, Long megabytes) {
            if (megabytes != null && megabytes < 1) {
                problems.add(key + ": must be at least 1 (MB), was " + megabytes);
                return null;
            }
            return megabytes;
        }

        private PartitionState partitionState(String key, String value) {
            try {
                return PartitionState.valueOf(value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                problems.add(key + ": '" + value + "' is not one of UP, DOWN, DRAIN, INACTIVE");
                return PartitionState.UP;
            }
        }
    }
}
