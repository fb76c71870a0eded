package io.gantry.jobs;

import static io.gantry.jobs.SubmissionDraft.first;

import io.gantry.engine.Constraint;
import io.gantry.engine.Request;

/**
 * The steps of a submission that settle its resource shape: nodes and tasks, GPUs, CPUs, memory,
 * shards and MIG instances, segments, constraints and exclusivity. Each reads the JSON and the
 * directives from the {@link SubmissionDraft}, sets what it settles there, and adds a field error
 * for every value that is wrong.
 */
final class SubmissionShape {

    /** Marks a product of user numbers too large for a long. */
    static final long OVERFLOW = Long.MIN_VALUE;

    private SubmissionShape() {
    }

    /** {@code -N}, {@code -N min-max}, {@code --ntasks-per-node} and {@code -n}. */
    static void nodesAndTasks(SubmissionDraft d) {
        JobSubmission json = d.json;
        SbatchOptions directives = d.directives;
        d.minNodes = positiveOrZero("nodes", first(json.nodes(), directives.nodes(), 0), d);
        d.maxNodes = first(json.maxNodes(), directives.maxNodes(), null);
        if (d.maxNodes != null && d.maxNodes < Math.max(d.minNodes, 1)) {
            d.error("maxNodes", "must be at least nodes (" + d.minNodes + "), was " + d.maxNodes);
        }
        d.ntasksPerNode = first(json.ntasksPerNode(), directives.ntasksPerNode(), null);
        if (d.ntasksPerNode != null && d.ntasksPerNode < 1) {
            d.error("ntasksPerNode", "must be at least 1, was " + d.ntasksPerNode);
        }
        Integer tasksGiven = first(json.tasks(), directives.tasks(), null);
        d.tasks = tasksGiven != null ? tasksGiven
                : d.ntasksPerNode != null ? intProduct("ntasksPerNode", Math.max(d.minNodes, 1), d.ntasksPerNode, d)
                : Math.max(d.minNodes, 1);
        if (d.tasks < 1) {
            d.error("tasks", "must be at least 1, was " + d.tasks);
        }
    }

    /** {@code -G}, {@code --gres}/{@code --gpus-per-node} and {@code --gpus-per-task}, and the GPU type. */
    static void gpus(SubmissionDraft d) {
        JobSubmission json = d.json;
        SbatchOptions directives = d.directives;
        d.gpus = positiveOrZero("gpus", first(json.gpus(), directives.gpus(), 0), d);
        d.gpusPerNode = positiveOrZero("gpusPerNode", first(json.gpusPerNode(), directives.gpusPerNode(), 0), d);
        Integer gpusPerTask = first(json.gpusPerTask(), directives.gpusPerTask(), null);
        if (gpusPerTask != null) {
            if (gpusPerTask < 1) {
                d.error("gpusPerTask", "must be at least 1, was " + gpusPerTask);
            } else if (d.gpus == 0 && d.gpusPerNode == 0) {
                d.gpus = intProduct("gpusPerTask", gpusPerTask, Math.max(d.tasks, 1), d);
            }
        }
        if (d.gpus > 0 && d.gpusPerNode > 0) {
            d.error("gpus", "ask for GPUs in total (gpus, -G) or per node (gpusPerNode, --gres), not both");
        }
        d.gpuType = first(json.gpuType(), directives.gpuType(), null);
    }

    /** {@code -c}, raised by {@code --cpus-per-gpu} to what the job's GPUs need per task. */
    static void cpus(SubmissionDraft d) {
        d.cpusPerTask = first(d.json.cpusPerTask(), d.directives.cpusPerTask(), 1);
        Integer cpusPerGpu = first(d.json.cpusPerGpu(), d.directives.cpusPerGpu(), null);
        if (cpusPerGpu != null && cpusPerGpu > 0 && (d.gpus > 0 || d.gpusPerNode > 0) && d.tasks > 0) {
            long perTask = Math.max(d.cpusPerTask, ceilDiv(cpusPerGpu * d.gpuTotal(), d.tasks));
            if (perTask > Integer.MAX_VALUE) {
                d.error("cpusPerGpu", "asks for " + perTask + " CPUs per task; at most " + Integer.MAX_VALUE);
            } else {
                d.cpusPerTask = (int) perTask;
            }
        }
        if (d.cpusPerTask < 1) {
            d.error("cpusPerTask", "must be at least 1, was " + d.cpusPerTask);
        }
    }

    /** Memory per node from {@code --mem}, {@code --mem-per-cpu} or {@code --mem-per-gpu} (one of them). */
    static void memory(SubmissionDraft d) {
        d.memoryMb = memoryPerNode(d);
    }

    private static long memoryPerNode(SubmissionDraft d) {
        Long perNode = first(d.json.memoryMb(), d.directives.memoryMb(), null);
        Long perCpu = first(d.json.memPerCpuMb(), d.directives.memPerCpuMb(), null);
        Long perGpu = first(d.json.memPerGpuMb(), d.directives.memPerGpuMb(), null);
        int given = (perNode != null ? 1 : 0) + (perCpu != null ? 1 : 0) + (perGpu != null ? 1 : 0);
        if (given > 1) {
            d.error("memoryMb", "give memory one way: per node (--mem), per CPU (--mem-per-cpu) "
                    + "or per GPU (--mem-per-gpu)");
            return 0;
        }
        int nodes = Math.max(d.minNodes, 1);
        long tasksPerNode = d.ntasksPerNode != null ? d.ntasksPerNode : ceilDiv(d.tasks, nodes);
        long memory;
        if (perCpu != null) {
            memory = product(perCpu, tasksPerNode * d.cpusPerTask);
        } else if (perGpu != null) {
            long gpusPerNodeNow = d.gpusPerNode > 0 ? d.gpusPerNode : ceilDiv(d.gpus, nodes);
            memory = product(perGpu, Math.max(gpusPerNodeNow, 1));
        } else {
            memory = perNode == null ? 0 : perNode;
        }
        String field = perCpu != null ? "memPerCpuMb" : perGpu != null ? "memPerGpuMb" : "memoryMb";
        if (memory == OVERFLOW) {
            d.error(field, "asks for more memory than can be counted (over " + Long.MAX_VALUE + " MB per node)");
            return 0;
        }
        if (memory < 0) {
            d.error(field, "must be 0 or more, was " + memory);
            return 0;
        }
        if (product(memory, nodes) == OVERFLOW) {
            d.error(field, memory + " MB on each of " + nodes + " nodes is more memory than can be counted");
            return 0;
        }
        return memory;
    }

