package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/**
 * Expected starts over random snapshots: every pending job that could run on its own gets one (at
 * or after now and its begin time) unless it is held, waits on a dependency, a limit or an advance
 * reservation; placing all estimated jobs where the estimator put them never needs more than a
 * node has at any moment nor touches an advance reservation; the same input gives the same estimates.
 */
class StartEstimatorPropertyTests {

    private static final Set<StartEstimate.Missing> NOT_ABOUT_RESOURCES = EnumSet.of(StartEstimate.Missing.HELD,
            StartEstimate.Missing.DEPENDENCY, StartEstimate.Missing.LIMIT);

    @Test
    void random_snapshots_get_sound_estimates() {
        check(RandomSnapshots::of, 1500);
    }

    @Test
    void random_snapshots_with_node_lists_get_sound_estimates() {
        check(RandomSnapshots::withNodeLists, 500);
    }

    @Test
    void random_switch_trees_get_sound_estimates() {
        check(RandomSnapshots::withSwitchTree, 300);
    }

    @Test
    void the_same_snapshot_gives_the_same_estimates_from_a_fresh_or_a_used_engine() {
        Engine used = new Engine();
        for (long seed = 0; seed < 300; seed++) {
            Snapshot s = RandomSnapshots.of(seed);
            Plan plan = used.plan(s);
            List<StartEstimate> first = used.estimateStarts(s, plan, StartEstimator.Budget.UNLIMITED).estimates();
            Engine fresh = new Engine();
            assertThat(fresh.estimateStarts(s, fresh.plan(s), StartEstimator.Budget.UNLIMITED).estimates())
                    .as("seed %d", seed).isEqualTo(first);
            assertThat(used.estimateStarts(s, plan, StartEstimator.Budget.UNLIMITED).estimates())
                    .as("seed %d", seed).isEqualTo(first);
        }
    }

    @Test
    void the_free_node_index_gives_the_estimates_of_reading_every_node() {
        Engine engine = new Engine();
        int later = 0;
        for (long seed = 0; seed < 600; seed++) {
            for (Snapshot s : List.of(RandomSnapshots.of(seed), withAlikeJobs(seed),
                    RandomSnapshots.withSwitchTree(seed), RandomSnapshots.withNodeLists(seed))) {
                Plan plan = engine.plan(s);
                Cluster cluster = new Cluster(s.nodes(), s.partitions(), s.switches());
                List<StartEstimate> exact = new StartEstimator(s, cluster, StartEstimator.Budget.UNLIMITED,
                        StartEstimator.Search.EVERY_NODE)
                        .run(plan).estimates();
                List<StartEstimate> indexed = new StartEstimator(s, cluster, StartEstimator.Budget.UNLIMITED,
                        StartEstimator.Search.INDEX_EXACT)
                        .run(plan).estimates();
                assertThat(indexed).as("seed %d", seed).isEqualTo(exact);
                // Starts past the index's first minute-wide buckets, where a bucket holds many moments.
                later += (int) exact.stream().filter(e -> e.start().isPresent()
                        && e.start().getAsLong() > s.now() + 4 * 3600).count();
            }
        }
        assertThat(later).isGreaterThan(400);
    }

    @Test
    void reading_nodes_by_earliest_start_gives_the_estimates_of_reading_every_node() {
        Engine engine = new Engine();
        int later = 0;
        int multiNode = 0;
        for (long seed = 0; seed < 600; seed++) {
            for (Snapshot s : List.of(RandomSnapshots.of(seed), withAlikeJobs(seed), RandomSnapshots.withSwitchTree(seed),
                    RandomSnapshots.withNodeLists(seed), crowded(seed))) {
                Plan plan = engine.plan(s);
                Cluster cluster = new Cluster(s.nodes(), s.partitions(), s.switches());
                List<StartEstimate> exact = new StartEstimator(s, cluster, StartEstimator.Budget.UNLIMITED,
                        StartEstimator.Search.EVERY_NODE).run(plan).estimates();
                List<StartEstimate> ordered = new StartEstimator(s, cluster, StartEstimator.Budget.UNLIMITED,
                        StartEstimator.Search.BY_EARLIEST).run(plan).estimates();
                assertThat(ordered).as("seed %d", seed).isEqualTo(exact);
                later += (int) exact.stream().filter(e -> e.start().isPresent() && e.start().getAsLong() > s.now())
                        .count();
                multiNode += (int) exact.stream().filter(e -> e.nodes().size() > 1).count();
            }
        }
        // Most estimates must lie ahead, where nodes are drawn in more than one round.
        assertThat(later).isGreaterThan(20_000);
        assertThat(multiNode).isGreaterThan(2_000);
    }

