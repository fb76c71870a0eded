package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * MIG instances and shards over thousands of seeded random clusters, each run for several cycles
 * (the jobs a cycle starts run in the next, until their limit): no MIG instance is given twice or
 * of the wrong profile; the shards of one GPU never exceed its count; a GPU is never held whole
 * and shared at once; and at no moment do whole-GPU jobs, reservations of whole-GPU jobs and GPUs
 * with shards in use need more GPUs than a node has. Every invariant of {@link Invariants} holds too.
 */
class SharedGpuPropertyTests {

    private static final int CLUSTERS = 1500;
    private static final String[] PROFILES = {"1g.10gb", "2g.20gb", "3g.40gb"};

    @Test
    void shared_gpus_are_never_oversubscribed_and_mig_profiles_match() {
        int migStarts = 0;
        int shardStarts = 0;
        int sharedGpuWithTwoJobs = 0;
        for (long seed = 0; seed < CLUSTERS; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            List<Node> nodes = nodes(r);
            List<Partition> parts = List.of(Partition.of("main", nodes.stream().map(Node::name).toList()));
            long now = 1_000_000;
            List<RunningJob> running = new ArrayList<>();
            List<PendingJob> pending = new ArrayList<>();
            long[] nextId = {1};
            Policy policy = r.nextBoolean() ? Policy.defaults() : Policy.fifo();
            for (int round = 0; round < 6; round++) {
                for (int k = r.nextInt(8); k > 0; k--) {
                    pending.add(job(r, nextId[0]++, now));
                }
                Snapshot s = Snapshot.builder().now(now).nodes(nodes).partitions(parts).running(running)
                        .pending(pending).policy(policy).build();
                Plan plan;
                try {
                    plan = new Engine().plan(s);
                    Invariants.check(s, plan);
                    sharedGpuWithTwoJobs += checkShared(s, plan);
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError("seed " + seed + " round " + round + ": " + e.getMessage(), e);
                }
                Map<JobId, PendingJob> byId = new HashMap<>();
                pending.forEach(j -> byId.put(j.id(), j));
                for (Start st : plan.starts()) {
                    PendingJob job = byId.remove(st.job());
                    running.add(new RunningJob(st.job(), job.user(), job.account(), job.qos(), st.partition(),
                            st.allocation(), st.startTime(), st.expectedEnd()));
                    migStarts += st.allocation().get(0).migIndices().isEmpty() ? 0 : 1;
                    shardStarts += st.allocation().get(0).shards() > 0 ? 1 : 0;
                }
                pending = new ArrayList<>(byId.values());
                now += r.nextInt(1800);
                long t = now;
                running.removeIf(j -> j.expectedEnd() <= t);
            }
        }
        // The generator must exercise the shared path, and shards of one GPU shared by several jobs.
        assertThat(migStarts).isGreaterThan(1000);
        assertThat(shardStarts).isGreaterThan(1000);
        assertThat(sharedGpuWithTwoJobs).isGreaterThan(200);
    }

    @Test
    void a_mig_profile_no_node_has_is_infeasible_with_words() {
        List<Node> nodes = List.of(new Node("g1", 8, 8000, 2, "a100", Set.of(), NodeState.UP, null, null,
                List.of("1g.10gb", "1g.10gb"), 4));
        Snapshot s = Snapshot.builder().now(0).nodes(nodes).partitions(List.of(Partition.of("main", List.of("g1"))))
                .build();
        Feasibility f = new Engine().feasibility(s, pendingOf(Request.builder().mig("3g.40gb", 1).build()));
        assertThat(f.fits()).isFalse();
        assertThat(f.message()).contains("MIG instances of profile 3g.40gb");
        Feasibility three = new Engine().feasibility(s, pendingOf(Request.builder().mig("1g.10gb", 3).build()));
        assertThat(three.message()).contains("at most 2");
        Feasibility shards = new Engine().feasibility(s, pendingOf(Request.builder().shards(5).build()));
        assertThat(shards.fits()).isFalse();
        assertThat(shards.message()).contains("at most 4");
        assertThat(new Engine().feasibility(s, pendingOf(Request.builder().shards(4).build())).fits()).isTrue();
    }

