package io.gantry.engine;

import static io.gantry.engine.EngineFixtures.aCluster;
import static io.gantry.engine.EngineFixtures.aJob;
import static io.gantry.engine.EngineFixtures.nodeName;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * Node lists over thousands of seeded random snapshots ({@link RandomSnapshots#withNodeLists}): no
 * job ever starts on, or reserves, a node it excludes; a nodelist job only lands where its
 * partition, features and exclusions allow, and always on every node it lists; a nodelist job
 * whose node is busy waits with ReqNodeNotAvail, and starts on it once it is free. Every other
 * invariant of {@link Invariants} holds too.
 */
class NodelistPropertyTests {

    private static final int SNAPSHOTS = 3000;

    @Test
    void no_job_lands_on_an_excluded_node_and_every_nodelist_job_lands_on_all_its_nodes() {
        int started = 0;
        for (long seed = 0; seed < SNAPSHOTS; seed++) {
            Snapshot s = RandomSnapshots.withNodeLists(seed);
            Plan plan;
            try {
                plan = new Engine().plan(s);
                Invariants.check(s, plan);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
            }
            for (Start st : plan.starts()) {
                PendingJob job = s.pending().stream().filter(j -> j.id().equals(st.job())).findFirst().orElseThrow();
                Request r = job.request();
                if (r.exclude() != null) {
                    assertThat(st.nodeNames()).as("seed %d job %s", seed, job.id())
                            .doesNotContainAnyElementsOf(Hostlist.parse(r.exclude()).hosts());
                }
                if (r.nodelist() != null) {
                    assertThat(st.nodeNames()).as("seed %d job %s", seed, job.id())
                            .containsAll(Hostlist.parse(r.nodelist()).hosts());
                    started++;
                }
            }
        }
        // The generator must really exercise started nodelist jobs, not only waiting ones.
        assertThat(started).isGreaterThan(200);
    }

    @Test
    void the_same_snapshot_with_node_lists_gives_the_same_plan() {
        Engine used = new Engine();
        for (long seed = 0; seed < 200; seed++) {
            Snapshot s = RandomSnapshots.withNodeLists(seed);
            Plan first = used.plan(s);
            assertThat(new Engine().plan(s)).as("seed %d", seed).isEqualTo(first);
            assertThat(used.plan(s)).as("seed %d", seed).isEqualTo(first);
        }
    }

    @Test
    void a_nodelist_job_whose_node_is_busy_waits_with_req_node_not_avail_until_it_frees() {
        LongStream.range(0, 1000).forEach(seed -> {
            SplittableRandom r = new SplittableRandom(seed);
            int nodes = 1 + r.nextInt(12);
            int gpus = r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(8);
            int cpus = 1 + r.nextInt(64);
            int busy = r.nextInt(nodes);
            long end = 1_000_000 + 60 + r.nextInt(100_000);
            List<Integer> all = new ArrayList<>();
            for (int g = 0; g < gpus; g++) {
                all.add(g);
            }
            // Either the node is full, or what is left on it is too little for the job.
            boolean full = r.nextBoolean() || gpus == 0 || cpus < 2;
            int taken = full ? cpus : cpus - 1;
            EngineFixtures.JobBuilder job = aJob().nodelist(nodeName(busy));
            if (full) {
                job.tasks(1 + r.nextInt(cpus));
            } else {
                job.tasks(2);
            }
            if (gpus > 0 && r.nextBoolean()) {
                job.gpus(1 + r.nextInt(gpus));
            }
            var scenario = aCluster().nodes(nodes).cpusPerNode(cpus).gpusPerNode(gpus).scenario()
                    .runningOn(busy, taken, 0, full ? all : List.of(), end).with(job);
            Snapshot s = scenario.snapshot();
            Plan plan = scenario.plan();
            Waiting w = plan.waiting(job.id()).orElseThrow(() -> new AssertionError("seed " + seed + " started"));
            assertThat(w.reason()).as("seed %d", seed).isEqualTo(PendingReason.REQ_NODE_NOT_AVAIL);
            assertThat(w.expectedStart()).as("seed %d", seed).hasValue(end);
            assertThat(w.reservedNodes()).as("seed %d", seed).contains(nodeName(busy));

            // Once the running job ends, the job starts on the node it named.
            Snapshot later = s.toBuilder().now(end).running(List.of()).build();
            Plan next = new Engine().plan(later);
            Invariants.check(later, next);
            assertThat(next.starts()).as("seed %d", seed).singleElement()
                    .satisfies(st -> assertThat(st.nodeNames()).contains(nodeName(busy)));
        });
    }
}
