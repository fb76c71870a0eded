package io.gantry.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One planning pass over a snapshot: who goes first, and what each pending job gets, decided against
 * a {@link ResourceProfile} that says what is free when. The phases, in order:
 *
 * <ol>
 *   <li>{@link #holdRunning}: the running jobs take what they hold into the profile, and count
 *       against the limits.</li>
 *   <li>{@link QueueOrder}: partition tier, then starving jobs oldest first, then priority, then submit
 *       time, then job id; with guarantees, jobs that run within their account's guarantee come
 *       before those that would borrow ({@link #withinGuaranteeFirst}).</li>
 *   <li>Each job once, in that order ({@link #decide}):
 *     <ol type="a">
 *       <li>{@link #admit}: held, not yet eligible, outside its advance reservation, no partition
 *           it could ever run in, or refused by a limit or quota: it waits, reserving nothing.</li>
 *       <li>{@link #startNow}: it starts if it fits now without touching resources reserved for a
 *           job ahead of it (MIG instances and shards: {@link #startShared}). Once a job of a
 *           partition cannot start, the partition is blocked and later jobs there start only by
 *           backfill (or not at all without backfill).</li>
 *       <li>{@link #reclaim}: a job under its account's guarantee stops jobs that borrow it.</li>
 *       <li>{@link #preempt}: a job that may preempt others ({@link PreemptRules}) stops some and starts now.</li>
 *       <li>{@link #reserve}: the first {@code reservationDepth} blocked jobs of each partition (and
 *           starving or selected ones) get the earliest time enough nodes are free for their whole
 *           time limit, held in the profile so that nothing started later can delay them.</li>
 *     </ol>
 *   </li>
 * </ol>
 *
 * Reclaim and preemption pick their victims with one picker ({@link #pickVictims}).
 */
final class QueuePass {

    private final Snapshot snapshot;
    private final Cluster c;
    private final long now;
    private final Policy policy;
    private final ResourceProfile profile;
    private final Limits limits;
    private final BudgetBook budgets;
    private final Priorities priorities;
    private final Layouts layouts;
    private final QueueOrder order;
    private final FailedShapes failed = new FailedShapes();
    private final boolean[] blocked;
    private final int[] reservations;
    private final java.util.Set<JobId> preempted = new java.util.HashSet<>();
    private final List<Preemption> preemptions = new ArrayList<>();
    /** Guarantees, borrowing and reclaim (issue 16); inactive when no account holds a guarantee. */
    private final QuotaBook quotas;
    private final PreemptRules rules;

    /**
     * What {@link #admit} found: why the job waits ({@code refused}), or the advance reservation it
     * runs in (or null), its shapes in the partitions it may run in (highest tier first) and what it
     * asks for in the first.
     */
    private record Admission(Waiting refused, AdvanceReservation own, List<Shape> candidates, Tres tres) {

        static Admission refuse(Waiting w) {
            return new Admission(w, null, null, null);
        }
    }

    /**
     * What {@link #startNow} did: started the job ({@code charged} to its limits), or refused it for
     * its quota once placed, or neither, with the worst {@code reason} over its partitions and whether
     * it waits for fewer leaf switches.
     */
    private record Attempt(Start started, Tres charged, Waiting refused, PendingReason reason, boolean switchWait) {
    }

    /**
     * What {@link #preempt} did: started the job, or chose victims that end after their grace time
     * while the job {@code waits} for them.
     */
    private record Preempting(Start started, Waiting waits) {
    }

    /** The running jobs {@link #pickVictims} gives back, and the shape that fits without them (null: none does). */
    private record Victims(Shape fit, List<RunningJob> taken) {
    }

    QueuePass(Snapshot snapshot, Cluster cluster) {
        this.snapshot = snapshot;
        this.c = cluster;
        this.now = snapshot.now();
        this.policy = snapshot.policy();
        this.profile = new ResourceProfile(snapshot, cluster);
        this.limits = new Limits(snapshot.qos(), snapshot.associations(), snapshot.partitions());
        this.budgets = new BudgetBook(snapshot.budgets(), snapshot.running(), now, snapshot.partitions());
        this.quotas = new QuotaBook(snapshot.quotas(), snapshot.nodes(), snapshot.running(), snapshot.pending(), now);
        long oldest = now;
        for (PendingJob job : snapshot.pending()) {
            oldest = Math.min(oldest, job.eligibleFrom());
        }
        this.priorities = new Priorities(policy.weights(), now, limits, cluster, oldest);
        this.layouts = new Layouts(cluster);
        this.order = new QueueOrder(snapshot, cluster, priorities, limits, layouts);
        this.rules = new PreemptRules(snapshot, cluster, limits);
        this.blocked = new boolean[cluster.parts.length];
        this.reservations = new int[cluster.parts.length];
    }

    Plan run() {
        holdRunning();
        List<QueueOrder.Entry> order = this.order.entries();
        if (quotas.active()) {
            order = withinGuaranteeFirst(order);
        }
        List<Start> starts = new ArrayList<>();
        // Most jobs wait: sized for all, so 200,000 are not copied over and over as the list grows.
        List<Waiting> waiting = new ArrayList<>(order.size());
        for (QueueOrder.Entry e : order) {
            decide(e, starts, waiting);
        }
        return new Plan(now, starts, waiting, preemptions,
                quotas.active() ? quotas.borrowingJobs() : java.util.Set.of(),
                quotas.active() ? quotas.borrowedAt() : java.util.Map.of());
    }

    /** Phase 1: what every running job holds goes into the profile, and counts against the limits. */
    private void holdRunning() {
        profile.holdRunning();
        for (RunningJob r : snapshot.running()) {
            limits.charge(r.user(), r.account(), r.qos(), r.partition(), r.tres());
        }
    }

    /**
     * Phase 2, with guarantees: jobs that run within their account's guarantee come before those that
     * would go beyond it (as Kueue orders borrowing workloads last): what a reclaim frees goes to its owner.
     */
    private List<QueueOrder.Entry> withinGuaranteeFirst(List<QueueOrder.Entry> order) {
        List<QueueOrder.Entry> beyond = new ArrayList<>();
        List<QueueOrder.Entry> within = new ArrayList<>(order.size());
        for (QueueOrder.Entry e : order) {
            long[] asked = quotas.requested(e.job().request());
            boolean gpuless = java.util.Arrays.stream(asked).allMatch(n -> n == 0);
            (gpuless || quotas.underGuarantee(e.job().account(), asked) ? within : beyond).add(e);
        }
        within.addAll(beyond);
        return within;
    }

    /** Phase 3: the job starts, stops others, reserves, or waits, with a reason. */
    private void decide(QueueOrder.Entry e, List<Start> starts, List<Waiting> waiting) {
        PendingJob job = e.job();
        Admission admitted = admit(e);
        if (admitted.refused() != null) {
            waiting.add(admitted.refused());
            return;
        }
        AdvanceReservation own = admitted.own();
        List<Shape> candidates = admitted.candidates();
        if (job.request().sharesGpus()) {
            startShared(job, candidates, own, e.priority(), starts, waiting);
            return;
        }
        Attempt tried = startNow(e, admitted);
        if (tried.started() != null) {
            started(job, tried.started(), tried.charged(), starts);
            return;
        }
        if (tried.refused() != null) {
            waiting.add(tried.refused());
            return;
        }
        if (tried.switchWait()) {
            waiting.add(waiting(job, PendingReason.TOPOLOGY_WAIT, e.priority()));
            return;
        }
        long duration = job.timeLimitSeconds();
        long end = Math.addExact(now, duration);
        if (quotas.active() && own == null) {
            // Reclaim acts across accounts and comes before QOS preemption.
            Waiting reclaiming = reclaim(job, candidates, end, e.priority());
            if (reclaiming != null) {
                waiting.add(reclaiming);
                return;
            }
        }
        if (own == null) {
            Qos qos = limits.qos(job.qos());
            Preempting preempting = preempt(job, qos, candidates, end, e.priority());
            if (preempting != null && preempting.started() != null) {
                started(job, preempting.started(), admitted.tres(), starts);
                return;
            }
            if (preempting != null) {
                waiting.add(preempting.waits());
                return;
            }
        }
        // A job in an advance reservation waits for its nodes without holding others in the profile.
        Waiting reserved = own == null
                ? reserve(job, candidates, duration, tried.reason(), e.priority(), e.starving() || e.selected()) : null;
        waiting.add(reserved != null ? reserved : waiting(job, tried.reason(), e.priority()));
    }

    /** A start decided: it is kept, and what it holds counts against its limits and budgets from now on. */
    private void started(PendingJob job, Start start, Tres held, List<Start> starts) {
        starts.add(start);
        limits.charge(job.user(), job.account(), job.qos(), start.partition(), held);
        budgets.charge(job.account(), job.user(), job.qos(), held, start.partition(), job.timeLimitSeconds());
    }

    /** Phase 3a: whether the job may be placed at all now, and where. */
    private Admission admit(QueueOrder.Entry e) {
        PendingJob job = e.job();
        if (job.heldBy() != null && job.heldBy() != PendingReason.NONE) {
            return Admission.refuse(waiting(job, job.heldBy(), e.priority()));
        }
        if (job.eligibleFrom() > now) {
            return Admission.refuse(waiting(job, PendingReason.BEGIN_TIME, e.priority()));
        }
        AdvanceReservation own = null;
        if (job.reservation() != null) {
            own = profile.advanceReservation(job.reservation());
            if (own == null || own.start() > now || own.end() <= now) {
                return Admission.refuse(waiting(job, PendingReason.RESERVATION, e.priority()));
            }
        }
        QueueOrder.Candidates derived = e.candidates() != null ? e.candidates() : order.candidates(job);
        List<Shape> candidates = derived.shapes();
        if (candidates.isEmpty()) {
            return Admission.refuse(waiting(job, derived.firstNo(), e.priority()));
        }
        PendingReason limit = null;
        if (limits.byPartition() && candidates.size() > 1) {
            // A partition QOS holds the job only in its partition: it may run in its other partitions.
            List<Shape> allowed = new ArrayList<>(candidates.size());
            for (Shape s : candidates) {
                PendingReason refused = qosLimit(e, s);
                if (refused == null) {
                    allowed.add(s);
                } else if (limit == null) {
                    limit = refused;
                }
            }
            if (!allowed.isEmpty()) {
                candidates = allowed;
                limit = null;
            }
        } else {
            limit = qosLimit(e, candidates.get(0));
        }
        Tres tres = tresOf(candidates.get(0));
        if (limit == null) {
            limit = budgets.check(job, tres, c.parts[candidates.get(0).partition()].name());
        }
        if (limit == null && quotas.active()) {
            // Before placing it: a job its quota refuses neither starts nor reserves what others may use.
            long[] asked = quotas.requested(job.request());
            limit = quotas.refusal(job.account(), asked, quotas.classify(job.account(), asked));
        }
        if (limit != null) {
            return Admission.refuse(waiting(job, limit, e.priority()));
        }
        return new Admission(null, own, candidates, tres);
    }

    /** The first QOS or association limit the job breaks starting now in {@code shape}'s partition, or null. */
    private PendingReason qosLimit(QueueOrder.Entry e, Shape shape) {
        PendingJob job = e.job();
        String partition = c.parts[shape.partition()].name();
        Tres tres = tresOf(shape);
        PendingReason limit = limits.perJob(job.qos(), partition, job.timeLimitSeconds(), tres);
        return limit != null ? limit
                : limits.check(job, e.chain(), partition, job.timeLimitSeconds(), tres, perNode(shape));
    }

    /**
     * Phase 3b: starts the job now in the first of its partitions (highest tier first) where it fits
     * without touching what is reserved for jobs ahead of it, or says why it does not.
     */
    private Attempt startNow(QueueOrder.Entry e, Admission admitted) {
        PendingJob job = e.job();
        AdvanceReservation own = admitted.own();
        Tres tres = admitted.tres();
        long duration = job.timeLimitSeconds();
        long end = Math.addExact(now, duration);
        // What it must fit before: its limit, or with backfill on predictions its predicted end.
        long fit = policy.predictBackfill() ? Math.addExact(now, job.runEstimate()) : end;
        PendingReason reason = null;
        boolean switchWait = false;
        for (Shape shape : admitted.candidates()) {
            int p = shape.partition();
            if (blocked[p] && !policy.backfill()) {
                reason = reason == null ? PendingReason.PRIORITY : reason;
                continue;
            }
            // A job that names nodes fails for its own reasons: failures of other jobs say nothing of it.
            // A job with --time-min fails for sure only where even its shortest limit failed.
            long shortest = shortestLimit(job, duration);
            PendingReason known = own == null && !shape.restricted()
                    ? failed.known(shape, Math.min(shortest, fit - now)) : null;
            if (known != null) {
                reason = worse(reason, known);
                blocked[p] = true;
                continue;
            }
            ResourceProfile.Fit fitted = profile.fitNow(shape, own, end, fit);
            long until = end;
            long holdUntil = fit;
            PendingReason why = fitted.why();
            if (!fitted.fits() && shortest < duration) {
                long limitFits = longestFitting(own, shape, shortest, duration);
                if (limitFits > 0) {
                    until = Math.addExact(now, limitFits);
                    holdUntil = Math.min(fit, until);
                    fitted = profile.fitNow(shape, own, until, holdUntil);
                }
            }
            if (fitted.fits()) {
                int[] chosen = fitted.nodes();
                Shape placed = shape;
                Tres charged = tres;
                Shape more = grown(job, shape, until, fitted.usable());
                if (more != null) {
                    ResourceProfile.Fit wider = profile.fitNow(more, own, until, holdUntil);
                    if (wider.fits()) {
                        placed = more;
                        chosen = wider.nodes();
                        charged = tresOf(more);
                    }
                }
                if (waitsForSwitches(job, placed, chosen)) {
                    // It could start now, on more leaf switches than it asked for: it waits, holding nothing.
                    switchWait = true;
                    continue;
                }
                Start started = start(job, placed, chosen, until, holdUntil, blocked[p], e.priority());
                if (quotas.active()) {
                    // Placed: now the GPU types are known, so typed guarantees count exactly.
                    long[] need = quotas.need(started.allocation());
                    int kind = quotas.classify(job.account(), need);
                    PendingReason refused = quotas.refusal(job.account(), need, kind);
                    if (refused != null) {
                        profile.giveBack(started.allocation(), holdUntil);
                        return new Attempt(null, null, waiting(job, refused, e.priority()), reason, switchWait);
                    }
                    quotas.charge(job.id(), job.account(), need, kind);
                }
                return new Attempt(started, charged, null, reason, switchWait);
            }
            if (own == null && !shape.restricted()) {
                failed.remember(shape, fit - now, why);
            }
            reason = worse(reason, why);
            blocked[p] = true;
        }
        return new Attempt(null, null, null, reason, switchWait);
    }

    /**
     * Phase 3b for a job on MIG instances or shards: it starts now on the first node of its partitions
     * (highest tier first) that has them free, or waits for resources, reserving nothing (see {@link SharedGpus}).
     */
    private void startShared(PendingJob job, List<Shape> candidates, AdvanceReservation own, Priority priority,
            List<Start> starts, List<Waiting> waiting) {
        long end = Math.addExact(now, job.timeLimitSeconds());
        Request r = job.request();
        PendingReason reason = null;
        for (Shape shape : candidates) {
            int p = shape.partition();
            if (blocked[p] && !policy.backfill()) {
                reason = worse(reason, PendingReason.PRIORITY);
                continue;
            }
            NodeAllocation alloc = profile.takeShared(shape, r, own, end);
            if (alloc != null) {
                started(job, new Start(job.id(), c.parts[p].name(), now, end, List.of(alloc), blocked[p], priority),
                        Tres.of(List.of(alloc)), starts);
                return;
            }
            reason = worse(reason, shape.required().length > 0 ? PendingReason.REQ_NODE_NOT_AVAIL
                    : PendingReason.RESOURCES);
            blocked[p] = true;
        }
        waiting.add(waiting(job, reason == null ? PendingReason.RESOURCES : reason, priority));
    }


    /**
     * Phase 3d: starts {@code job} now by stopping running jobs {@link PreemptRules} lets it stop, in each
     * group of its candidate shapes the rules give in turn, until one makes room (null: none does).
     */
    private Preempting preempt(PendingJob job, Qos qos, List<Shape> candidates, long end, Priority priority) {
        for (List<Shape> shapes : rules.attempts(qos, candidates)) {
            Preempting preempting = preemptIn(job, qos, shapes, end, priority);
            if (preempting != null) {
                return preempting;
            }
        }
        return null;
    }

    /**
     * Phase 3d in one group of shapes: stops the jobs the rules allow in their order (QOS: the
     * youngest first) until it fits, then as few as possible (see {@link #pickVictims}). A job that ran
     * less than its QOS's exempt time is never chosen. Jobs already told to stop (in their grace time)
     * count as gone: more are chosen only if they are not enough. When a victim's QOS gives it a grace
     * time (and they are not suspended) the job does not start now: it waits for its victims to end
     * ({@link PendingReason#RESOURCES}),
     * their resources held meanwhile so that nothing else takes them. Null, with nothing changed, when
     * even all of them would not make room.
     */
    private Preempting preemptIn(PendingJob job, Qos qos, List<Shape> candidates, long end, Priority priority) {
        List<RunningJob> pool = new ArrayList<>();
        List<RunningJob> going = new ArrayList<>();
        for (RunningJob r : snapshot.running()) {
            if (preempted.contains(r.id()) || !profile.holds(r.id())) {
                continue;
            }
            if (!rules.mayStop(qos, candidates, r)) {
                continue;
            }
            if (quotas.stopping(r.id())) {
                going.add(r);
            } else if (!rules.exempt(r)
                    && (!quotas.active() || quotas.member(r.account()).equals(quotas.member(job.account())))) {
                // With guarantees, QOS preemption acts within what the job's own account may use.
                pool.add(r);
            }
        }
        if (pool.isEmpty() && going.isEmpty()) {
            return null;
        }
        going.forEach(this::release);
        // Victims already going may be enough; with none, the picker starts from the youngest victim at once.
        Shape fit = going.isEmpty() ? null : fittingShape(candidates, end);
        List<RunningJob> taken = new ArrayList<>();
        if (fit == null && !pool.isEmpty()) {
            pool.sort(rules.order());
            Victims victims = pickVictims(pool, candidates, end);
            taken = victims.taken();
            fit = victims.fit();
        }
        ResourceProfile.Fit nodes = fit == null ? null : profile.fitNow(fit, null, end, end);
        if (nodes == null || !nodes.fits()) {
            going.forEach(this::rehold);
            taken.forEach(this::rehold);
            return null;
        }
        boolean graced = !going.isEmpty();
        for (RunningJob victim : taken) {
            Preemption.Mode mode = rules.mode(qos, victim);
            preempted.add(victim.id());
            preemptions.add(new Preemption(victim.id(), job.id(), mode, false, rules.cause(candidates, victim)));
            // A suspended job is frozen at once, as Slurm's GraceTime does not apply to SUSPEND.
            graced |= mode != Preemption.Mode.SUSPEND && rules.graceSeconds(victim) > 0;
        }
        if (graced) {
            // Its victims hold their resources until they really end: nothing else gets them this cycle.
            going.forEach(this::rehold);
            taken.forEach(this::rehold);
            return new Preempting(null, waiting(job, PendingReason.RESOURCES, priority));
        }
        return new Preempting(start(job, fit, nodes.nodes(), end, end, blocked[fit.partition()], priority), null);
    }

    /**
     * Phase 3c: a job of an account under its guarantee that cannot start because others borrow the
     * guarantee (issue 16): counts the jobs already told to stop as gone; if that is not enough, chooses more
     * of the jobs borrowing across the boundary of the account whose guarantee it runs within (at
     * one of its ancestors, from outside its sub-tree) that ran the minimum run time (youngest
     * first, the least run time lost, then as few as possible) and plans to stop them. The job
     * itself waits (reason {@link PendingReason#QUOTA_RECLAIM}) until they end: after their grace
     * time, in a later cycle.
     * Null when the job is not under its guarantee, or stopping every borrower would not make room.
     */
    private Waiting reclaim(PendingJob job, List<Shape> candidates, long end, Priority priority) {
        long[] asked = quotas.requested(job.request());
        if (!quotas.underGuarantee(job.account(), asked)) {
            return null;
        }
        List<RunningJob> going = new ArrayList<>();
        List<RunningJob> pool = new ArrayList<>();
        boolean tooYoung = false;
        for (RunningJob r : snapshot.running()) {
            if (preempted.contains(r.id()) || !profile.holds(r.id())) {
                continue;
            }
            if (quotas.stopping(r.id())) {
                going.add(r);
            } else if (quotas.borrowsFrom(r, job.account(), asked)) {
                if (quotas.ranMinimum(r, now)) {
                    pool.add(r);
                } else {
                    tooYoung = true;
                }
            }
        }
        if (going.isEmpty() && pool.isEmpty()) {
            return tooYoung ? waiting(job, PendingReason.QUOTA_RECLAIM, priority) : null;
        }
        going.forEach(this::release);
        Shape fit = fittingShape(candidates, end);
        List<RunningJob> taken = new ArrayList<>();
        if (fit == null) {
            // The nearest borrowers first (on the guarantee the job runs within, then higher up), then the youngest.
            Map<JobId, Integer> distance = new HashMap<>();
            pool.forEach(r -> distance.put(r.id(), quotas.borrowDistance(r, job.account(), asked)));
            pool.sort(Comparator.comparingInt((RunningJob r) -> distance.get(r.id()))
                    .thenComparing(Comparator.comparingLong(RunningJob::startTime).reversed())
                    .thenComparing(RunningJob::id, Comparator.reverseOrder()));
            Victims victims = pickVictims(pool, candidates, end);
            fit = victims.fit();
            taken = victims.taken();
        }
        // The victims hold their resources until they really end: nothing else gets them this cycle.
        going.forEach(this::rehold);
        taken.forEach(this::rehold);
        if (fit == null) {
            return tooYoung || !going.isEmpty() ? waiting(job, PendingReason.QUOTA_RECLAIM, priority) : null;
        }
        for (RunningJob victim : taken) {
            preempted.add(victim.id());
            preemptions.add(new Preemption(victim.id(), job.id(), Preemption.Mode.REQUEUE, true));
        }
        return waiting(job, PendingReason.QUOTA_RECLAIM, priority);
    }

    /**
     * The one victim picker of preemption and reclaim: gives back what the jobs of {@code pool} hold,
     * in its order, until one of the candidate shapes fits now; then keeps running every victim the
     * job fits without, in the order they were taken, so that as few as possible stop. The victims
     * taken stay given back: the caller holds them again when they keep their resources this cycle.
     */
    private Victims pickVictims(List<RunningJob> pool, List<Shape> candidates, long end) {
        List<RunningJob> taken = new ArrayList<>();
        Shape fit = null;
        for (RunningJob victim : pool) {
            release(victim);
            taken.add(victim);
            fit = fittingShape(candidates, end);
            if (fit != null) {
                break;
            }
        }
        if (fit != null) {
            for (int k = 0; k < taken.size() && taken.size() > 1; k++) {
                RunningJob victim = taken.get(k);
                rehold(victim);
                if (fittingShape(List.of(fit), end) != null) {
                    taken.remove(k);
                    k--;
                } else {
                    release(victim);
                }
            }
        }
        return new Victims(fit, taken);
    }

    private Shape fittingShape(List<Shape> candidates, long end) {
        for (Shape shape : candidates) {
            if (profile.fitNow(shape, null, end, end).fits()) {
                return shape;
            }
        }
        return null;
    }

    private void release(RunningJob victim) {
        profile.release(victim.id());
    }

    private void rehold(RunningJob victim) {
        profile.rehold(victim.id());
    }

    /** The shortest time limit the job accepts: its --time-min when that is below its limit. */
    private static long shortestLimit(PendingJob job, long duration) {
        long min = job.request().timeMinSeconds();
        return min > 0 && min < duration ? min : duration;
    }

    /**
     * The longest limit from {@code shortest} up to (not including) {@code duration} with which the
     * shape fits now, or 0 when even the shortest does not (Slurm's --time-min). Fitting is monotone
     * in the limit (a shorter run overlaps fewer reservations), so a binary search finds it.
     */
    private long longestFitting(AdvanceReservation own, Shape shape, long shortest, long duration) {
        if (!profile.fitNow(shape, own, Math.addExact(now, shortest), Math.addExact(now, shortest)).fits()) {
            return 0;
        }
        long lo = shortest;
        long hi = duration - 1;
        while (lo < hi) {
            long mid = lo + (hi - lo + 1) / 2;
            if (profile.fitNow(shape, own, Math.addExact(now, mid), Math.addExact(now, mid)).fits()) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * For a job of {@code -N min-max} that just fit on its minimum: the shape on as many nodes as are
     * usable now ({@code usable}, besides its nodelist), up to its maximum (and no more nodes than
     * tasks when it asked for more tasks than its minimum; with one task per node it gets one task on
     * each node it gets), within its limits; null when it cannot grow. Each node's share only shrinks
     * as the count grows, so the nodes usable for the minimum are usable for this.
     */
    private Shape grown(PendingJob job, Shape shape, long until, int usable) {
        Request r = job.request();
        if (r.maxNodes() <= shape.nodes() || shape.restricted()) {
            return null;
        }
        int most = Math.min(r.maxNodes(), usable + shape.required().length);
        if (r.tasks() > shape.nodes()) {
            // More tasks than nodes were asked for: every node needs one.
            most = Math.min(most, r.tasks());
        }
        if (most <= shape.nodes()) {
            return null;
        }
        Shape more = Shape.of(r.toBuilder().nodes(most).build(), c.parts[shape.partition()], c);
        Tres tres = tresOf(more);
        String partition = c.parts[shape.partition()].name();
        if (limits.perJob(job.qos(), partition, Math.subtractExact(until, now), tres) != null
                || limits.check(job, partition, Math.subtractExact(until, now), tres, perNode(more)) != null
                || budgets.check(job, tres, partition) != null) {
            return null;
        }
        return more;
    }

    /**
     * Whether a job that asked for at most N leaf switches should keep waiting rather than start on
     * {@code chosen}: they span more, and it has waited less than its switch wait since it became
     * eligible (Slurm's --switches=N@max-time).
     */
    private boolean waitsForSwitches(PendingJob job, Shape shape, int[] chosen) {
        if (shape.switches() == 0 || Placement.leavesSpanned(c, chosen) <= shape.switches()) {
            return false;
        }
        long waited = now - job.eligibleFrom();
        return waited < job.request().switchWaitSeconds();
    }

    /**
     * RESOURCES says more than PRIORITY: the job would not fit even if nothing were reserved; a node
     * the job named being unavailable says more than both.
     */
    private static PendingReason worse(PendingReason a, PendingReason b) {
        if (a == null) {
            return b;
        }
        if (a == PendingReason.RESERVED_FOR_MAINTENANCE || b == PendingReason.RESERVED_FOR_MAINTENANCE) {
            return PendingReason.RESERVED_FOR_MAINTENANCE;
        }
        if (a == PendingReason.REQ_NODE_NOT_AVAIL || b == PendingReason.REQ_NODE_NOT_AVAIL) {
            return PendingReason.REQ_NODE_NOT_AVAIL;
        }
        return a == PendingReason.RESOURCES || b == PendingReason.RESOURCES ? PendingReason.RESOURCES : a;
    }

    /** The most a shape holds on one node (its nodes field: 1). */
    private static Tres perNode(Shape s) {
        return new Tres(s.cpusPerNode(), s.memPerNode(), s.gpusPerNode(), 1);
    }

    private Tres tresOf(Shape s) {
        long cpus = Math.multiplyExact((long) s.tasks(), s.cpusPerTask());
        return new Tres(cpus, Math.multiplyExact(s.memPerNode(), s.nodes()), s.totalGpus(), s.nodes());
    }

    /** Starts the job on {@code chosen} with a limit up to {@code end}, held in the profile until {@code holdUntil}. */
    private Start start(PendingJob job, Shape s, int[] chosen, long end, long holdUntil, boolean backfilled,
            Priority priority) {
        return new Start(job.id(), c.parts[s.partition()].name(), now, end, profile.take(s, chosen, end, holdUntil),
                backfilled, priority);
    }

    /**
     * Phase 3e: reserves the earliest start among the job's partitions that still take reservations
     * (starving jobs, and those selected by their slowdown, always do).
     */
    private Waiting reserve(PendingJob job, List<Shape> candidates, long duration, PendingReason reason,
            Priority priority, boolean starving) {
        long bestStart = Long.MAX_VALUE;
        ResourceProfile.Slot best = null;
        for (Shape s : candidates) {
            if (reservations[s.partition()] >= policy.reservationDepth() && !starving) {
                continue;
            }
            ResourceProfile.Slot slot = profile.earliest(s, duration);
            if (slot != null && slot.start() < bestStart) {
                bestStart = slot.start();
                best = slot;
            }
        }
        if (best == null) {
            return null;
        }
        reservations[best.shape().partition()]++;
        List<String> names = profile.hold(best, duration);
        return new Waiting(job.id(), reason == null ? PendingReason.RESOURCES : reason, OptionalLong.of(bestStart),
                c.parts[best.shape().partition()].name(), names, priority);
    }

    private static Waiting waiting(PendingJob job, PendingReason reason, Priority priority) {
        return new Waiting(job.id(), reason, OptionalLong.empty(), null, List.of(), priority);
    }
}
