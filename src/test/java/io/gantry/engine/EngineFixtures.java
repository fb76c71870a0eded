package io.gantry.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/** Builders for engine tests: {@code aCluster().nodes(4).gpusPerNode(8).scenario().with(aJob().gpus(16)).plan()}. */
final class EngineFixtures {

    private static long nextJobId = 1;

    private EngineFixtures() {
    }

    static ClusterBuilder aCluster() {
        return new ClusterBuilder();
    }

    static JobBuilder aJob() {
        return new JobBuilder(nextJobId++);
    }

    static String nodeName(int i) {
        return String.format("n%03d", i);
    }

    static final class ClusterBuilder {
        private int nodes = 4;
        private int cpus = 64;
        private long memoryMb = 256_000;
        private int gpus;
        private String gpuType;
        private IntFunction<Set<String>> features = i -> Set.of();
        private IntFunction<String> gpuTypes;
        private int nodesPerSwitch;
        private int nodesPerBlock;
        private final Map<Integer, NodeState> states = new HashMap<>();
        private final List<Partition> partitions = new ArrayList<>();
        private long maxTime;

        ClusterBuilder nodes(int n) { nodes = n; return this; }
        ClusterBuilder cpusPerNode(int n) { cpus = n; return this; }
        ClusterBuilder memoryMbPerNode(long n) { memoryMb = n; return this; }
        ClusterBuilder gpusPerNode(int n) { gpus = n; return this; }
        ClusterBuilder gpuType(String t) { gpuType = t; return this; }
        ClusterBuilder gpuTypes(IntFunction<String> t) { gpuTypes = t; return this; }
        ClusterBuilder features(IntFunction<Set<String>> f) { features = f; return this; }
        ClusterBuilder nodesPerSwitch(int n) { nodesPerSwitch = n; return this; }
        ClusterBuilder nodesPerBlock(int n) { nodesPerBlock = n; return this; }
        ClusterBuilder state(int node, NodeState s) { states.put(node, s); return this; }
        ClusterBuilder maxTimeSeconds(long t) { maxTime = t; return this; }

        /** An extra partition over nodes [from, to). The default partition "main" holds all nodes. */
        ClusterBuilder partition(String name, int from, int to, int tier, long maxTimeSeconds) {
            List<String> names = new ArrayList<>();
            for (int i = from; i < to; i++) {
                names.add(nodeName(i));
            }
            partitions.add(new Partition(name, names, maxTimeSeconds, tier, true));
            return this;
        }

        List<Node> buildNodes() {
            List<Node> list = new ArrayList<>();
            for (int i = 0; i < nodes; i++) {
                String sw = nodesPerSwitch > 0 ? "sw" + (i / nodesPerSwitch) : null;
                String block = nodesPerBlock > 0 ? "b" + (i / nodesPerBlock) : null;
                String type = gpuTypes != null ? gpuTypes.apply(i) : gpus > 0 ? gpuType : null;
                list.add(new Node(nodeName(i), cpus, memoryMb, gpus, type, features.apply(i),
                        states.getOrDefault(i, NodeState.UP), sw, block));
            }
            return List.copyOf(list);
        }

        Scenario scenario() {
            List<Node> built = buildNodes();
            List<Partition> parts = new ArrayList<>();
            parts.add(new Partition("main", built.stream().map(Node::name).toList(), maxTime, 0, true));
            parts.addAll(partitions);
            List<Switch> switches = new ArrayList<>();
            built.stream().map(Node::switchName).filter(s -> s != null).distinct()
                    .forEach(s -> switches.add(new Switch(s, "top")));
            if (!switches.isEmpty()) {
                switches.add(new Switch("top", null));
            }
            return new Scenario(built, List.copyOf(parts), List.copyOf(switches));
        }
    }

    static final class Scenario {
        final List<Node> nodes;
        List<Partition> partitions;
        final List<Switch> switches;
        final List<RunningJob> running = new ArrayList<>();
        final List<PendingJob> pending = new ArrayList<>();
        final List<Qos> qos = new ArrayList<>();
        final List<Association> associations = new ArrayList<>();
        Policy policy = Policy.easy();
        long now = 1_000_000;

        Scenario(List<Node> nodes, List<Partition> partitions, List<Switch> switches) {
            this.nodes = nodes;
            this.partitions = partitions;
            this.switches = switches;
        }

        Scenario with(JobBuilder... jobs) {
            for (JobBuilder j : jobs) {
                if (j.submit == Long.MIN_VALUE) {
                    j.submit = now - 1000 + pending.size();
                }
                pending.add(j.build());
            }
            return this;
        }

