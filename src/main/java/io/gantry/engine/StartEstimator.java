package io.gantry.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Expected starts for every pending job, computed after a plan and off the start path (as
 * Slurm's backfill estimates that {@code squeue --start} shows). The profile is the plan's: running
 * jobs end at their time limits, the plan's starts run to theirs, its reservations are held and
 * advance reservations are kept clear. Jobs are then walked in the plan's priority order (jobs the
 * plan did not see, such as those waiting for their begin time, after them, earliest eligible
 * first); each gets the earliest time it fits for its whole limit and is placed there, so that
 * later jobs queue behind it (a job of an advance reservation on its nodes, from its start; a job
 * alike one placed before it from that one's start). A job that cannot be placed says why (held,
 * dependency, limit, never fits).
 *
 * <p>A budget of jobs and time keeps a queue of 100,000 within what the controller can spend. A pass
 * given the one before it goes on where that one stopped: half of the budget goes to the jobs at
 * the head of the queue, the rest to the jobs from where the last pass stopped searching; every
 * other job keeps the nodes an earlier pass found for it, at the first time from its earlier one
 * on that they can all take it once the jobs ahead of it are placed. A job no pass has searched for
 * yet, or whose nodes can no longer take it, gets a rough time from the summed free resources of the
 * nodes it may use ({@link RoughStarts}; {@link StartEstimate#rough()}), so every job that can run has
 * a time after every pass, and each is searched for exactly as the search comes round, the head of the
 * queue at every pass.
 *
 * <p>Pure and deterministic for a given snapshot, plan and earlier pass when the budget has no time limit.
 */
public final class StartEstimator {

    /** A job to estimate and what the plan said of it (null when the plan did not see it). */
    private record Entry(PendingJob job, Waiting waiting) {
    }

    /**
     * How much one pass may do: at most {@code maxJobs} searches (0: no limit) and at most
     * {@code maxNanos} of elapsed time searching (0: no limit; a time limit makes the result depend on
     * the machine). Keeping jobs where an earlier pass put them is not counted: it is linear in the jobs.
     */
    public record Budget(int maxJobs, long maxNanos) {

        public static final Budget UNLIMITED = new Budget(0, 0);

        public Budget {
            if (maxJobs < 0 || maxNanos < 0) {
                throw new IllegalArgumentException("budget must not be negative");
            }
        }
    }

    /** Limits that hold until jobs of the same user, account or QOS end (per-job limits never pass). */
    private static final Set<PendingReason> WAIT_FOR_LIMIT = EnumSet.of(PendingReason.JOB_ARRAY_TASK_LIMIT,
            PendingReason.QOS_MAX_JOBS_PER_USER_LIMIT, PendingReason.QOS_MAX_GRES_PER_USER,
            PendingReason.QOS_MAX_CPU_PER_USER_LIMIT, PendingReason.QOS_GRP_GRES, PendingReason.QOS_GRP_CPU_LIMIT,
            PendingReason.QOS_MAX_JOBS_PER_ACCOUNT, PendingReason.QOS_MAX_GRES_PER_ACCOUNT,
            PendingReason.QOS_MAX_CPU_PER_ACCOUNT, PendingReason.QOS_MAX_NODE_PER_ACCOUNT,
            PendingReason.ASSOC_MAX_JOBS_LIMIT, PendingReason.ASSOC_GRP_GRES, PendingReason.ASSOC_GRP_CPU_LIMIT,
            PendingReason.ASSOC_GRP_MEM_LIMIT, PendingReason.ASSOC_GRP_NODE_LIMIT, PendingReason.ASSOC_GRP_JOBS_LIMIT);

    private static final Set<PendingReason> NEVER = EnumSet.of(PendingReason.INVALID_QOS,
            PendingReason.QOS_MAX_WALL_DURATION_PER_JOB_LIMIT, PendingReason.QOS_MAX_GRES_PER_JOB,
            PendingReason.QOS_MAX_CPU_PER_JOB_LIMIT, PendingReason.QOS_MAX_NODE_PER_JOB_LIMIT,
            PendingReason.QOS_MIN_CPU, PendingReason.QOS_MIN_NODE, PendingReason.QOS_MIN_GRES,
            PendingReason.PARTITION_CONFIG, PendingReason.PARTITION_TIME_LIMIT, PendingReason.PARTITION_NODE_LIMIT,
            PendingReason.PARTITION_DOWN, PendingReason.BAD_CONSTRAINTS, PendingReason.DEPENDENCY_NEVER_SATISFIED,
            PendingReason.ASSOC_MAX_WALL_DURATION_PER_JOB_LIMIT, PendingReason.ASSOC_MAX_GRES_PER_JOB,
            PendingReason.ASSOC_MAX_CPU_PER_JOB_LIMIT, PendingReason.ASSOC_MAX_MEM_PER_JOB,
            PendingReason.ASSOC_MAX_NODE_PER_JOB_LIMIT, PendingReason.ASSOC_MAX_GRES_PER_NODE,
            PendingReason.ASSOC_MAX_CPU_PER_NODE, PendingReason.ASSOC_MAX_MEM_PER_NODE);

    /** What makes two jobs identical for placement: the later of them cannot start before the earlier. */
    private record Alike(Request request, List<String> partitions, long timeLimitSeconds) {
    }

    private final Snapshot snapshot;
    private final Cluster cluster;
    private final Budget budget;
    private final Search search;
    private final boolean rough;

    /** How each job's earliest start is searched for. */
    enum Search {
        /** Every node's whole profile for every job: exact, and slow on many nodes. */
        EVERY_NODE,
        /**
         * Only the nodes a {@link FreeIndex} names: the same estimates as {@link #EVERY_NODE}. On the
         * bench's 12,500 nodes it saved nothing measurable (BENCHMARKS.md): the nodes the index
         * cannot rule out are most of them, so it is not the default.
         */
        INDEX_EXACT,
        /**
         * Nodes in order of a lower bound on their earliest start ({@link EarliestNodes}, one per class of
         * alike shapes), read only until no node left could start sooner: the same estimates as
         * {@link #EVERY_NODE}, reading a few nodes per job instead of all of them.
         */
        BY_EARLIEST
    }

    StartEstimator(Snapshot snapshot, Cluster cluster, Budget budget) {
        this(snapshot, cluster, budget, Search.BY_EARLIEST);
    }

    StartEstimator(Snapshot snapshot, Cluster cluster, Budget budget, Search search) {
        this(snapshot, cluster, budget, search, true);
    }

    /** With {@code rough} false, jobs past the budget get no time ({@link StartEstimate.Missing#OVER_BUDGET}): for tests. */
    StartEstimator(Snapshot snapshot, Cluster cluster, Budget budget, Search search, boolean rough) {
        this.snapshot = snapshot;
        this.cluster = cluster;
        this.budget = budget;
        this.search = search;
        this.rough = rough;
    }

    StartEstimates run(Plan plan) {
        return run(plan, null);
    }

    /** A pass that goes on where {@code earlier} (a pass over an older snapshot, or null) stopped. */
    StartEstimates run(Plan plan, StartEstimates earlier) {
        long begin = System.nanoTime();
        Map<JobId, StartEstimate> before = earlier == null ? Map.of() : earlier.byJob();
        int resumeAt = earlier == null ? 0 : earlier.resumeAt();
        ResourceProfile profile = new ResourceProfile(snapshot, cluster);
        profile.replay(plan);
        Map<JobId, PendingJob> byId = new HashMap<>(snapshot.pending().size() * 2);
        for (PendingJob job : snapshot.pending()) {
            byId.put(job.id(), job);
        }
        for (Waiting w : plan.waiting()) {
            if (w.reserved()) {
                profile.replayReservation(byId.get(w.job()), w);
            }
        }
        if (search == Search.INDEX_EXACT) {
            profile.indexFreeNodes();
        } else if (search == Search.BY_EARLIEST) {
            profile.orderNodesByEarliest();
        }
        Map<Alike, Long> lastOfAlike = new HashMap<>();
        Map<Alike, Long> lastRoughOfAlike = new HashMap<>();
        List<StartEstimate> out = new ArrayList<>(snapshot.pending().size());
        Set<JobId> seen = new HashSet<>();
        for (Start s : plan.starts()) {
            seen.add(s.job());
        }
        int placed = 0;
        boolean cutShort = false;
        List<Entry> order = new ArrayList<>(snapshot.pending().size());
        for (Waiting w : plan.waiting()) {
            if (seen.add(w.job()) && byId.containsKey(w.job())) {
                order.add(new Entry(byId.get(w.job()), w));
            }
        }
        List<PendingJob> unplanned = new ArrayList<>();
        for (PendingJob job : snapshot.pending()) {
            if (!seen.contains(job.id())) {
                unplanned.add(job);
            }
        }
        unplanned.sort(Comparator.comparingLong(PendingJob::eligibleFrom).thenComparing(PendingJob::id));
        for (PendingJob job : unplanned) {
            order.add(new Entry(job, null));
        }
        // After half the budget the search jumps from the head of the queue to where the last pass stopped.
        long halfNanos = budget.maxNanos() / 2;
        int halfJobs = (budget.maxJobs() + 1) / 2;
        boolean jumped = false;
        boolean reordered = false;
        int nextResume = 0;
        int carried = 0;
        // Keeping earlier jobs' places costs little and is not charged to the budget: it is for the search.
        long carryNanos = 0;
        for (int position = 0; position < order.size(); position++) {
            Entry entry = order.get(position);
            PendingJob job = entry.job();
            Waiting w = entry.waiting();
            if (w != null && w.reserved()) {
                out.add(StartEstimate.at(job.id(), w.expectedStart().getAsLong(), w.partition(), w.reservedNodes()));
                continue;
            }
            StartEstimate.Missing why = missing(job, w == null ? job.heldBy() : w.reason());
            if (why != null) {
                out.add(StartEstimate.none(job.id(), why));
                continue;
            }
            long elapsed = System.nanoTime() - begin - carryNanos;
            if (!cutShort && ((budget.maxJobs() > 0 && placed >= budget.maxJobs())
                    || (budget.maxNanos() > 0 && elapsed >= budget.maxNanos()))) {
                cutShort = true;
                nextResume = jumped && position < resumeAt ? resumeAt : position;
            }
            if (!jumped && !cutShort && position < resumeAt && ((budget.maxJobs() > 0 && placed >= halfJobs)
                    || (budget.maxNanos() > 0 && elapsed >= halfNanos))) {
                jumped = true;
            }
            if (cutShort || (jumped && position < resumeAt)) {
                long carryBegin = System.nanoTime();
                StartEstimate old = before.get(job.id());
                ResourceProfile.Placed again = old == null || old.start().isEmpty() ? null
                        : profile.placeAgain(job, old.start().getAsLong(), old.partition(), old.nodes());
                Alike alike = new Alike(job.request(), job.partitions(), job.timeLimitSeconds());
                if (again != null) {
                    carried++;
                    // A job alike it and further down the queue must still not start first. (Not so for a
                    // rough time: the profile does not hold it, and it may be later than the exact one.)
                    lastOfAlike.merge(alike, again.start(), Math::max);
                } else if (rough) {
                    // No search for it in this pass: a rough time from the summed free resources of its nodes.
                    // The sums only fill, so it starts no earlier than a rough one alike it placed before.
                    long floor = Math.max(job.eligibleFrom(), Math.max(lastOfAlike.getOrDefault(alike, 0L),
                            lastRoughOfAlike.getOrDefault(alike, 0L)));
                    again = profile.placeRough(job, floor);
                    if (again != null) {
                        lastRoughOfAlike.merge(alike, again.start(), Math::max);
                    }
                }
                if (again != null) {
                    out.add(StartEstimate.at(job.id(), again.start(), again.partition(), again.nodes()));
                } else {
                    out.add(StartEstimate.none(job.id(), StartEstimate.Missing.OVER_BUDGET));
                }
                carryNanos += System.nanoTime() - carryBegin;
                continue;
            }
            if (jumped && !reordered && position >= resumeAt) {
                // Jobs kept in place since the nodes were ordered filled the profile: order them again at once.
                reordered = true;
                profile.reorderNodesByEarliest();
            }
            placed++;
            // The profile only fills, so a job like one placed before it fits no earlier than that one.
            Alike alike = new Alike(job.request(), job.partitions(), job.timeLimitSeconds());
            Long floor = lastOfAlike.get(alike);
            ResourceProfile.Placed at = profile.placeEarliest(job, floor == null ? job.eligibleFrom()
                    : Math.max(job.eligibleFrom(), floor));
            if (at != null) {
                lastOfAlike.merge(alike, at.start(), Math::max);
            }
            out.add(at != null ? StartEstimate.at(job.id(), at.start(), at.partition(), at.nodes())
                    : StartEstimate.none(job.id(), StartEstimate.Missing.NEVER_FITS));
        }
        // Jobs skipped on the way to where the last pass stopped are searched for when the search comes round again.
        return new StartEstimates(snapshot.now(), out, cutShort || jumped, System.nanoTime() - begin, carried,
                cutShort ? nextResume : 0);
    }

    /** Why a job waiting for {@code reason} gets no estimate at all; null when it should be placed. */
    static StartEstimate.Missing missing(PendingJob job, PendingReason reason) {
        PendingReason held = job.heldBy() == null || job.heldBy() == PendingReason.NONE ? null : job.heldBy();
        PendingReason r = held != null ? held : reason;
        if (r == null) {
            return null;
        }
        if (r == PendingReason.DEPENDENCY) {
            return StartEstimate.Missing.DEPENDENCY;
        }
        if (NEVER.contains(r)) {
            return StartEstimate.Missing.NEVER_FITS;
        }
        if (WAIT_FOR_LIMIT.contains(r)) {
            return StartEstimate.Missing.LIMIT;
        }
        if (held != null) {
            return StartEstimate.Missing.HELD;
        }
        return null;
    }
}
