package io.gantry.cluster;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Each partition's state and QOS as the store has them, read in one plain SELECT and kept for submissions and
 * the scheduler alike, so that a partition refusing a submission is the partition the engine sees. Submissions
 * ask on every request, so the rows are kept for {@link #MAX_AGE_NANOS}; when they run out one caller reads
 * them again while the others answer from the last read (under load every request in flight used to miss at
 * once and each read the table). A change made on this controller ({@link #changed()}, after its commit) makes
 * the next caller read again; the engine's view, kept until a change, is built only from a read made after the
 * last one ({@link #fresh()}).
 */
final class PartitionStates {

    /** How long submissions answer from one read: a change made on another controller shows within it. */
    static final long MAX_AGE_NANOS = 1_000_000_000L;

    /** A partition's state and its partition QOS (null for none), as stored. */
    record Row(PartitionState state, String qos) {
    }

    /** Rows by partition name; {@code generation} is {@link #changed()}'s count when the read began. */
    private record Read(Map<String, Row> rows, long generation, long readAt) {
    }

    private final Supplier<Map<String, Row>> store;
    private final LongSupplier nanoTime;
    private final AtomicReference<Read> last = new AtomicReference<>();
    private final AtomicLong generation = new AtomicLong();
    private final AtomicBoolean reading = new AtomicBoolean();

    PartitionStates(Supplier<Map<String, Row>> store, LongSupplier nanoTime) {
        this.store = store;
        this.nanoTime = nanoTime;
    }

    /** The rows of {@code SELECT name, state, qos FROM partitions}. */
    static Map<String, Row> select(org.springframework.jdbc.core.simple.JdbcClient jdbc) {
        Map<String, Row> rows = new HashMap<>();
        jdbc.sql("SELECT name, state, qos FROM partitions").query((rs, i) -> rows.put(rs.getString(1),
                new Row(PartitionState.valueOf(rs.getString(2)), rs.getString(3)))).list();
        return Map.copyOf(rows);
    }

    /** A partition was changed and the change committed: the next caller reads the rows again. */
    void changed() {
        generation.incrementAndGet();
    }

    /**
     * The rows, at most {@link #MAX_AGE_NANOS} old and read after this controller's last change, unless another
     * caller is reading them right now: then the last read (before the first read, each caller reads).
     */
    Map<String, Row> current() {
        Read read = last.get();
        if (read == null) {
            return read().rows();
        }
        if (upToDate(read) || !reading.compareAndSet(false, true)) {
            return read.rows();
        }
        try {
            return read().rows();
        } finally {
            reading.set(false);
        }
    }

    /**
     * As {@link #current()}, but never a read made before this controller's last change, even while another
     * caller reads: what a view kept until the next change (the engine's) is built from.
     */
    Map<String, Row> fresh() {
        Read read = last.get();
        return read == null || read.generation() != generation.get() ? read().rows() : current();
    }

    private boolean upToDate(Read read) {
        return read.generation() == generation.get() && nanoTime.getAsLong() - read.readAt() <= MAX_AGE_NANOS;
    }

    private Read read() {
        long started = generation.get();
        long at = nanoTime.getAsLong();
        Read read = new Read(store.get(), started, at);
        // Two reads may overlap (fresh() does not wait for current()'s): the one begun later is kept.
        last.accumulateAndGet(read, (kept, made) -> kept == null || made.generation() > kept.generation()
                || made.generation() == kept.generation() && made.readAt() - kept.readAt() >= 0 ? made : kept);
        return read;
    }
}
