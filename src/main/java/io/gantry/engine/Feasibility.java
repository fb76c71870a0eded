package io.gantry.engine;

/**
 * Whether a request could ever run in a partition, were the partition empty and all its nodes up.
 * When not, {@code reason} and {@code message} say why, for the submit path to reject it.
 */
public record Feasibility(boolean fits, PendingReason reason, String message) {

    public static final Feasibility FITS = new Feasibility(true, PendingReason.NONE, "fits");

    public static Feasibility never(PendingReason reason, String message) {
        return new Feasibility(false, reason, message);
    }
}
