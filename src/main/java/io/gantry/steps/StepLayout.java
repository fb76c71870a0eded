package io.gantry.steps;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.gantry.noded.protocol.PmiProtocol;
import io.gantry.noded.protocol.StepProtocol.StepRequest;
import io.gantry.engine.Hostlist;
import io.gantry.engine.HostlistException;
import io.gantry.jobs.JobAllocation;

/**
 * Where a step's tasks go inside its job's allocation, as Slurm 22.05 lays out a step: the job's nodes
 * (or those of {@code -w}), as many as {@code -N} asks or the tasks need; tasks in block distribution
 * (consecutive ranks share a node, the first nodes take one more when they do not divide evenly, no
 * node over what its CPUs and GPUs hold); GPUs of {@code --gpus-per-task} each task its own. Pure: the
 * allocation and what running steps hold come in as values.
 */
final class StepLayout {

    /** What a running step holds on one node: CPUs, and GPU indices out of the job's. */
    record Hold(int cpus, Set<Integer> gpus) {

        Hold {
            gpus = Set.copyOf(gpus);
        }
    }

    /**
     * One node's share: {@code tasks} of the step, {@code taskGpus} each task's own GPUs (null: tasks see
     * the job's GPUs on the node), {@code gpus} the GPUs the step's tasks see here, {@code hold} what it
     * holds of the node while it runs.
     */
    record Share(String node, int tasks, List<List<Integer>> taskGpus, List<Integer> gpus, Hold hold) {
    }

    record Plan(List<Share> shares, int tasks, int cpusPerTask, List<String> warnings) {

        List<String> nodes() {
            return shares.stream().map(Share::node).toList();
        }
    }

    /** The allocation cannot hold the step ({@code busy} false, Slurm's error), or not now ({@code busy} true: retry). */
    static final class Refused extends RuntimeException {

        private final boolean busy;

        Refused(String message, boolean busy) {
            super(message);
            this.busy = busy;
        }

        boolean busy() {
            return busy;
        }
    }

    private StepLayout() {
    }