    @Test
    void a_gpu_with_shards_in_use_is_not_given_whole_and_shards_pack_onto_it() {
        Node n = new Node("g1", 16, 16000, 2, "a100", Set.of(), NodeState.UP, null, null, List.of(), 4);
        Snapshot s = Snapshot.builder().now(100).nodes(List.of(n))
                .partitions(List.of(Partition.of("main", List.of("g1"))))
                .running(List.of(new RunningJob(JobId.of(100), "u", "a", "normal", "main",
                        List.of(new NodeAllocation("g1", 1, 0, List.of(), List.of(), 1, 1)), 0, 3600)))
                .pending(List.of(pendingOf(Request.builder().gpus(2).build(), 1),
                        pendingOf(Request.builder().shards(3).build(), 2),
                        pendingOf(Request.builder().shards(2).build(), 3),
                        pendingOf(Request.builder().gpus(1).build(), 4)))
                .build();
        Plan plan = new Engine().plan(s);
        Map<JobId, Start> started = new HashMap<>();
        plan.starts().forEach(st -> started.put(st.job(), st));
        // GPU 1 has a shard in use: two whole GPUs are not there; the 3 shards go beside the one in use.
        assertThat(started).doesNotContainKey(JobId.of(1));
        assertThat(started.get(JobId.of(2)).allocation().get(0).shardGpu()).isEqualTo(1);
        // GPU 1 is full (1 + 3 of 4): the next 2 shards take GPU 0, so no whole GPU is left for job 4.
        assertThat(started.get(JobId.of(3)).allocation().get(0).shardGpu()).isZero();
        assertThat(started).doesNotContainKey(JobId.of(4));
    }

    private static PendingJob pendingOf(Request request) {
        return pendingOf(request, 1);
    }

    private static PendingJob pendingOf(Request request, long id) {
        return new PendingJob(JobId.of(id), "u", "a", "normal", List.of("main"), request, 3600, id, 0, 0, null);
    }

    private static List<Node> nodes(SplittableRandom r) {
        List<Node> nodes = new ArrayList<>();
        int count = 1 + r.nextInt(5);
        for (int i = 0; i < count; i++) {
            int gpus = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(4);
            List<String> mig = new ArrayList<>();
            if (r.nextInt(3) > 0) {
                for (int m = r.nextInt(8); m > 0; m--) {
                    mig.add(PROFILES[r.nextInt(PROFILES.length)]);
                }
            }
            int shards = gpus > 0 && r.nextInt(3) > 0 ? 1 + r.nextInt(8) : 0;
            NodeState state = r.nextInt(12) == 0 ? NodeState.DRAIN : NodeState.UP;
            nodes.add(new Node(EngineFixtures.nodeName(i), 4 + r.nextInt(28), 64_000, gpus, "a100", Set.of(), state,
                    null, null, mig, shards));
        }
        return nodes;
    }

    private static PendingJob job(SplittableRandom r, long id, long now) {
        Request.Builder b = Request.builder().tasks(1 + r.nextInt(2)).memoryMb(1000 * (1 + r.nextInt(4)));
        switch (r.nextInt(5)) {
            case 0 -> b.gpus(1 + r.nextInt(3));
            case 1 -> b.mig(r.nextInt(12) == 0 ? "7g.80gb" : PROFILES[r.nextInt(PROFILES.length)], 1 + r.nextInt(2));
            case 2, 3 -> b.shards(1 + r.nextInt(4));
            default -> { }
        }
        return new PendingJob(JobId.of(id), "u" + r.nextInt(3), "a", "normal", List.of("main"), b.build(),
                600L * (1 + r.nextInt(8)), now - r.nextInt(100), 0, 0, null);
    }

    /** A GPU's use at one moment: whole by a job, or shards by some. */
    private record Use(String what, long from, long to, int gpu, int shards) {
    }