    @Test
    void crowded_snapshots_get_sound_estimates() {
        check(StartEstimatorPropertyTests::crowded, 300);
    }

    @Test
    void passes_that_go_on_where_the_last_stopped_stay_sound_and_reach_every_job() {
        Engine engine = new Engine();
        StartEstimator.Budget tenJobs = new StartEstimator.Budget(10, 0);
        int carried = 0;
        int rough = 0;
        for (long seed = 0; seed < 100; seed++) {
            Snapshot s = crowded(seed);
            Plan plan = engine.plan(s);
            Set<JobId> canStart = new HashSet<>();
            engine.estimateStarts(s, plan, StartEstimator.Budget.UNLIMITED).estimates().stream()
                    .filter(e -> e.start().isPresent()).forEach(e -> canStart.add(e.job()));
            // On another snapshot (the next seed's jobs ended, others came) the kept times must still be sound.
            Snapshot other = crowded(seed + 1_000);
            StartEstimates earlier = engine.estimateStarts(other, engine.plan(other), tenJobs, null);
            StartEstimates pass = engine.estimateStarts(s, plan, tenJobs, earlier);
            checkOne(s, plan, pass, "seed " + seed + " after another snapshot's pass", true);
            everyJobThatCanStartHasATime(s, canStart, pass, "seed " + seed + " after another snapshot's pass");
            // On the same snapshot the search comes round every job within two rounds of five new jobs a pass.
            int passes = 0;
            while (passes++ <= 2 * s.pending().size() / 5 + 2 && pass.estimates().stream()
                    .anyMatch(e -> e.missing() == StartEstimate.Missing.OVER_BUDGET || e.rough())) {
                pass = engine.estimateStarts(s, plan, tenJobs, pass);
                checkOne(s, plan, pass, "seed " + seed + " pass " + passes, true);
                everyJobThatCanStartHasATime(s, canStart, pass, "seed " + seed + " pass " + passes);
                rough += pass.rough();
                carried += pass.carried();
            }
            for (StartEstimate e : pass.estimates()) {
                if (canStart.contains(e.job())) {
                    assertThat(e.start()).as("seed %d job %s after %d passes", seed, e.job(), passes).isPresent();
                    assertThat(e.rough()).as("seed %d job %s after %d passes", seed, e.job(), passes).isFalse();
                }
            }
        }
        assertThat(carried).isGreaterThan(10_000);
        assertThat(rough).isGreaterThan(1_000);
    }

    /** A budgeted pass still gives every job that can start (outside advance reservations) a time, if a rough one. */
    private static void everyJobThatCanStartHasATime(Snapshot s, Set<JobId> canStart, StartEstimates pass, String what) {
        Map<JobId, PendingJob> pending = new HashMap<>();
        s.pending().forEach(j -> pending.put(j.id(), j));
        for (StartEstimate e : pass.estimates()) {
            if (canStart.contains(e.job()) && pending.get(e.job()).reservation() == null) {
                assertThat(e.start()).as(what + " job " + e.job() + ": " + e.missing()).isPresent();
            }
        }
    }