    static Plan plan(String jobId, List<JobAllocation> allocation, int jobCpusPerTask, StepRequest r,
            Map<String, Hold> held) {
        if (r.mpi() != null) {
            mpi(r.mpi());
        }
        String cannot = "srun: error: Unable to create step for job " + jobId + ": ";
        List<JobAllocation> candidates = candidates(allocation, r.nodelist(), cannot);
        int c = r.cpusPerTask() != null ? r.cpusPerTask() : Math.max(1, jobCpusPerTask);
        int gpt = r.gpusPerTask() == null ? 0 : r.gpusPerTask();
        int gpn = r.gpusPerNode() == null ? 0 : r.gpusPerNode();
        List<String> warnings = new ArrayList<>();

        int max = candidates.size();
        int named = r.nodelist() == null || r.nodelist().isBlank() ? 0 : candidates.size();
        Integer nodes = r.nodes();
        if (nodes != null && nodes > allocation.size()) {
            throw new Refused("srun: error: Only allocated " + allocation.size() + " nodes asked for " + nodes, false);
        }
        if (nodes != null && nodes > max) {
            throw new Refused(cannot + "Requested node configuration is not available", false);
        }
        int n;
        if (r.ntasks() != null) {
            n = r.ntasks();
        } else if (r.ntasksPerNode() != null) {
            n = (nodes != null ? nodes : max) * r.ntasksPerNode();
        } else {
            n = nodes != null ? nodes : max;
        }
        int count;
        if (nodes != null) {
            count = nodes;
        } else if (r.ntasksPerNode() != null) {
            count = Math.min(max, ceilDiv(n, r.ntasksPerNode()));
        } else {
            count = Math.min(max, n);
        }
        count = Math.max(count, Math.min(named, n));
        if (n < count) {
            warnings.add("srun: Warning: can't run " + n + " processes on " + count + " nodes, setting nnodes to " + n);
            count = n;
        }
        long totalCpus = candidates.stream().mapToLong(JobAllocation::cpus).sum();
        if ((long) n * c > totalCpus) {
            throw new Refused(cannot + "More processors requested than permitted", false);
        }
        for (JobAllocation a : candidates) {
            if (gpn > a.gpuIndices().size()) {
                throw new Refused(cannot + "Invalid generic resource (gres) specification", false);
            }
        }
        // First: can the allocation hold it at all? Then: can it now, beside the running steps?
        int[] whole = distribute(candidates, count, n, c, gpt, r.ntasksPerNode(), named > 0, Map.of());
        if (whole == null) {
            throw new Refused(cannot + (gpt > 0 && fitsWithoutGpus(candidates, count, n, c, r.ntasksPerNode(), named > 0)
                    ? "Invalid generic resource (gres) specification" : "Requested node configuration is not available"),
                    false);
        }
        Map<String, Hold> busy = r.overlap() ? Map.of() : held;
        int[] now = distribute(candidates, count, n, c, gpt, r.ntasksPerNode(), named > 0, busy);
        if (now == null) {
            throw new Refused("srun: Job " + jobId + " step creation temporarily disabled, retrying "
                    + "(Requested nodes are busy)", true);
        }
        boolean exact = r.exact() || r.cpusPerTask() != null;
        List<Share> shares = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            if (now[i] == 0) {
                continue;
            }
            JobAllocation a = candidates.get(i);
            List<Integer> free = freeGpus(a, busy.get(a.node()));
            List<List<Integer>> taskGpus = null;
            List<Integer> gpus;
            if (gpt > 0) {
                taskGpus = new ArrayList<>();
                for (int t = 0; t < now[i]; t++) {
                    taskGpus.add(List.copyOf(free.subList(t * gpt, (t + 1) * gpt)));
                }
                gpus = List.copyOf(free.subList(0, now[i] * gpt));
            } else if (gpn > 0) {
                gpus = List.copyOf(free.subList(0, gpn));
                taskGpus = new ArrayList<>();
                for (int t = 0; t < now[i]; t++) {
                    taskGpus.add(gpus);
                }
            } else {
                gpus = a.gpuIndices();
            }
            Hold hold = r.overlap() ? new Hold(0, Set.of())
                    : new Hold(exact ? now[i] * c : a.cpus(), gpt > 0 || gpn > 0 ? new LinkedHashSet<>(gpus) : Set.of());
            shares.add(new Share(a.node(), now[i], taskGpus, gpus, hold));
        }
        return new Plan(shares, n, c, warnings);
    }

    /**
     * The MPI type a step runs with, as srun's {@code --mpi} (or the configured default) names it: {@code none},
     * or {@code pmi2} (the agents serve PMI to MPICH's tasks); OpenMPI's old {@code openmpi} is {@code none}, as
     * in Slurm. Anything else is refused with Slurm's message and what works instead.
     */
    static String mpi(String requested) {
        String mpi = requested == null ? "" : requested.trim().toLowerCase(Locale.ROOT);
        if (mpi.isEmpty() || mpi.equals(PmiProtocol.NONE) || mpi.equals("openmpi")) {
            return PmiProtocol.NONE;
        }
        if (mpi.equals(PmiProtocol.PMI2)) {
            return PmiProtocol.PMI2;
        }
        throw new Refused("srun: error: Invalid MPI type '" + requested + "', --mpi=list for acceptable types "
                + "(Gantry has none and pmi2: start OpenMPI programs with mpirun inside the allocation, MPICH "
                + "programs with srun --mpi=pmi2 or mpiexec)", false);
    }

    private static boolean fitsWithoutGpus(List<JobAllocation> candidates, int count, int n, int c, Integer perNode,
            boolean allNamed) {
        return distribute(candidates, count, n, c, 0, perNode, allNamed, Map.of()) != null;
    }

    private static List<JobAllocation> candidates(List<JobAllocation> allocation, String nodelist, String cannot) {
        if (nodelist == null || nodelist.isBlank()) {
            return allocation;
        }
        Set<String> named;
        try {
            // No step can name more nodes than a job may hold; more is refused before expanding.
            named = new LinkedHashSet<>(Hostlist.parse(nodelist.trim(), 65_536).hosts());
        } catch (HostlistException e) {
            throw new Refused("srun: error: Invalid node name specified: " + e.getMessage(), false);
        }
        Map<String, JobAllocation> byNode = new LinkedHashMap<>();
        allocation.forEach(a -> byNode.put(a.node(), a));
        if (!byNode.keySet().containsAll(named)) {
            throw new Refused(cannot + "Requested node configuration is not available", false);
        }
        return allocation.stream().filter(a -> named.contains(a.node())).toList();
    }

    /**
     * Tasks per candidate node (0 for a node the step leaves out), or null when they do not fit. The
     * step takes the first {@code count} nodes that can run a task of it (all of them when the nodes
     * were named), gives each {@code n / count} tasks and the first ones one more, then moves what a
     * node cannot hold to the next nodes that can.
     */
    static int[] distribute(List<JobAllocation> candidates, int count, int n, int c, int gpt, Integer perNode,
            boolean allNamed, Map<String, Hold> held) {
        int[] capacity = new int[candidates.size()];
        for (int i = 0; i < candidates.size(); i++) {
            JobAllocation a = candidates.get(i);
            Hold h = held.get(a.node());
            int cpus = a.cpus() - (h == null ? 0 : h.cpus());
            int cap = Math.max(0, cpus) / c;
            if (gpt > 0) {
                cap = Math.min(cap, freeGpus(a, h).size() / gpt);
            }
            if (perNode != null) {
                cap = Math.min(cap, perNode);
            }
            capacity[i] = cap;
        }
        List<Integer> chosen = new ArrayList<>();
        for (int i = 0; i < candidates.size() && chosen.size() < count; i++) {
            if (capacity[i] > 0) {
                chosen.add(i);
            } else if (allNamed) {
                return null;
            }
        }
        if (chosen.size() < count) {
            return null;
        }
        int[] tasks = new int[candidates.size()];
        int base = n / count;
        int extra = n % count;
        int spill = 0;
        for (int k = 0; k < chosen.size(); k++) {
            int i = chosen.get(k);
            int want = base + (k < extra ? 1 : 0);
            tasks[i] = Math.min(want, capacity[i]);
            spill += want - tasks[i];
        }
        for (int k = 0; k < chosen.size() && spill > 0; k++) {
            int i = chosen.get(k);
            int more = Math.min(spill, capacity[i] - tasks[i]);
            tasks[i] += more;
            spill -= more;
        }
        if (spill > 0) {
            return null;
        }
        for (int i : chosen) {
            if (tasks[i] == 0) {
                return null;
            }
        }
        return tasks;
    }

    private static List<Integer> freeGpus(JobAllocation a, Hold h) {
        if (h == null || h.gpus().isEmpty()) {
            return a.gpuIndices();
        }
        return a.gpuIndices().stream().filter(g -> !h.gpus().contains(g)).toList();
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }
}
