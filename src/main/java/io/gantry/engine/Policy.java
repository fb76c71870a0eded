package io.gantry.engine;

/**
 * How the engine schedules: priority weights, whether lower-priority jobs may backfill, and how
 * many blocked jobs per partition get a reservation (1 = EASY; {@link Integer#MAX_VALUE} =
 * conservative backfill). A job eligible for longer than {@code starvationSeconds} (0 = never)
 * goes ahead of every job of its partition tier that has not waited as long, oldest first, so that
 * favouring short jobs cannot starve long or big ones: it gets a reservation and backfill must
 * respect it.
 *
 * <p>{@code predictRunning} (EASY++, Tsafrir et al. 2007): the profile frees a running job's
 * resources at its predicted end ({@link RunningJob#predictedEnd()}) instead of at its time limit,
 * so reservations are placed where the machine will most likely be free rather than at the
 * worst case. A job still running at its predicted end is taken to run to its limit from then on
 * (the prediction is extended), so a wrong prediction only makes a reservation later, never
 * unsafe. Backfill is still checked against reservations with each candidate's time limit, so a
 * backfilled job can never delay a reservation, however wrong its own prediction.
 *
 * <p>{@code predictBackfill} (Tsafrir's full EASY++; implies {@code predictRunning}): a job with a
 * run-time guess below its limit is also fitted, and held in this pass's profile, until its
 * predicted end, so it may backfill into a hole its limit would not fit. This gives up the
 * guarantee above: a backfilled job that outlives its guess can delay a reservation (by at most
 * its overrun, and the next pass plans it to its limit). Its start still carries its time limit.
 *
 * <p>{@code reserveSlowdown} (selective reservations, Srinivasan et al. 2002; 0 = off): a blocked
 * job whose bounded slowdown so far ({@code (wait + run estimate) / max(run estimate, 10 s)})
 * reached this threshold gets a reservation whatever the reservation depth; with
 * {@code adaptiveReservations} the threshold is instead the larger of it and the mean bounded
 * slowdown so far of all eligible pending jobs, so that only the jobs faring worse than the
 * others hold nodes back. Jobs below the threshold only get the {@code reservationDepth} ones.
 */
public record Policy(String name, PriorityWeights weights, boolean backfill, int reservationDepth,
        long starvationSeconds, boolean predictRunning, boolean predictBackfill, long reserveSlowdown,
        boolean adaptiveReservations) {

    /** The tau of bounded slowdown, in seconds: shorter jobs count as this long. */
    public static final long SLOWDOWN_TAU_SECONDS = 10;

    public Policy {
        if (reservationDepth < 0) {
            throw new IllegalArgumentException("reservation depth must not be negative");
        }
        if (starvationSeconds < 0) {
            throw new IllegalArgumentException("starvation threshold must not be negative");
        }
        if (predictBackfill && !predictRunning) {
            throw new IllegalArgumentException("backfill on predictions needs running jobs planned to theirs too");
        }
        if (reserveSlowdown < 0) {
            throw new IllegalArgumentException("reservation slowdown threshold must not be negative");
        }
    }

    /** A policy without predictions or selective reservations. */
    public Policy(String name, PriorityWeights weights, boolean backfill, int reservationDepth,
            long starvationSeconds) {
        this(name, weights, backfill, reservationDepth, starvationSeconds, false, false, 0, false);
    }

    /** A policy without a starvation threshold. */
    public Policy(String name, PriorityWeights weights, boolean backfill, int reservationDepth) {
        this(name, weights, backfill, reservationDepth, 0);
    }

    /** This policy with Slurm's PriorityWeightTRES. */
    public Policy withTresWeights(TresPriorityWeights tres) {
        return new Policy(name, weights.withTres(tres), backfill, reservationDepth, starvationSeconds, predictRunning,
                predictBackfill, reserveSlowdown, adaptiveReservations);
    }

    /** Whether blocked jobs get reservations by their slowdown as well as by depth. */
    public boolean selectiveReservations() {
        return reserveSlowdown > 0 || adaptiveReservations;
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
     * (for trying variants in the simulator); {@code predict=1} plans running jobs to their predicted
     * end, {@code predict=2} also backfills on predicted run times, {@code slowdown=N} reserves for every blocked job whose bounded slowdown reached N and
     * {@code adaptive=1} raises that threshold to the pending jobs' mean slowdown.
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
        boolean predict = base.predictRunning();
        boolean predictBackfill = base.predictBackfill();
        long slowdown = base.reserveSlowdown();
        boolean adaptive = base.adaptiveReservations();
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
                case "predict" -> {
                    if (v < 0 || v > 2) {
                        throw new IllegalArgumentException("policy setting predict must be 0, 1 or 2, not " + v);
                    }
                    predict = v >= 1;
                    predictBackfill = v == 2;
                }
                case "slowdown" -> slowdown = v;
                case "adaptive" -> adaptive = v != 0;
                default -> throw new IllegalArgumentException("unknown policy setting '" + p[0] + "'");
            }
        }
        return new Policy(spec, new PriorityWeights(age, fairShare, size, partition, qos, shortJob, expansion, maxAge,
                true), backfill, depth, starvation, predict, predictBackfill,
                slowdown, adaptive);
    }
}
