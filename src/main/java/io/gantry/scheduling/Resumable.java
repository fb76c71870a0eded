package io.gantry.scheduling;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.gantry.cluster.ClusterLayout;
import io.gantry.jobs.ActiveJob;
import io.gantry.jobs.JobAllocation;

/**
 * Which suspended jobs (PreemptMode SUSPEND) can resume now: those whose own CPUs, memory and GPUs (the
 * same GPU indices: their processes keep the devices they were given) are all free again of the jobs
 * that run, oldest suspended first, each one counted before the next is tried. Told to the engine as
 * running jobs in the cycle that resumes them, so that it plans nothing else on what they take back.
 */
final class Resumable {

    private Resumable() {
    }

    static List<ActiveJob> of(Collection<ActiveJob> suspended, Collection<ActiveJob> holding,
            Map<String, ClusterLayout.NodeSpec> nodes) {
        if (suspended.isEmpty()) {
            return List.of();
        }
        Map<String, long[]> used = new HashMap<>();
        Set<String> gpusUsed = new HashSet<>();
        for (ActiveJob job : holding) {
            take(job, used, gpusUsed);
        }
        List<ActiveJob> order = new ArrayList<>(suspended);
        order.sort(Comparator.comparing(ActiveJob::startTime, Comparator.nullsLast(Comparator.naturalOrder()))
                .thenComparingLong(ActiveJob::row));
        List<ActiveJob> resumable = new ArrayList<>();
        for (ActiveJob job : order) {
            if (fits(job, used, gpusUsed, nodes)) {
                take(job, used, gpusUsed);
                resumable.add(job);
            }
        }
        return resumable;
    }

    private static boolean fits(ActiveJob job, Map<String, long[]> used, Set<String> gpusUsed,
            Map<String, ClusterLayout.NodeSpec> nodes) {
        for (JobAllocation a : job.allocation()) {
            ClusterLayout.NodeSpec node = nodes.get(a.node());
            if (node == null) {
                return false;
            }
            long[] u = used.getOrDefault(a.node(), new long[2]);
            if (u[0] + a.cpus() > node.cpus() || u[1] + a.memoryMb() > node.memoryMb()) {
                return false;
            }
            for (int g : a.gpuIndices()) {
                if (gpusUsed.contains(a.node() + ":" + g)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static void take(ActiveJob job, Map<String, long[]> used, Set<String> gpusUsed) {
        for (JobAllocation a : job.allocation()) {
            long[] u = used.computeIfAbsent(a.node(), n -> new long[2]);
            u[0] += a.cpus();
            u[1] += a.memoryMb();
            for (int g : a.gpuIndices()) {
                gpusUsed.add(a.node() + ":" + g);
            }
        }
    }
}