    /** Checks the shared-GPU invariants; returns how many GPUs have shards of more than one job now. */
    private static int checkShared(Snapshot s, Plan plan) {
        Map<String, Node> nodes = new HashMap<>();
        s.nodes().forEach(n -> nodes.put(n.name(), n));
        Map<JobId, PendingJob> pending = new HashMap<>();
        s.pending().forEach(j -> pending.put(j.id(), j));
        Map<String, List<Use>> uses = new HashMap<>();
        Map<String, Set<Integer>> mig = new HashMap<>();
        List<Object[]> holders = new ArrayList<>();
        for (RunningJob j : s.running()) {
            holders.add(new Object[] {"running " + j.id(), j.allocation(), j.expectedEnd(), null});
        }
        for (Start st : plan.starts()) {
            holders.add(new Object[] {"start " + st.job(), st.allocation(), st.expectedEnd(),
                    pending.get(st.job()).request()});
        }
        for (Object[] h : holders) {
            @SuppressWarnings("unchecked")
            List<NodeAllocation> allocation = (List<NodeAllocation>) h[1];
            Request req = (Request) h[3];
            for (NodeAllocation a : allocation) {
                Node n = nodes.get(a.node());
                for (int m : a.migIndices()) {
                    require(m >= 0 && m < n.migProfiles().size(), "MIG index out of range");
                    require(mig.computeIfAbsent(a.node(), k -> new HashSet<>()).add(m),
                            "MIG instance " + a.node() + ":" + m + " given twice");
                    require(req == null || n.migProfiles().get(m).equals(req.migProfile()), "wrong MIG profile");
                }
                if (req != null) {
                    require(a.migIndices().size() == req.migCount(), "MIG count of " + h[0]);
                    require(a.shards() == req.shards(), "shard count of " + h[0]);
                    if (req.sharesGpus()) {
                        require(a.gpuIndices().isEmpty(), "a shared job got whole GPUs");
                    }
                }
                List<Use> list = uses.computeIfAbsent(a.node(), k -> new ArrayList<>());
                for (int g : a.gpuIndices()) {
                    list.add(new Use((String) h[0], s.now(), (long) h[2], g, 0));
                }
                if (a.shards() > 0) {
                    require(a.shardGpu() >= 0 && a.shardGpu() < n.gpus(), "shard GPU out of range");
                    list.add(new Use((String) h[0], s.now(), (long) h[2], a.shardGpu(), a.shards()));
                }
            }
        }
        for (Waiting w : plan.waiting()) {
            if (w.reserved()) {
                Request req = pending.get(w.job()).request();
                require(!req.sharesGpus(), "a shared job reserved nodes");
                Shape shape = Shape.of(req, new Cluster(s.nodes(), s.partitions()).partsByName.get(w.partition()),
                        new Cluster(s.nodes(), s.partitions()));
                long start = w.expectedStart().getAsLong();
                for (String node : w.reservedNodes()) {
                    // Reserved GPUs have no index yet: -1 stands for "some whole GPU".
                    for (int k = 0; k < shape.gpusPerNode(); k++) {
                        uses.computeIfAbsent(node, x -> new ArrayList<>()).add(new Use("reservation " + w.job(), start,
                                start + pending.get(w.job()).timeLimitSeconds(), -1, 0));
                    }
                }
            }
        }
        int shared = 0;
        for (Map.Entry<String, List<Use>> e : uses.entrySet()) {
            Node n = nodes.get(e.getKey());
            TreeSet<Long> points = new TreeSet<>();
            e.getValue().forEach(u -> points.add(u.from()));
            for (long t : points) {
                int[] whole = new int[n.gpus()];
                int[] shards = new int[n.gpus()];
                int[] sharers = new int[n.gpus()];
                int unindexed = 0;
                for (Use u : e.getValue()) {
                    if (u.from() <= t && t < u.to()) {
                        if (u.gpu() < 0) {
                            unindexed++;
                        } else if (u.shards() > 0) {
                            shards[u.gpu()] += u.shards();
                            sharers[u.gpu()]++;
                        } else {
                            whole[u.gpu()]++;
                        }
                    }
                }
                int busy = unindexed;
                for (int g = 0; g < n.gpus(); g++) {
                    require(whole[g] <= 1, "GPU " + n.name() + ":" + g + " given whole twice");
                    require(whole[g] == 0 || shards[g] == 0, "GPU " + n.name() + ":" + g + " whole and shared");
                    require(shards[g] <= n.shardsPerGpu(), "GPU " + n.name() + ":" + g + " has " + shards[g]
                            + " shards of " + n.shardsPerGpu());
                    busy += whole[g] + (shards[g] > 0 ? 1 : 0);
                    if (t == s.now() && sharers[g] > 1) {
                        shared++;
                    }
                }
                require(busy <= n.gpus(), "node " + n.name() + " needs " + busy + " GPUs at " + t);
            }
        }
        return shared;
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
