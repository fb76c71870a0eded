package io.gantry.engine;

/**
 * One account's quota figures for one GPU key ({@link Quota#ANY} for GPUs of any type, else a GPU
 * type), in GPUs: its guarantee (the root's is the configured GPUs), what its jobs and its
 * sub-accounts' jobs hold, what they borrow beyond its guarantee (at any level above it), what of
 * its own idle guarantee others borrow, and what its pending jobs ask for.
 */
public record QuotaUse(String account, String parent, String gpuType, long guaranteed, long inUse, long borrowed,
        long lent, long pendingDemand) {
}