        /** A job already running on the given node with the given CPUs and GPUs until {@code end}. */
        Scenario runningOn(int node, int cpus, long memoryMb, List<Integer> gpuIndices, long end) {
            return running(aJob().build().id(), end, new NodeAllocation(nodeName(node), cpus, memoryMb, gpuIndices));
        }

        Scenario running(JobId id, long end, NodeAllocation... allocation) {
            running.add(new RunningJob(id, "bob", "physics", "normal", "main", List.of(allocation), now - 100, end));
            return this;
        }

        /** A job running on all of node {@code node} until its limit {@code end}, predicted to end at {@code predictedEnd}. */
        Scenario runningPredicted(int node, long end, long predictedEnd) {
            Node n = nodes.get(node);
            running.add(new RunningJob(aJob().build().id(), "bob", "physics", "normal", "main",
                    List.of(new NodeAllocation(n.name(), n.cpus(), n.memoryMb(), List.of())), now - 100, end,
                    predictedEnd));
            return this;
        }

        /** Every node fully busy until {@code end}. */
        Scenario allBusyUntil(long end) {
            for (int i = 0; i < nodes.size(); i++) {
                Node n = nodes.get(i);
                List<Integer> g = new ArrayList<>();
                for (int k = 0; k < n.gpus(); k++) {
                    g.add(k);
                }
                runningOn(i, n.cpus(), n.memoryMb(), g, end);
            }
            return this;
        }

        Scenario policy(Policy p) { policy = p; return this; }
        Scenario qos(Qos q) { qos.add(q); return this; }

        /** Partition {@code name} with partition QOS {@code qosName}. */
        Scenario partitionQos(String name, String qosName) {
            partitions = partitions.stream().map(p -> p.name().equals(name) ? p.withQos(qosName) : p).toList();
            return this;
        }
        Scenario association(Association a) { associations.add(a); return this; }
        Scenario at(long t) { now = t; return this; }

        Snapshot snapshot() {
            return new Snapshot(now, nodes, partitions, switches, running, pending, qos, associations, policy);
        }

        Plan plan() {
            Snapshot s = snapshot();
            Plan plan = new Engine().plan(s);
            Invariants.check(s, plan);
            return plan;
        }
    }

    static final class JobBuilder {
        private final long id;
        private String user = "alice";
        private String account = "physics";
        private String qos = "normal";
        private List<String> partitions = List.of("main");
        private final Request.Builder request = Request.builder();
        private long timeLimit = 3600;
        long submit = Long.MIN_VALUE;
        private long eligible;
        private int nice;
        private PendingReason held;
        private long guess;

        JobBuilder(long id) {
            this.id = id;
        }

        JobBuilder user(String u) { user = u; return this; }
        JobBuilder account(String a) { account = a; return this; }
        JobBuilder qos(String q) { qos = q; return this; }
        JobBuilder partitions(String... p) { partitions = List.of(p); return this; }
        JobBuilder nodes(int n) { request.nodes(n); return this; }
        JobBuilder nodes(int min, int max) { request.nodes(min).maxNodes(max); return this; }
        JobBuilder timeMin(long seconds) { request.timeMinSeconds(seconds); return this; }
        JobBuilder tasks(int n) { request.tasks(n); return this; }
        JobBuilder cpusPerTask(int n) { request.cpusPerTask(n); return this; }
        JobBuilder memoryMb(long m) { request.memoryMb(m); return this; }
        JobBuilder gpus(int n) { request.gpus(n); return this; }
        JobBuilder gpusPerNode(int n) { request.gpusPerNode(n); return this; }
        JobBuilder gpuType(String t) { request.gpuType(t); return this; }
        JobBuilder constraint(String c) { request.constraint(c); return this; }
        JobBuilder exclusive() { request.exclusive(true); return this; }
        JobBuilder oneBlock() { request.oneBlock(true); return this; }
        JobBuilder nodelist(String hostlist) { request.nodelist(hostlist); return this; }
        JobBuilder exclude(String hostlist) { request.exclude(hostlist); return this; }
        JobBuilder timeLimit(long t) { timeLimit = t; return this; }
        JobBuilder submittedAt(long t) { submit = t; return this; }
        JobBuilder eligibleAt(long t) { eligible = t; return this; }
        JobBuilder nice(int n) { nice = n; return this; }
        JobBuilder heldBy(PendingReason r) { held = r; return this; }
        /** The caller's guess of its run time (0 = none). */
        JobBuilder guess(long seconds) { guess = seconds; return this; }

        JobId id() {
            return JobId.of(id);
        }

        PendingJob build() {
            long s = submit == Long.MIN_VALUE ? 0 : submit;
            return new PendingJob(JobId.of(id), user, account, qos, partitions, request.build(), timeLimit, s,
                    eligible, nice, held, guess);
        }
    }
}
