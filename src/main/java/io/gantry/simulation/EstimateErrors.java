package io.gantry.simulation;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How far the expected starts were from the real ones in a replay: for every job still pending
 * after the cycle that first saw it, the estimate that cycle made, against when it really started.
 * Jobs started by the cycle that first saw them count apart (their estimate was now and right).
 */
final class EstimateErrors {

    /** The first estimate of each job first seen pending; {@code NONE} when it got no estimate. */
    private final Map<Long, Long> firstEstimate = new HashMap<>();
    static final long NONE = Long.MIN_VALUE;
    private int startedAtOnce;
    private int withoutEstimate;
    private int count;
    private double sumAbsolute;
    private double sumSigned;
    private long[] absolute = new long[1024];
    private double estimateMs;

    boolean seen(long id) {
        return firstEstimate.containsKey(id);
    }

    void firstSeenPending(long id, long estimate) {
        firstEstimate.put(id, estimate);
    }

    void startedAtOnce() {
        startedAtOnce++;
    }

    void passTook(double ms) {
        estimateMs += ms;
    }

    /** A job that was first seen pending started at {@code start}. */
    void started(long id, long start) {
        Long estimate = firstEstimate.remove(id);
        if (estimate == null) {
            return;
        }
        if (estimate == NONE) {
            withoutEstimate++;
            return;
        }
        long error = start - estimate;
        if (count == absolute.length) {
            absolute = Arrays.copyOf(absolute, count * 2);
        }
        absolute[count++] = Math.abs(error);
        sumAbsolute += Math.abs(error);
        sumSigned += error;
    }

    /**
     * {@code estimated_jobs}: jobs first seen pending with an estimate; {@code estimate_mae_s} and
     * {@code estimate_median_ae_s}: mean and median absolute error; {@code estimate_bias_s}: mean of
     * actual minus estimated start (negative: jobs start sooner than estimated, as limits overstate runs).
     */
    String line() {
        long[] sorted = Arrays.copyOf(absolute, count);
        Arrays.sort(sorted);
        double median = count == 0 ? 0 : count % 2 == 1 ? sorted[count / 2]
                : (sorted[count / 2 - 1] + sorted[count / 2]) / 2.0;
        return String.format(Locale.ROOT, "estimated_jobs=%d estimate_mae_s=%.1f estimate_median_ae_s=%.1f"
                + " estimate_bias_s=%.1f without_estimate=%d started_at_once=%d estimate_ms=%.1f", count,
                count == 0 ? 0 : sumAbsolute / count, median, count == 0 ? 0 : sumSigned / count, withoutEstimate,
                startedAtOnce, estimateMs);
    }
}
