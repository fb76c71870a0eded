package io.gantry.loadtest;

import java.util.Arrays;

/** Durations in nanoseconds, appended from one thread and read (summarised, merged) from another. */
final class Latencies {

    private long[] values = new long[1024];
    private int size;

    synchronized void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    synchronized int count() {
        return size;
    }

    static Latencies merge(Iterable<Latencies> parts) {
        Latencies all = new Latencies();
        for (Latencies part : parts) {
            for (long value : part.snapshot()) {
                all.add(value);
            }
        }
        return all;
    }

    private synchronized long[] snapshot() {
        return Arrays.copyOf(values, size);
    }

    /** The nearest-rank percentile (p in 0..100), in nanoseconds; 0 when empty. */
    long percentile(double p) {
        long[] sorted = snapshot();
        if (sorted.length == 0) {
            return 0;
        }
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    synchronized double mean() {
        long sum = 0;
        for (int i = 0; i < size; i++) {
            sum += values[i];
        }
        return size == 0 ? 0 : (double) sum / size;
    }

    String summary() {
        return summary("");
    }

    /** The summary with each figure's name prefixed, e.g. {@code poll_p99_ms}. */
    String summary(String prefix) {
        return prefix + "p50_ms=" + LoadTest.ms(percentile(50)) + " " + prefix + "p90_ms=" + LoadTest.ms(percentile(90))
                + " " + prefix + "p99_ms=" + LoadTest.ms(percentile(99)) + " " + prefix + "max_ms="
                + LoadTest.ms(percentile(100)) + " " + prefix + "mean_ms=" + LoadTest.ms(mean());
    }
}
