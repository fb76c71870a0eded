package io.gantry.fleet;

import java.util.List;

import io.gantry.noded.protocol.AgentProtocol.GpuSample;
import io.gantry.noded.protocol.AgentProtocol.Registration;
import io.gantry.api.GantryException;

/**
 * The bounds a poll's GPU readings are held to before any is stored: a bad one refuses the poll (400
 * naming {@code gpuSamples[i].field}), as a registration's bad field does, since only a broken or
 * dishonest agent sends one.
 */
final class GpuSampleBounds {

    /** A reading stands for at most a day: an agent samples every few seconds. */
    static final double MAX_SECONDS = 86_400;

    private GpuSampleBounds() {
    }

    static void check(List<GpuSample> samples) {
        if (samples == null) {
            return;
        }
        if (samples.size() > GpuSample.MAX_PER_POLL) {
            throw GantryException.badRequest("gpuSamples", "holds " + samples.size() + " readings; at most "
                    + GpuSample.MAX_PER_POLL + " are allowed");
        }
        for (int i = 0; i < samples.size(); i++) {
            GpuSample s = samples.get(i);
            String at = "gpuSamples[" + i + "]";
            if (s == null) {
                throw GantryException.badRequest(at, "is null");
            }
            if (s.time() == null) {
                throw GantryException.badRequest(at + ".time", "is required");
            }
            if (s.index() < 0 || s.index() > Registration.MAX_GPU_INDEX) {
                throw GantryException.badRequest(at + ".index", "must be 0 to " + Registration.MAX_GPU_INDEX);
            }
            if (s.uuid() != null && s.uuid().length() > Registration.MAX_TEXT) {
                throw GantryException.badRequest(at + ".uuid", "is longer than " + Registration.MAX_TEXT);
            }
            if (s.jobId() != null && !s.jobId().matches("\\d{1,18}(_\\d{1,9})?")) {
                throw GantryException.badRequest(at + ".jobId", "is not a job id (42, or 42_7)");
            }
            if (!(s.seconds() >= 0 && s.seconds() <= MAX_SECONDS)) {
                throw GantryException.badRequest(at + ".seconds", "must be 0 to " + (long) MAX_SECONDS);
            }
            range(at + ".utilization", s.utilization(), 100);
            range(at + ".powerWatts", s.powerWatts(), 100_000);
            range(at + ".temperatureC", s.temperatureC(), 1_000);
            range(at + ".memoryUsedMb", s.memoryUsedMb() == null ? null : s.memoryUsedMb().doubleValue(), 1L << 30);
            range(at + ".memoryTotalMb", s.memoryTotalMb() == null ? null : s.memoryTotalMb().doubleValue(), 1L << 30);
        }
    }

    private static void range(String field, Double value, double max) {
        if (value != null && !(value >= 0 && value <= max)) {
            throw GantryException.badRequest(field, "must be 0 to " + (long) max);
        }
    }
}
