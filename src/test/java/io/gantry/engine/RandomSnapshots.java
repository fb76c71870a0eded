package io.gantry.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/** Random but valid snapshots from a seed: small clusters, busy nodes, every kind of request. */
final class RandomSnapshots {

    private static final String[] FEATURES = {"ib", "nvme", "skylake", "icelake"};
    private static final String[] GPU_TYPES = {"a100", "h100"};

    private RandomSnapshots() {
    }

    static Snapshot of(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        long now = 1_000_000 + r.nextInt(1000);
        int nodeCount = 1 + r.nextInt(24);
        int perSwitch = r.nextBoolean() ? 1 + r.nextInt(6) : 0;
        int perBlock = r.nextInt(3) == 0 ? 2 + r.nextInt(4) : 0;
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            int cpus = 1 << r.nextInt(7);
            int gpus = r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(8);
            Set<String> features = r.nextBoolean() ? Set.of(FEATURES[r.nextInt(4)])
                    : Set.of(FEATURES[r.nextInt(2)], FEATURES[2 + r.nextInt(2)]);
            int s = r.nextInt(10);
            NodeState state = s == 0 ? NodeState.DOWN : s == 1 ? NodeState.DRAIN : NodeState.UP;
            nodes.add(new Node(EngineFixtures.nodeName(i), cpus, 1000L * (1 + r.nextInt(64)), gpus,
                    gpus > 0 ? GPU_TYPES[r.nextInt(2)] : null, features, state,
                    perSwitch > 0 ? "sw" + i / perSwitch : null, perBlock > 0 ? "b" + i / perBlock : null));
        }
        List<Partition> partitions = new ArrayList<>();
        int partCount = 1 + r.nextInt(3);
        for (int p = 0; p < partCount; p++) {
            List<String> members = new ArrayList<>();
            for (Node n : nodes) {
                if (p == 0 || r.nextInt(3) > 0) {
                    members.add(n.name());
                }
            }
            partitions.add(new Partition("p" + p, members, r.nextInt(4) == 0 ? 3600 * (1 + r.nextInt(10)) : 0,
                    r.nextInt(3), r.nextInt(15) > 0));
        }

        // Running jobs: random pieces of nodes, never over capacity.
        int[] freeCpu = nodes.stream().mapToInt(Node::cpus).toArray();
        long[] freeMem = nodes.stream().mapToLong(Node::memoryMb).toArray();
        long[] usedGpu = new long[nodeCount];
        List<RunningJob> running = new ArrayList<>();
        long id = 1;
        int runningCount = r.nextInt(2 * nodeCount + 1);
        for (int k = 0; k < runningCount; k++) {
            int span = 1 + r.nextInt(3);
            List<NodeAllocation> alloc = new ArrayList<>();
            int first = r.nextInt(nodeCount);
            for (int j = 0; j < span && first + j < nodeCount; j++) {
                int i = first + j;
                if (freeCpu[i] == 0) {
                    continue;
                }
                int cpus = 1 + r.nextInt(freeCpu[i]);
                long mem = r.nextInt(3) == 0 ? r.nextLong(freeMem[i] + 1) : 0;
                List<Integer> g = new ArrayList<>();
                for (int gi = 0; gi < nodes.get(i).gpus(); gi++) {
                    if ((usedGpu[i] & (1L << gi)) == 0 && r.nextInt(3) == 0) {
                        g.add(gi);
                        usedGpu[i] |= 1L << gi;
                    }
                }
                freeCpu[i] -= cpus;
                freeMem[i] -= mem;
                alloc.add(new NodeAllocation(nodes.get(i).name(), cpus, mem, g));
            }
            if (!alloc.isEmpty()) {
                running.add(new RunningJob(JobId.of(id++), user(r), "acct" + r.nextInt(3), "normal", "p0", alloc,
                        now - 100, now - 50 + r.nextInt(20_000)));
            }
        }

