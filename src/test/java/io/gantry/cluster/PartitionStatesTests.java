package io.gantry.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

/** The partition states submissions and the scheduler share: how long a read is kept, and who reads again. */
class PartitionStatesTests {

    private static final Map<String, PartitionStates.Row> UP = Map.of("gpu", new PartitionStates.Row(PartitionState.UP, null));
    private static final Map<String, PartitionStates.Row> DRAIN =
            Map.of("gpu", new PartitionStates.Row(PartitionState.DRAIN, "gpu-part"));

    private final AtomicLong nanos = new AtomicLong(1);
    private final AtomicReference<Map<String, PartitionStates.Row>> stored = new AtomicReference<>(UP);
    private final AtomicInteger reads = new AtomicInteger();
    private final PartitionStates states = new PartitionStates(() -> {
        reads.incrementAndGet();
        return stored.get();
    }, nanos::get);

    @Test
    void aReadIsKeptForASecondThenReadAgain() {
        assertThat(states.current()).isEqualTo(UP);
        stored.set(DRAIN);
        nanos.addAndGet(PartitionStates.MAX_AGE_NANOS);
        assertThat(states.current()).isEqualTo(UP);
        assertThat(states.fresh()).isEqualTo(UP);
        assertThat(reads).hasValue(1);

        nanos.incrementAndGet();
        assertThat(states.current()).isEqualTo(DRAIN);
        assertThat(reads).hasValue(2);
    }

    @Test
    void aChangeOnThisControllerIsReadByTheNextCallerWithinTheSecond() {
        states.current();
        stored.set(DRAIN);
        states.changed();
        assertThat(states.current()).isEqualTo(DRAIN);
        assertThat(states.fresh()).isEqualTo(DRAIN);
        assertThat(reads).hasValue(2);
    }

    @Test
    void whileOneCallerReadsTheOthersAnswerFromTheLastRead() throws Exception {
        Blocking store = new Blocking(stored::get);
        PartitionStates shared = new PartitionStates(store, nanos::get);
        store.pass.countDown();
        shared.current();
        store.pass = new CountDownLatch(1);
        stored.set(DRAIN);
        shared.changed();

        CompletableFuture<Map<String, PartitionStates.Row>> reader = CompletableFuture.supplyAsync(shared::current);
        assertThat(store.entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(shared.current()).isEqualTo(UP);
        assertThat(store.reads).hasValue(2);

        store.pass.countDown();
        assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo(DRAIN);
        assertThat(shared.current()).isEqualTo(DRAIN);
        assertThat(store.reads).hasValue(2);
    }

    @Test
    void theEnginesViewNeverTakesAReadFromBeforeTheLastChangeEvenWhileAnotherCallerReads() throws Exception {
        Blocking store = new Blocking(stored::get);
        PartitionStates shared = new PartitionStates(store, nanos::get);
        store.pass.countDown();
        shared.current();
        CountDownLatch held = new CountDownLatch(1);
        store.pass = held;
        stored.set(DRAIN);
        shared.changed();

        CompletableFuture<Map<String, PartitionStates.Row>> reader = CompletableFuture.supplyAsync(shared::current);
        assertThat(store.entered.await(10, TimeUnit.SECONDS)).isTrue();
        store.pass = new CountDownLatch(0);
        assertThat(shared.fresh()).isEqualTo(DRAIN);
        assertThat(store.reads).hasValue(3);

        held.countDown();
        assertThat(reader.get(10, TimeUnit.SECONDS)).isEqualTo(DRAIN);
    }

    @Test
    void aFailedReadIsTriedAgainByTheNextCaller() {
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        PartitionStates flaky = new PartitionStates(() -> {
            if (failure.get() != null) {
                throw failure.get();
            }
            return stored.get();
        }, nanos::get);
        flaky.current();
        flaky.changed();
        failure.set(new IllegalStateException("connection refused"));
        assertThatThrownBy(flaky::current).hasMessage("connection refused");

        failure.set(null);
        stored.set(DRAIN);
        assertThat(flaky.current()).isEqualTo(DRAIN);
    }

    /** A store whose reads wait for {@link #pass} as it was when they began, saying when one has begun. */
    private static final class Blocking implements Supplier<Map<String, PartitionStates.Row>> {
        private final Supplier<Map<String, PartitionStates.Row>> rows;
        final AtomicInteger reads = new AtomicInteger();
        final CountDownLatch entered = new CountDownLatch(2);
        volatile CountDownLatch pass = new CountDownLatch(1);

        Blocking(Supplier<Map<String, PartitionStates.Row>> rows) {
            this.rows = rows;
        }

        @Override
        public Map<String, PartitionStates.Row> get() {
            CountDownLatch gate = pass;
            reads.incrementAndGet();
            entered.countDown();
            try {
                if (!gate.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never let through");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return rows.get();
        }
    }
}
