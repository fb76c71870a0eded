package io.gantry.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The properties every plan must have, checked independently of the engine's own bookkeeping.
 * Throws AssertionError naming the first broken one.
 */
final class Invariants {

    private Invariants() {
    }

    /** One job's claim on one node over [from, to). */
    private record Claim(String what, long from, long to, long cpus, long mem, long gpus) {
    }

    static void check(Snapshot s, Plan plan) {
        checkAdvanceReservations(s, plan);
        Map<String, Node> nodes = new HashMap<>();
        s.nodes().forEach(n -> nodes.put(n.name(), n));
        Map<String, Partition> parts = new HashMap<>();
        s.partitions().forEach(p -> parts.put(p.name(), p));
        Map<JobId, PendingJob> pending = new HashMap<>();
        s.pending().forEach(j -> pending.put(j.id(), j));
        Cluster cluster = new Cluster(s.nodes(), s.partitions(), s.switches());

        Set<JobId> seen = new HashSet<>();
        Map<String, List<Claim>> claims = new HashMap<>();
        Map<String, Set<Integer>> gpusTaken = new HashMap<>();
        // Preempted jobs stop now: their resources are free for the jobs that preempted them.
        Set<JobId> victims = new HashSet<>();
        Map<String, Qos> qosByName = new HashMap<>();
        s.qos().forEach(q -> qosByName.put(q.name(), q));
        Set<JobId> startedNow = new HashSet<>();
        plan.starts().forEach(st -> startedNow.add(st.job()));
        for (Preemption p : plan.preemptions()) {
            RunningJob victim = s.running().stream().filter(r -> r.id().equals(p.victim())).findFirst().orElse(null);
            require(victim != null, "preempted a job that is not running: " + p.victim());
            require(victims.add(p.victim()), "preempted twice: " + p.victim());
            require(startedNow.contains(p.by()), "preempted for a job that did not start: " + p.by());
            Qos byQos = qosByName.get(s.pending().stream().filter(j -> j.id().equals(p.by())).findFirst().orElseThrow()
                    .qos());
            // Partition preemption (preempt/partition_prio) is checked by PartitionPreemptionTests.
            require(s.preemptType() != Preemption.Type.QOS || byQos != null && byQos.preempts().contains(victim.qos()),
                    "preempted a QOS not on the list");
            require(s.preemptType() != Preemption.Type.NONE, "preempted under preempt/none");
        }
        for (RunningJob r : s.running()) {
            if (victims.contains(r.id())) {
                continue;
            }
            for (NodeAllocation a : r.allocation()) {
                claim(claims, a.node(), new Claim("running " + r.id(), s.now(),
                        Math.max(r.plannedEnd(s.now(), s.policy().predictRunning()), s.now() + 1),
                        a.cpus(), a.memoryMb(), a.gpus()));
                for (int g : a.gpuIndices()) {
                    require(gpusTaken.computeIfAbsent(a.node(), k -> new HashSet<>()).add(g),
                            "snapshot gives GPU twice");
                }
            }
        }
        for (Start st : plan.starts()) {
            require(seen.add(st.job()), "job started twice or also waiting: " + st.job());
            PendingJob job = pending.get(st.job());
            require(job != null, "started a job that is not pending: " + st.job());
            require(job.heldBy() == null || job.heldBy() == PendingReason.NONE, "started a held job " + st.job());
            require(job.eligibleFrom() <= s.now(), "started before eligible: " + st.job());
            require(job.partitions().contains(st.partition()), "started in a partition it did not ask for");
            Partition part = parts.get(st.partition());
            require(part.up() && part.allows(job.timeLimitSeconds()), "partition down or time limit over max");
            long limit = st.expectedEnd() - st.startTime();
            long timeMin = job.request().timeMinSeconds();
            require(st.startTime() == s.now() && (limit == job.timeLimitSeconds()
                    || (timeMin > 0 && timeMin <= limit && limit < job.timeLimitSeconds())),
                    "times: a run of " + limit + " s for a limit of " + job.timeLimitSeconds() + " (time-min " + timeMin + ")");
            Shape shape = Shape.of(job.request(), cluster.partsByName.get(st.partition()), cluster);
            int most = Math.max(shape.nodes(), job.request().maxNodes());
            require(st.allocation().size() >= shape.nodes() && st.allocation().size() <= most, "node count "
                    + st.allocation().size() + " not in " + shape.nodes() + "-" + most + " for " + st.job());
            if (st.allocation().size() != shape.nodes()) {
                // -N min-max: laid out for the count it got.
                shape = Shape.of(job.request().toBuilder().nodes(st.allocation().size()).build(),
                        cluster.partsByName.get(st.partition()), cluster);
            }
            // Backfill on predictions holds a job until its guess; anything else until its limit.
            long heldUntil = s.policy().predictBackfill()
                    ? Math.min(st.expectedEnd(), st.startTime() + job.runEstimate()) : st.expectedEnd();
            Set<String> distinct = new HashSet<>();
            long cpus = 0;
            long gpus = 0;
            for (NodeAllocation a : st.allocation()) {
                require(distinct.add(a.node()), "node twice in one allocation");
                Node n = nodes.get(a.node());
                require(n != null && n.state() == NodeState.UP, "allocated a node that is not up: " + a.node());
                require(part.nodes().contains(a.node()), "node outside the partition");
                Request r = job.request();
                require(r.gpuType() == null || r.gpuType().equals(n.gpuType()), "wrong GPU type");
                require(r.constraint().matches(n.features()), "node lacks a feature");
                require(a.cpus() >= 1, "a node with no CPU");
                if (r.exclusive() || r.topoExclusive()) {
                    require(a.cpus() == n.cpus() && a.gpus() == n.gpus(), "exclusive job without the whole node");
                } else {
                    require(a.memoryMb() == r.memoryMb(), "memory per node");
                }
                for (int g : a.gpuIndices()) {
                    require(g >= 0 && g < n.gpus(), "GPU index out of range");
                    require(gpusTaken.computeIfAbsent(a.node(), k -> new HashSet<>()).add(g),
                            "GPU " + a.node() + ":" + g + " given twice");
                }
                cpus += a.cpus();
                gpus += a.gpus();
                claim(claims, a.node(), new Claim("start " + st.job(), st.startTime(), heldUntil, a.cpus(),
                        a.memoryMb(), a.gpus()));
            }
            checkNodeLists(job, st.nodeNames(), "started");
            if (!job.request().exclusive() && !job.request().topoExclusive()) {
                require(cpus == (long) shape.tasks() * shape.cpusPerTask(), "CPU total of " + st.job());
                require(gpus == shape.totalGpus(), "GPU total of " + st.job());
            }
        }
        for (Waiting w : plan.waiting()) {
            require(seen.add(w.job()), "job twice in the plan: " + w.job());
            require(w.reason() != null && w.reason() != PendingReason.NONE, "no reason for " + w.job());
            PendingJob job = pending.get(w.job());
            require(job != null, "unknown waiting job");
            if (w.reserved()) {
                long start = w.expectedStart().getAsLong();
                require(start >= s.now(), "reservation in the past");
                Shape shape = Shape.of(job.request(), cluster.partsByName.get(w.partition()), cluster);
                require(w.reservedNodes().size() == shape.nodes(), "reserved node count");
                checkNodeLists(job, w.reservedNodes(), "reserved");
                for (String name : w.reservedNodes()) {
                    int i = cluster.nodeIndex.get(name);
                    require(shape.candidates().get(i) && cluster.up.get(i), "reserved an unusable node");
                    claim(claims, name, new Claim("reservation " + w.job(), start, start + job.timeLimitSeconds(),
                            shape.needCpu(cluster, i), shape.needMem(cluster, i), shape.needGpu(cluster, i)));
                }
            }
        }
        require(seen.size() == s.pending().size(), "plan covers " + seen.size() + " of " + s.pending().size()
                + " pending jobs");

        // Starts (to their time limit), running jobs (to the end the engine plans for them: with
        // predictions, the predicted one while it lies ahead) and reservations together never need
        // more than a node has, at any moment: so nothing started (backfilled or not) can delay a
        // reservation, whatever the guesses of the started jobs.
        for (Map.Entry<String, List<Claim>> e : claims.entrySet()) {
            Node n = nodes.get(e.getKey());
            TreeSet<Long> points = new TreeSet<>();
            e.getValue().forEach(cl -> points.add(cl.from()));
            for (long t : points) {
                long cpu = 0;
                long mem = 0;
                long gpu = 0;
                List<String> who = new ArrayList<>();
                for (Claim cl : e.getValue()) {
                    if (cl.from() <= t && t < cl.to()) {
                        cpu += cl.cpus();
                        mem += cl.mem();
                        gpu += cl.gpus();
                        who.add(cl.what());
                    }
                }
                require(cpu <= n.cpus() && mem <= n.memoryMb() && gpu <= n.gpus(),
                        "node " + n.name() + " over capacity at " + t + ": " + who);
            }
        }
    }

