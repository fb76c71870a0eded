package io.gantry.engine;

/**
 * How the engine schedules: priority weights, whether lower-priority jobs may backfill, and how
 * many blocked jobs per partition get a reservation (1 = EASY; {@link Integer#MAX_VALUE} =
 * conservative backfill). A job eligible for longer than {@code starvationSeconds} (0 = never)
 * goes ahead of every job of its partition tier that has not waited as long, oldest first, so that
 * favouring short jobs cannot starve long or big ones: it gets a reservation and backfill must
 * respect it.
 */
public record Policy(String name, PriorityWeights weights, boolean backfill, int reservationDepth,
        long starvationSeconds) {

    public Policy {
        if (reservationDepth < 0) {
            throw new IllegalArgumentException("reservation depth must not be negative");
        }
        if (starvationSeconds < 0) {
            throw new IllegalArgumentException("starvation threshold must not be negative");
        }
    }

    /** A policy without a starvation threshold. */
    public Policy(String name, PriorityWeights weights, boolean backfill, int reservationDepth) {
        this(name, weights, backfill, reservationDepth, 0);
    }

    /** Strict priority order (first come, first served) and no backfill. */
    public static Policy fifo() {
        return new Policy("fifo", PriorityWeights.FIRST_COME_FIRST_SERVED, false, 1);
    }

    /** First come, first served with EASY backfill: one reservation per partition. */
    public static Policy easy() {
        return new Policy("easy", PriorityWeights.FIRST_COME_FIRST_SERVED, true, 1);
    }

    /**
     * Gantry's default: short jobs (by run-time guess, else time limit) first, balanced by age
     * that grows linearly (0.1 per second) so long and big jobs still come to the top, with EASY
     * backfill. The age factor only saturates after 115 days: once every old job's age is full,
     * short jobs overtake them again and starvation returns (on lublin_256 a 5.8-day cap let a
     * job wait 52 days). Chosen by replaying the shared traces (BENCHMARKS.md): deeper
     * reservations measured worse there.
     */
    public static Policy defaults() {
        return new Policy("default", new PriorityWeights(1_000_000, 10_000, 1_000, 10_000, 10_000, 30_000, 0,
                10_000_000, true), true, 1);
    }

    /**
     * A named policy ({@code fifo}, {@code easy}, {@code default}), or the default one with some
     * settings changed: {@code default:age=100000,short=60000,maxage=172800,depth=8,size=1000}
     * (for trying variants in the simulator).
     */
    public static Policy named(String spec) {
        int colon = spec.indexOf(':');
        String name = colon < 0 ? spec : spec.substring(0, colon);
        Policy base = switch (name) {
            case "fifo" -> fifo();
            case "easy" -> easy();
            case "default" -> defaults();
            default -> throw new IllegalArgumentException("unknown policy '" + name + "' (fifo, easy, default)");
        };
        if (colon < 0) {
            return base;
        }
        PriorityWeights w = base.weights();
        long age = w.age();
        long fairShare = w.fairShare();
        long size = w.jobSize();
        long partition = w.partition();
        long qos = w.qos();
        long shortJob = w.shortJob();
        long expansion = w.expansion();
        long maxAge = w.maxAgeSeconds();
        boolean backfill = base.backfill();
        int depth = base.reservationDepth();
        long starvation = base.starvationSeconds();
        for (String kv : spec.substring(colon + 1).split(",")) {
            String[] p = kv.split("=", 2);
            if (p.length != 2) {
                throw new IllegalArgumentException("policy setting without '=': " + kv);
            }
            long v;
            try {
                v = Long.parseLong(p[1].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("policy setting " + p[0] + " is not a number: " + p[1], e);
            }
            switch (p[0].trim()) {
                case "age" -> age = v;
                case "fairshare" -> fairShare = v;
                case "size" -> size = v;
                case "partition" -> partition = v;
                case "qos" -> qos = v;
                case "short" -> shortJob = v;
                case "expansion" -> expansion = v;
                case "maxage" -> maxAge = v;
                case "backfill" -> backfill = v != 0;
                case "depth" -> depth = (int) Math.min(Integer.MAX_VALUE, v);
                case "starvation" -> starvation = v;
                default -> throw new IllegalArgumentException("unknown policy setting '" + p[0] + "'");
            }
        }
        return new Policy(spec, new PriorityWeights(age, fairShare, size, partition, qos, shortJob, expansion, maxAge,
                true), backfill, depth, starvation);
    }
}