    /** {@code -C}: features the job's nodes must have, checked as the engine will read them. */
    static void constraints(SubmissionDraft d) {
        d.constraints = first(d.json.constraints(), d.directives.constraints(), null);
        if (d.constraints != null) {
            try {
                Constraint.parse(d.constraints);
            } catch (IllegalArgumentException e) {
                d.error("constraints", e.getMessage());
            }
        }
    }

    /** {@code --exclusive} and {@code --exclusive=user|mcs|topo}. */
    static void exclusive(SubmissionDraft d) {
        JobSubmission json = d.json;
        d.exclusiveMode = first(json.exclusiveMode(), d.directives.exclusiveMode(), null);
        if (json.exclusiveMode() != null && !ExclusiveMode.NAMES.contains(json.exclusiveMode())) {
            d.error("exclusiveMode", "must be user, mcs or topo (as --exclusive=user|mcs|topo), was '"
                    + json.exclusiveMode() + "'");
            d.exclusiveMode = null;
        }
        if (json.exclusiveMode() != null && Boolean.FALSE.equals(json.exclusive())) {
            d.error("exclusive", "is false, but exclusiveMode '" + json.exclusiveMode()
                    + "' asks for an exclusive job; leave exclusive out or set it true");
        }
        d.exclusive = first(json.exclusive(), d.directives.exclusive(), false) || d.exclusiveMode != null;
    }

    /**
     * The shards asked for (null for none), checked with a MIG request against the rest: shards and MIG
     * instances are one node's (Slurm's --gres is per node; Gantry gives them to one-node jobs only), and
     * exclude whole GPUs and each other.
     */
    static void sharedGpus(SubmissionDraft d) {
        d.shards = sharedGpus(d, d.gpuType);
    }

    private static Integer sharedGpus(SubmissionDraft d, String gpuType) {
        Integer shards = first(d.json.shards(), d.directives.shards(), null);
        String shardField = d.fieldOf("shards", d.json.shards());
        boolean mig = Request.isMigProfile(gpuType);
        if (shards != null && (shards < 1 || shards > io.gantry.engine.Node.MAX_SHARDS_PER_GPU)) {
            d.error(shardField, "must be 1 to " + io.gantry.engine.Node.MAX_SHARDS_PER_GPU
                    + " (as --gres=shard:N), was " + shards);
            return null;
        }
        if (shards != null && (d.gpus > 0 || d.gpusPerNode > 0)) {
            d.error(shardField, "ask for GPU shards or " + (mig ? "MIG instances" : "whole GPUs") + ", not both");
            return null;
        }
        if (shards == null && !mig) {
            return null;
        }
        String field = shards != null ? shardField : "gpuType";
        String what = shards != null ? "GPU shards" : "MIG instances (" + gpuType + ")";
        if (mig && d.gpus == 0 && d.gpusPerNode == 0) {
            d.error("gpuType", "names MIG profile " + gpuType + " but asks for no GPU; write "
                    + "--gres=gpu:" + gpuType + ":N");
        } else if (d.minNodes > 1 || (d.maxNodes != null && d.maxNodes > 1)) {
            d.error(field, what + " are for a job on one node; this one asks for "
                    + Math.max(d.minNodes, d.maxNodes == null ? 0 : d.maxNodes) + " nodes");
        } else if (d.exclusive) {
            d.error(field, what + " share a node's GPUs; they do not go with --exclusive");
        }
        return shards;
    }

    /** {@code --segment}: a divisor of the node count. */
    static void segment(SubmissionDraft d) {
        d.segment = first(d.json.segment(), d.directives.segment(), null);
        if (d.segment != null && (d.segment < 1 || d.minNodes < 1 || d.minNodes % d.segment != 0)) {
            d.error(d.fieldOf("segment", d.json.segment()), d.minNodes < 1
                    ? "needs a node count (-N) that is a multiple of it, and none was given"
                    : "must be at least 1 and divide the node count (" + d.minNodes + "), was " + d.segment);
            d.segment = null;
        }
    }

    private static int positiveOrZero(String field, int value, SubmissionDraft d) {
        if (value < 0) {
            d.error(field, "must be 0 or more, was " + value);
            return 0;
        }
        return value;
    }

    /** {@code a * b}, or {@link #OVERFLOW}. */
    static long product(long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            return OVERFLOW;
        }
    }

    /** {@code a * b} as an int; when it overflows, an error naming {@code field} and 1 in its place. */
    private static int intProduct(String field, int a, int b, SubmissionDraft d) {
        long product = (long) a * b;
        if (product > Integer.MAX_VALUE || product < Integer.MIN_VALUE) {
            d.error(field, a + " times " + b + " is " + product + "; at most " + Integer.MAX_VALUE);
            return 1;
        }
        return (int) product;
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