    @Test
    void rough_times_change_no_searched_or_kept_estimate() {
        // Rough times are held in sums of their own, never in the profile: the jobs the search reaches, or
        // that keep an earlier pass's nodes, get the same times and nodes whether the others get rough times or none.
        Engine engine = new Engine();
        StartEstimator.Budget tenJobs = new StartEstimator.Budget(10, 0);
        int compared = 0;
        int rough = 0;
        for (long seed = 0; seed < 150; seed++) {
            Snapshot full = crowded(seed);
            // Half of the queue first, then all of it: jobs arrive between passes, also ahead of where the
            // search stopped, and get rough times there, before the search goes on.
            List<PendingJob> some = new ArrayList<>();
            for (int k = 0; k < full.pending().size(); k += 2) {
                some.add(full.pending().get(k));
            }
            Snapshot half = full.toBuilder().pending(some).build();
            Plan halfPlan = engine.plan(half);
            Plan fullPlan = engine.plan(full);
            Cluster cluster = new Cluster(full.nodes(), full.partitions(), full.switches());
            StartEstimates with = null;
            StartEstimates without = null;
            for (int pass = 0; pass < 8; pass++) {
                Snapshot s = pass < 3 ? half : full;
                Plan plan = pass < 3 ? halfPlan : fullPlan;
                with = new StartEstimator(s, cluster, tenJobs, StartEstimator.Search.BY_EARLIEST, true).run(plan, with);
                without = new StartEstimator(s, cluster, tenJobs, StartEstimator.Search.BY_EARLIEST, false)
                        .run(plan, without);
                Map<JobId, StartEstimate> none = without.byJob();
                for (StartEstimate e : with.estimates()) {
                    StartEstimate other = none.get(e.job());
                    String what = "seed " + seed + " pass " + pass + " job " + e.job();
                    if (e.rough()) {
                        rough++;
                        assertThat(other.missing()).as(what).isEqualTo(StartEstimate.Missing.OVER_BUDGET);
                    } else {
                        compared++;
                        assertThat(e).as(what).isEqualTo(other);
                    }
                }
            }
        }
        assertThat(rough).isGreaterThan(10_000);
        assertThat(compared).isGreaterThan(10_000);
    }

    @Test
    void passes_that_go_on_where_the_last_stopped_give_the_estimates_of_reading_every_node() {
        // Jobs kept in place fill the profile before the search goes on, and the nodes are ordered again then.
        Engine engine = new Engine();
        StartEstimator.Budget tenJobs = new StartEstimator.Budget(10, 0);
        int compared = 0;
        int later = 0;
        for (long seed = 0; seed < 150; seed++) {
            Snapshot s = crowded(seed);
            Plan plan = engine.plan(s);
            Cluster cluster = new Cluster(s.nodes(), s.partitions(), s.switches());
            StartEstimates exact = null;
            StartEstimates ordered = null;
            for (int pass = 0; pass < 8; pass++) {
                exact = new StartEstimator(s, cluster, tenJobs, StartEstimator.Search.EVERY_NODE).run(plan, exact);
                ordered = new StartEstimator(s, cluster, tenJobs, StartEstimator.Search.BY_EARLIEST).run(plan, ordered);
                assertThat(ordered.estimates()).as("seed %d pass %d", seed, pass).isEqualTo(exact.estimates());
                assertThat(ordered.resumeAt()).isEqualTo(exact.resumeAt());
                compared += exact.estimates().size();
                later += (int) exact.estimates().stream()
                        .filter(e -> e.start().isPresent() && e.start().getAsLong() > s.now()).count();
            }
        }
        assertThat(compared).isGreaterThan(50_000);
        assertThat(later).isGreaterThan(20_000);
    }

    /**
     * {@link RandomSnapshots#of} with 150 more pending jobs like its own (other time limits, submit
     * times and ids), so that the profile fills far ahead and most nodes' earliest starts move.
     */
    static Snapshot crowded(long seed) {
        Snapshot s = RandomSnapshots.of(seed);
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
        if (s.pending().isEmpty()) {
            return s;
        }
        List<PendingJob> pending = new ArrayList<>(s.pending());
        for (int k = 0; k < 150; k++) {
            PendingJob j = s.pending().get(r.nextInt(s.pending().size()));
            pending.add(new PendingJob(JobId.of(60_000 + k), j.user(), j.account(), j.qos(), j.partitions(),
                    j.request(), 60L * (1 + r.nextInt(600)), s.now() - r.nextInt(100_000), j.eligibleTime(), j.nice(),
                    j.heldBy(), 0, j.reservation()));
        }
        return s.toBuilder().pending(pending).build();
    }

    @Test
    void random_snapshots_with_alike_jobs_get_sound_estimates_in_queue_order() {
        check(StartEstimatorPropertyTests::withAlikeJobs, 1000);
        Engine engine = new Engine();
        int alikeLater = 0;
        for (long seed = 0; seed < 1000; seed++) {
            Snapshot s = withAlikeJobs(seed);
            Map<JobId, PendingJob> pending = new HashMap<>();
            s.pending().forEach(j -> pending.put(j.id(), j));
            Plan plan = engine.plan(s);
            // The plan's reservations are its own promises (a job behind may backfill before one of them).
            Set<JobId> reserved = new HashSet<>();
            plan.waiting().stream().filter(Waiting::reserved).forEach(w -> reserved.add(w.job()));
            Map<List<Object>, Long> last = new HashMap<>();
            for (StartEstimate e : engine.estimateStarts(s, plan, StartEstimator.Budget.UNLIMITED).estimates()) {
                PendingJob job = pending.get(e.job());
                if (e.start().isEmpty() || reserved.contains(e.job())) {
                    continue;
                }
                List<Object> alike = List.of(job.request(), job.partitions(), job.timeLimitSeconds());
                Long before = last.put(alike, e.start().getAsLong());
                if (before != null) {
                    // Estimates come in queue order: a job alike one ahead of it never starts first.
                    assertThat(e.start().getAsLong()).as("seed %d job %s", seed, e.job()).isGreaterThanOrEqualTo(before);
                    if (e.start().getAsLong() > before) {
                        alikeLater++;
                    }
                }
            }
        }
        assertThat(alikeLater).isGreaterThan(100);
    }

