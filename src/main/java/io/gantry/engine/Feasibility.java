package io.gantry.engine;

/**
 * Whether a request could ever run in a partition, were the partition empty and all its nodes up.
 * When not, {@code reason} and {@code message} say why, for the submit path to reject it, and
 * {@code cause} which part of the request to change.
 */
public record Feasibility(boolean fits, PendingReason reason, String message, Cause cause) {

    public static final Feasibility FITS = new Feasibility(true, PendingReason.NONE, "fits", Cause.REQUEST);

    /** The part of a request that makes it impossible. */
    public enum Cause {
        /** Its size, shape, time limit or partition. */
        REQUEST,
        /** The nodes it must run on. */
        NODELIST,
        /** The nodes it must not run on. */
        EXCLUDE
    }

    public Feasibility(boolean fits, PendingReason reason, String message) {
        this(fits, reason, message, Cause.REQUEST);
    }

    public static Feasibility never(PendingReason reason, String message) {
        return new Feasibility(false, reason, message, Cause.REQUEST);
    }

    public static Feasibility never(PendingReason reason, String message, Cause cause) {
        return new Feasibility(false, reason, message, cause);
    }
}