    /** A job's nodes include every node of its nodelist and none it excludes. */
    private static void checkNodeLists(PendingJob job, List<String> nodes, String what) {
        Request r = job.request();
        if (r.exclude() != null) {
            for (String node : nodes) {
                require(!Hostlist.parse(r.exclude()).contains(node), job.id() + " " + what + " on excluded node "
                        + node);
            }
        }
        if (r.nodelist() != null) {
            require(nodes.containsAll(Hostlist.parse(r.nodelist()).hosts()), job.id() + " " + what + " on " + nodes
                    + " without every node of its nodelist " + r.nodelist());
        }
    }

    private static void claim(Map<String, List<Claim>> claims, String node, Claim c) {
        claims.computeIfAbsent(node, k -> new ArrayList<>()).add(c);
    }

    /** A job in a reservation runs only on its nodes, in its window; no other job overlaps it there. */
    private static void checkAdvanceReservations(Snapshot s, Plan plan) {
        Map<JobId, PendingJob> pending = new HashMap<>();
        s.pending().forEach(j -> pending.put(j.id(), j));
        for (Start start : plan.starts()) {
            PendingJob job = pending.get(start.job());
            for (AdvanceReservation r : s.reservations()) {
                boolean member = r.name().equals(job.reservation());
                if (member) {
                    require(r.start() <= s.now() && s.now() < r.end(), start.job() + " started outside its reservation's window");
                    require(r.nodes().containsAll(start.nodeNames()), start.job() + " left its reservation's nodes");
                } else if (r.overlaps(s.now(), start.expectedEnd())) {
                    for (String node : start.nodeNames()) {
                        require(!r.nodes().contains(node), start.job() + " started on " + node
                                + " that reservation " + r.name() + " holds during its run");
                    }
                }
            }
            if (job.reservation() != null) {
                require(s.reservations().stream().anyMatch(r -> r.name().equals(job.reservation())),
                        start.job() + " started in a reservation that does not exist");
            }
        }
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new AssertionError(message);
        }
    }
}
