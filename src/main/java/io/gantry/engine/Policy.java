package io.gantry.engine;

/**
 * How the engine schedules: priority weights, whether lower-priority jobs may backfill, and how
 * many blocked jobs per partition get a reservation (1 = EASY; {@link Integer#MAX_VALUE} =
 * conservative backfill).
 */
public record Policy(String name, PriorityWeights weights, boolean backfill, int reservationDepth) {

    public Policy {
        if (reservationDepth < 0) {
            throw new IllegalArgumentException("reservation depth must not be negative");
        }
    }

    /** Strict priority order (first come, first served) and no backfill. */
    public static Policy fifo() {
        return new Policy("fifo", PriorityWeights.FIRST_COME_FIRST_SERVED, false, 1);
    }

    /** First come, first served with EASY backfill: one reservation per partition. */
    public static Policy easy() {
        return new Policy("easy", PriorityWeights.FIRST_COME_FIRST_SERVED, true, 1);
    }

    /** Gantry's default: short jobs first, balanced by age, with reservations for several jobs. */
    public static Policy defaults() {
        return new Policy("default", new PriorityWeights(100_000, 10_000, 1_000, 10_000, 10_000, 60_000,
                2 * 86400, true), true, 8);
    }

    public static Policy named(String name) {
        return switch (name) {
            case "fifo" -> fifo();
            case "easy" -> easy();
            case "default" -> defaults();
            default -> throw new IllegalArgumentException("unknown policy '" + name + "' (fifo, easy, default)");
        };
    }
}
