package io.gantry.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Run-time predictions (EASY++) and selective reservations over thousands of random snapshots whose
 * predictions are often wrong: too short, too long, already outlived. Whatever they are, every start
 * (held to its time limit, not its guess), every running job (held to the end the engine planned
 * for it) and every reservation fit together at every moment, so no backfilled job can delay a
 * reservation; and a prediction acts only as an earlier end of the job it was made for. Full
 * EASY++ (backfill on guesses, {@code predict=2}) keeps this only while the guesses hold.
 */
class PredictionPropertyTests {

    /** Policies that keep every reservation safe from backfill. */
    private static final String[] POLICIES = {
        "easy:predict=1",
        "default:predict=1",
        "default:predict=1,depth=0,adaptive=1",
        "default:predict=1,depth=0,slowdown=3",
        "easy:predict=1,depth=2,slowdown=5,adaptive=1",
        "default:depth=0,adaptive=1",
    };

    /** Full EASY++: backfill on guesses, safe only as long as they hold. */
    private static final String[] BACKFILL_ON_GUESSES = {
        "easy:predict=2",
        "default:predict=2",
        "default:predict=2,depth=0,adaptive=1",
    };

    @Test
    void backfill_never_collides_with_a_reservation_however_wrong_the_predictions() {
        checkPlans(POLICIES);
    }

    /**
     * With backfill on guesses the plan is consistent only as long as they hold: the invariants are
     * checked with each start held until its guess (see {@link Invariants}).
     */
    @Test
    void backfill_on_guesses_collides_with_no_reservation_while_the_guesses_hold() {
        checkPlans(BACKFILL_ON_GUESSES);
    }

    private static void checkPlans(String[] policies) {
        Engine engine = new Engine();
        int reserved = 0;
        int backfilledBesideReservation = 0;
        for (long seed = 0; seed < 2000; seed++) {
            Snapshot s = withPredictions(seed, policies);
            Plan plan = engine.plan(s);
            Invariants.check(s, plan);
            boolean anyReserved = plan.waiting().stream().anyMatch(Waiting::reserved);
            reserved += anyReserved ? 1 : 0;
            if (anyReserved && plan.starts().stream().anyMatch(Start::backfilled)) {
                backfilledBesideReservation++;
            }
        }
        // The check above must have had something to check.
        assertThat(reserved).isGreaterThan(300);
        assertThat(backfilledBesideReservation).isGreaterThan(50);
    }

    @Test
    void a_prediction_changes_the_plan_only_as_an_earlier_end_of_its_running_job() {
        Engine engine = new Engine();
        for (long seed = 0; seed < 1000; seed++) {
            Snapshot s = withPredictions(seed, POLICIES);
            Plan predicted = engine.plan(s);
            Policy p = s.policy();
            Snapshot planned = asPlanned(s).toBuilder().policy(new Policy(p.name(), p.weights(), p.backfill(),
                    p.reservationDepth(), p.starvationSeconds(), false, false, p.reserveSlowdown(),
                    p.adaptiveReservations())).build();
            assertThat(engine.plan(planned)).as("seed %d", seed).isEqualTo(predicted);
        }
    }

    @Test
    void the_same_snapshot_gives_the_same_plan() {
        for (long seed = 0; seed < 300; seed++) {
            Snapshot s = withPredictions(seed, seed % 2 == 0 ? POLICIES : BACKFILL_ON_GUESSES);
            assertThat(new Engine().plan(s)).as("seed %d", seed).isEqualTo(new Engine().plan(s));
        }
    }

    /**
     * {@link RandomSnapshots#of} with predicted ends on running jobs (none, outlived, before the limit,
     * past it), run-time guesses on pending jobs (often wrong), and a predicting or selective policy.
     */
    static Snapshot withPredictions(long seed, String[] policies) {
        Snapshot s = RandomSnapshots.of(seed);
        SplittableRandom r = new SplittableRandom(seed * 31 + 7);
        long now = s.now();
        List<RunningJob> running = new ArrayList<>();
        for (RunningJob j : s.running()) {
            long predicted = switch (r.nextInt(4)) {
                case 0 -> 0;
                case 1 -> Math.max(1, now - r.nextInt(500));
                case 2 -> now + 1 + r.nextLong(Math.max(1, j.expectedEnd() - now));
                default -> j.expectedEnd() + r.nextInt(5000);
            };
            running.add(new RunningJob(j.id(), j.user(), j.account(), j.qos(), j.partition(), j.allocation(),
                    j.startTime(), j.expectedEnd(), predicted));
        }
        List<PendingJob> pending = new ArrayList<>();
        for (PendingJob j : s.pending()) {
            long guess = r.nextInt(3) == 0 ? 0 : 1 + r.nextLong(2 * j.timeLimitSeconds());
            pending.add(new PendingJob(j.id(), j.user(), j.account(), j.qos(), j.partitions(), j.request(),
                    j.timeLimitSeconds(), j.submitTime(), j.eligibleTime(), j.nice(), j.heldBy(), guess,
                    j.reservation()));
        }
        return s.toBuilder().running(running).pending(pending).policy(Policy.named(policies[r.nextInt(policies.length)]))
                .build();
    }

    /** The snapshot with each running job's time limit replaced by the end the engine plans it to. */
    static Snapshot asPlanned(Snapshot s) {
        List<RunningJob> running = new ArrayList<>();
        for (RunningJob j : s.running()) {
            running.add(new RunningJob(j.id(), j.user(), j.account(), j.qos(), j.partition(), j.allocation(),
                    j.startTime(), j.plannedEnd(s.now(), s.policy().predictRunning())));
        }
        return s.toBuilder().running(running).build();
    }
}