    /** {@link RandomSnapshots#of} plus copies (new ids, other submit times) of some of its pending jobs, as arrays give. */
    static Snapshot withAlikeJobs(long seed) {
        Snapshot s = RandomSnapshots.of(seed);
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed ^ 0x5DEECE66DL);
        List<PendingJob> pending = new ArrayList<>(s.pending());
        int next = 50_000;
        for (PendingJob j : s.pending()) {
            if (r.nextInt(3) != 0) {
                continue;
            }
            for (int copy = 1 + r.nextInt(5); copy > 0; copy--) {
                pending.add(new PendingJob(JobId.of(next++), j.user(), j.account(), j.qos(), j.partitions(),
                        j.request(), j.timeLimitSeconds(), j.submitTime() - r.nextInt(3600), j.eligibleTime(), j.nice(),
                        r.nextInt(10) == 0 ? PendingReason.JOB_HELD_USER : null, 0, j.reservation()));
            }
        }
        return s.toBuilder().pending(pending).build();
    }

    private static void check(LongFunction<Snapshot> snapshots, int count) {
        Engine engine = new Engine();
        int estimated = 0;
        int later = 0;
        for (long seed = 0; seed < count; seed++) {
            Snapshot s = snapshots.apply(seed);
            Plan plan = engine.plan(s);
            StartEstimates estimates = engine.estimateStarts(s, plan, StartEstimator.Budget.UNLIMITED);
            assertThat(estimates.cutShort()).isFalse();
            checkOne(s, plan, estimates, "seed " + seed, false);
            estimated += estimates.estimated();
            later += (int) estimates.estimates().stream()
                    .filter(e -> e.start().isPresent() && e.start().getAsLong() > s.now()).count();
        }
        // The random snapshots must exercise the estimator, not just held jobs and empty queues.
        assertThat(estimated).isGreaterThan(count / 2);
        assertThat(later).isGreaterThan(count / 10);
    }

    private static void checkOne(Snapshot s, Plan plan, StartEstimates estimates, String what, boolean budgeted) {
        Map<JobId, PendingJob> pending = new HashMap<>();
        s.pending().forEach(j -> pending.put(j.id(), j));
        Set<JobId> started = new HashSet<>();
        plan.starts().forEach(st -> started.add(st.job()));
        assertThat(estimates.estimates()).as(what).hasSize(s.pending().size() - started.size());
        Cluster cluster = new Cluster(s.nodes(), s.partitions(), s.switches());
        Map<String, List<long[]>> claims = new HashMap<>();
        Set<JobId> victims = new HashSet<>();
        plan.preemptions().forEach(p -> victims.add(p.victim()));
        for (RunningJob r : s.running()) {
            if (!victims.contains(r.id())) {
                r.allocation().forEach(a -> claim(claims, a.node(), s.now(), Math.max(r.expectedEnd(), s.now() + 1),
                        a.cpus(), a.memoryMb(), a.gpus()));
            }
        }
        for (Start st : plan.starts()) {
            st.allocation().forEach(a -> claim(claims, a.node(), st.startTime(), st.expectedEnd(), a.cpus(),
                    a.memoryMb(), a.gpus()));
        }
        for (StartEstimate e : estimates.estimates()) {
            PendingJob job = pending.get(e.job());
            assertThat(job).as(what).isNotNull();
            assertThat(started).as(what).doesNotContain(e.job());
            String who = what + " job " + e.job();
            if (e.start().isEmpty()) {
                if (budgeted && e.missing() == StartEstimate.Missing.OVER_BUDGET) {
                    continue;
                }
                assertThat(e.missing()).as(who).isNotEqualTo(StartEstimate.Missing.OVER_BUDGET);
                if (!NOT_ABOUT_RESOURCES.contains(e.missing())) {
                    assertThat(runsAlone(s, job)).as(who + " has no estimate (" + e.missing() + ") but runs alone")
                            .isFalse();
                }
                continue;
            }
            long start = e.start().getAsLong();
            long end = start + job.timeLimitSeconds();
            assertThat(start).as(who).isGreaterThanOrEqualTo(s.now()).isGreaterThanOrEqualTo(job.eligibleFrom());
            assertThat(job.heldBy() == null || job.heldBy() == PendingReason.NONE).as(who + " is held").isTrue();
            assertThat(job.partitions()).as(who).contains(e.partition());
            if (e.rough()) {
                assertThat(budgeted).as(who + " got a rough time from an unlimited pass").isTrue();
                for (AdvanceReservation r : s.reservations()) {
                    if (r.name().equals(job.reservation())) {
                        assertThat(start).as(who).isGreaterThanOrEqualTo(r.start()).isLessThan(r.end());
                    }
                }
                continue;
            }
            Shape shape = Shape.of(job.request(), cluster.partsByName.get(e.partition()), cluster);
            assertThat(e.nodes()).as(who).hasSize(shape.nodes()).doesNotHaveDuplicates();
            for (String name : e.nodes()) {
                int i = cluster.nodeIndex.get(name);
                assertThat(shape.candidates().get(i) && cluster.up.get(i) && shape.capable(cluster, i))
                        .as(who + " placed on unusable " + name).isTrue();
                assertThat(shape.excludes(i)).as(who).isFalse();
                claim(claims, name, start, end, shape.needCpu(cluster, i), shape.needMem(cluster, i),
                        shape.needGpu(cluster, i));
                for (AdvanceReservation r : s.reservations()) {
                    if (r.name().equals(job.reservation())) {
                        assertThat(r.nodes()).as(who + " placed outside its reservation").contains(name);
                        assertThat(start).as(who).isGreaterThanOrEqualTo(r.start()).isLessThan(r.end());
                    } else {
                        assertThat(r.nodes().contains(name) && r.overlaps(start, end))
                                .as(who + " placed in advance reservation " + r.name()).isFalse();
                    }
                }
            }
            for (int i : shape.required()) {
                assertThat(e.nodes()).as(who).contains(cluster.names[i]);
            }
        }
        Map<String, Node> nodes = new HashMap<>();
        s.nodes().forEach(n -> nodes.put(n.name(), n));
        claims.forEach((name, list) -> {
            Node n = nodes.get(name);
            TreeSet<Long> points = new TreeSet<>();
            list.forEach(c -> points.add(c[0]));
            for (long t : points) {
                long cpu = 0;
                long mem = 0;
                long gpu = 0;
                for (long[] c : list) {
                    if (c[0] <= t && t < c[1]) {
                        cpu += c[2];
                        mem += c[3];
                        gpu += c[4];
                    }
                }
                assertThat(cpu <= n.cpus() && mem <= n.memoryMb() && gpu <= n.gpus())
                        .as(what + ": node " + name + " over capacity at " + t).isTrue();
            }
        });
    }

    /**
     * Whether the job would start (or wait only for a better switch set) on the cluster with nothing
     * running and no advance reservation, once eligible: i.e. whether it can ever run.
     */
    private static boolean runsAlone(Snapshot s, PendingJob job) {
        // Alone, and done waiting for its --switches: whether it could start at all.
        PendingJob unhurried = new PendingJob(job.id(), job.user(), job.account(), job.qos(), job.partitions(),
                job.request().toBuilder().switchWaitSeconds(0).build(), job.timeLimitSeconds(), job.submitTime(),
                job.eligibleTime(), job.nice(), job.heldBy(), job.expectedRunSeconds(), job.reservation());
        Snapshot alone = s.toBuilder().now(Math.max(s.now(), job.eligibleFrom())).running(new ArrayList<>())
                .pending(new ArrayList<>(List.of(unhurried))).reservations(List.of()).build();
        return !new Engine().plan(alone).starts().isEmpty();
    }

    private static void claim(Map<String, List<long[]>> claims, String node, long from, long to, long cpus, long mem,
            long gpus) {
        claims.computeIfAbsent(node, k -> new ArrayList<>()).add(new long[] {from, to, cpus, mem, gpus});
    }
}
