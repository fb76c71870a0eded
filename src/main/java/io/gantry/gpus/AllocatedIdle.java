package io.gantry.gpus;

/**
 * One job's allocated-but-idle GPU time in a window: GPU-seconds of readings below the idle threshold,
 * and all the GPU-seconds its readings cover, with whom it is charged to.
 */
public record AllocatedIdle(String jobId, String account, String user, String partition, double idleGpuSeconds,
        double gpuSeconds) {
}
