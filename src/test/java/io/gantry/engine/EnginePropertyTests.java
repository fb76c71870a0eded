package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine's invariants over thousands of random snapshots (see {@link Invariants}): nothing over
 * capacity now or at any future moment of the plan, no GPU twice, no job started twice, every
 * unstarted job has a reason, same snapshot same plan, and a job's fate never depends on jobs
 * behind it in priority order (so backfilling them cannot delay it).
 */
class EnginePropertyTests {

    private static final int SNAPSHOTS = 3000;

    @Test
    void every_plan_keeps_the_invariants() {
        LongStream.range(0, SNAPSHOTS).forEach(EnginePropertyTests::checkSeed);
    }

    /** Seeds that once broke an invariant; each stays as its own case. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {0})
    void seeds_that_once_failed_keep_the_invariants(long seed) {
        checkSeed(seed);
    }

    @Test
    void the_same_snapshot_gives_the_same_plan_from_a_fresh_or_a_used_engine() {
        Engine used = new Engine();
        for (long seed = 0; seed < 500; seed++) {
            Snapshot s = RandomSnapshots.of(seed);
            Plan first = used.plan(s);
            assertThat(new Engine().plan(s)).as("seed %d", seed).isEqualTo(first);
            assertThat(used.plan(s)).as("seed %d", seed).isEqualTo(first);
        }
    }

    @Test
    void a_reserved_jobs_start_does_not_depend_on_the_jobs_behind_it() {
        Engine engine = new Engine();
        int checked = 0;
        for (long seed = 0; seed < 400; seed++) {
            Snapshot s = RandomSnapshots.of(seed);
            Plan plan = engine.plan(s);
            List<Waiting> reserved = plan.waiting().stream().filter(Waiting::reserved).toList();
            if (reserved.isEmpty()) {
                continue;
            }
            // Keep only the jobs decided before the first reserved one, and the reserved one itself.
            Waiting first = reserved.get(0);
            List<JobId> order = decisionOrder(s, plan);
            List<JobId> ahead = order.subList(0, order.indexOf(first.job()) + 1);
            List<PendingJob> kept = new ArrayList<>();
            for (PendingJob j : s.pending()) {
                if (ahead.contains(j.id())) {
                    kept.add(j);
                }
            }
            Plan alone = engine.plan(s.toBuilder().pending(kept).build());
            assertThat(alone.waiting(first.job()).orElseThrow().expectedStart()).as("seed %d", seed)
                    .isEqualTo(first.expectedStart());
            checked++;
        }
        assertThat(checked).isGreaterThan(30);
    }

    /** The order the engine decides jobs in: partition tier, priority, submit time, job id. */
    private static List<JobId> decisionOrder(Snapshot s, Plan plan) {
        java.util.Map<JobId, Long> value = new java.util.HashMap<>();
        plan.starts().forEach(st -> value.put(st.job(), st.priority().value()));
        plan.waiting().forEach(w -> value.put(w.job(), w.priority().value()));
        java.util.Map<String, Integer> tiers = new java.util.HashMap<>();
        s.partitions().forEach(p -> tiers.put(p.name(), p.priorityTier()));
        return s.pending().stream()
                .sorted(java.util.Comparator
                        .comparingInt((PendingJob j) -> -j.partitions().stream().mapToInt(n -> tiers.getOrDefault(n, 0))
                                .max().orElse(0))
                        .thenComparingLong(j -> -value.get(j.id()))
                        .thenComparingLong(PendingJob::submitTime)
                        .thenComparing(PendingJob::id))
                .map(PendingJob::id).toList();
    }

    private static void checkSeed(long seed) {
        Snapshot s = RandomSnapshots.of(seed);
        Plan plan;
        try {
            plan = new Engine().plan(s);
            Invariants.check(s, plan);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
        }
    }
}