        List<PendingJob> pending = new ArrayList<>();
        int pendingCount = r.nextInt(40);
        for (int k = 0; k < pendingCount; k++) {
            Request.Builder req = Request.builder();
            int kind = r.nextInt(6);
            if (kind == 0) {
                req.gpus(1 + r.nextInt(12));
            } else if (kind == 1) {
                req.nodes(1 + r.nextInt(4)).gpusPerNode(1 + r.nextInt(4));
            } else if (kind == 2) {
                req.tasks(1 + r.nextInt(200)).cpusPerTask(1 + r.nextInt(4));
            } else if (kind == 3) {
                req.nodes(1 + r.nextInt(6)).tasks(1 + r.nextInt(12));
            } else {
                req.tasks(1 + r.nextInt(4));
            }
            if (r.nextInt(5) == 0) {
                req.memoryMb(1000L * r.nextInt(40));
            }
            if (r.nextInt(6) == 0 && kind <= 1) {
                req.gpuType(GPU_TYPES[r.nextInt(2)]);
            }
            if (r.nextInt(5) == 0) {
                req.constraint(r.nextBoolean() ? FEATURES[r.nextInt(4)]
                        : FEATURES[r.nextInt(2)] + (r.nextBoolean() ? "&" : "|") + FEATURES[2 + r.nextInt(2)]);
            }
            req.exclusive(r.nextInt(12) == 0);
            req.oneBlock(r.nextInt(8) == 0);
            List<String> parts = new ArrayList<>();
            parts.add("p" + r.nextInt(partCount));
            if (r.nextInt(4) == 0) {
                String other = "p" + r.nextInt(partCount);
                if (!parts.contains(other)) {
                    parts.add(other);
                }
            }
            int h = r.nextInt(20);
            PendingReason held = h == 0 ? PendingReason.DEPENDENCY : h == 1 ? PendingReason.JOB_HELD_USER : null;
            pending.add(new PendingJob(JobId.of(1000 + k, r.nextInt(4) == 0 ? r.nextInt(3) : JobId.NO_TASK), user(r),
                    "acct" + r.nextInt(3), r.nextBoolean() ? "normal" : "high", parts, req.build(),
                    60L * (1 + r.nextInt(600)), now - r.nextInt(100_000), r.nextInt(25) == 0 ? now + 100 : 0,
                    r.nextInt(10) == 0 ? r.nextInt(1000) : 0, held));
        }
        List<Qos> qos = List.of(
                new Qos("normal", 10, 0, r.nextInt(3) == 0 ? 1 + r.nextInt(3) : 0, null, null, null),
                new Qos("high", 100, 0, 0, r.nextBoolean() ? Tres.parse("gres/gpu=" + (1 + r.nextInt(8)), Tres.UNLIMITED)
                        : null, null, null, r.nextInt(3) == 0 ? java.util.Set.of("normal") : java.util.Set.of(),
                        r.nextBoolean() ? Preemption.Mode.REQUEUE : Preemption.Mode.CANCEL));
        List<Association> assocs = List.of(
                new Association("acct0", null, r.nextDouble(), 0,
                        r.nextBoolean() ? Tres.parse("gres/gpu=" + r.nextInt(10), Tres.UNLIMITED) : null),
                Association.ofUser("acct1", "u1", r.nextDouble()));
        Policy policy = switch (r.nextInt(4)) {
            case 0 -> Policy.fifo();
            case 1 -> Policy.easy();
            case 2 -> Policy.defaults();
            default -> new Policy("conservative", Policy.defaults().weights(), true, Integer.MAX_VALUE);
        };
        // Now and then an advance reservation on a few nodes, and a few jobs that name it.
        List<AdvanceReservation> reservations = new ArrayList<>();
        if (r.nextInt(3) == 0) {
            java.util.Set<String> reserved = new java.util.HashSet<>();
            for (int k = 1 + r.nextInt(3); k > 0; k--) {
                reserved.add(nodes.get(r.nextInt(nodes.size())).name());
            }
            long start = now - 3600 + r.nextInt(7200);
            reservations.add(new AdvanceReservation("r0", reserved, start, start + 600 + r.nextInt(7200),
                    r.nextBoolean()));
            for (int k = 0; k < pending.size(); k++) {
                if (r.nextInt(8) == 0) {
                    PendingJob j = pending.get(k);
                    pending.set(k, new PendingJob(j.id(), j.user(), j.account(), j.qos(), j.partitions(), j.request(),
                            j.timeLimitSeconds(), j.submitTime(), j.eligibleTime(), j.nice(), j.heldBy(),
                            j.expectedRunSeconds(), "r0"));
                }
            }
        }
        return new Snapshot(now, nodes, partitions, List.of(), running, pending, qos, assocs, policy, reservations);
    }

    /**
     * {@link #of} on a random tree of switches above its leaf switches (up to three levels), with some
     * jobs asking for at most one to three leaf switches, waiting for them a while or not at all.
     * Drawn from a stream of its own, so {@code of(seed)} stays as it was.
     */
    static Snapshot withSwitchTree(long seed) {
        Snapshot s = of(seed);
        SplittableRandom r = new SplittableRandom(seed ^ 0x2545F4914F6CDD1DL);
        List<String> tops = s.nodes().stream().map(Node::switchName).filter(java.util.Objects::nonNull).distinct()
                .collect(java.util.stream.Collectors.toCollection(ArrayList::new));
        java.util.Map<String, String> parentOf = new java.util.HashMap<>();
        List<String> all = new ArrayList<>(tops);
        for (int level = 1; level <= 3 && tops.size() > 1; level++) {
            List<String> next = new ArrayList<>();
            for (int i = 0; i < tops.size(); ) {
                int group = Math.min(tops.size() - i, 1 + r.nextInt(3));
                String parent = "up" + level + "_" + next.size();
                for (String child : tops.subList(i, i + group)) {
                    parentOf.put(child, parent);
                }
                next.add(parent);
                all.add(parent);
                i += group;
            }
            tops = next;
        }
        List<Switch> switches = all.stream().map(name -> new Switch(name, parentOf.get(name))).toList();
        List<PendingJob> pending = new ArrayList<>();
        for (PendingJob j : s.pending()) {
            if (r.nextInt(3) == 0) {
                Request req = j.request().toBuilder().switches(1 + r.nextInt(3))
                        .switchWaitSeconds(r.nextBoolean() ? 0 : r.nextInt(100_000)).build();
                j = new PendingJob(j.id(), j.user(), j.account(), j.qos(), j.partitions(), req, j.timeLimitSeconds(),
                        j.submitTime(), j.eligibleTime(), j.nice(), j.heldBy(), j.expectedRunSeconds(), j.reservation());
            }
            pending.add(j);
        }
        return new Snapshot(s.now(), s.nodes(), s.partitions(), switches, s.running(), pending, s.qos(),
                s.associations(), s.policy(), s.reservations());
    }

    /**
     * {@link #of} with node lists: some jobs exclude a few nodes (now and then every node), some
     * name one to three nodes they must run on (now and then one the cluster lacks, or one they also
     * exclude). Drawn from a stream of their own, so {@code of(seed)} stays as it was.
     */
    static Snapshot withNodeLists(long seed) {
        Snapshot s = of(seed);
        SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        List<Node> nodes = s.nodes();
        List<PendingJob> pending = new ArrayList<>();
        for (PendingJob j : s.pending()) {
            Request.Builder req = j.request().toBuilder();
            List<String> excluded = new ArrayList<>();
            if (r.nextInt(3) == 0) {
                int count = r.nextInt(10) == 0 ? nodes.size() : 1 + r.nextInt(3);
                for (int k = 0; k < count; k++) {
                    excluded.add(nodes.get(r.nextInt(nodes.size())).name());
                }
                req.exclude(Hostlist.of(excluded).compressed());
            }
            if (r.nextInt(3) == 0) {
                List<String> listed = new ArrayList<>();
                for (int k = 1 + r.nextInt(3); k > 0; k--) {
                    listed.add(nodes.get(r.nextInt(nodes.size())).name());
                }
                if (r.nextInt(30) == 0) {
                    listed.add("ghost1");
                }
                if (r.nextInt(10) != 0) {
                    listed.removeAll(excluded);
                }
                if (!listed.isEmpty()) {
                    req.nodelist(Hostlist.of(listed).compressed());
                }
            }
            pending.add(new PendingJob(j.id(), j.user(), j.account(), j.qos(), j.partitions(), req.build(),
                    j.timeLimitSeconds(), j.submitTime(), j.eligibleTime(), j.nice(), j.heldBy(),
                    j.expectedRunSeconds(), j.reservation()));
        }
        return s.toBuilder().pending(pending).build();
    }

    private static String user(SplittableRandom r) {
        return "u" + r.nextInt(4);
    }
}
