package io.gantry.engine;

import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * A request laid out on one partition: how many nodes and what each must hold. Totals are kept
 * so that the allocation hands out exactly the tasks and GPUs asked for (the per-node figures
 * are the ceilings, used to choose nodes).
 *
 * @param memPerNode the memory asked for per node, else the partition's default for this shape's CPUs
 * @param wholeMemory a job that asked for no memory in a partition without a default: it gets all of
 *                    each node's memory, as in Slurm
 * @param match      the partition's nodes with the right GPU type and features, any state
 * @param nodesAsked whether the user asked for the node count (else the engine derived it)
 * @param required   the nodes the allocation must include (sorted node indices; empty for none)
 * @param excluded   the nodes it must not use (sorted node indices; empty for none)
 * @param missing    nodes the nodelist names that the cluster does not have
 * @param switches   the most leaf switches the job wants (0: any number)
 * @param segment    nodes per group that must share a block (0: none; the node count or more: one block)
 * @param topo       {@code --exclusive=topo}: whole nodes, and the blocks they are in to itself
 * @param topoOneBlock a topo job that fits in one block of the partition (so it must get exactly one)
 */
record Shape(int partition, int nodes, int cpusPerNode, long memPerNode, boolean wholeMemory, int gpusPerNode,
        int tasks, int cpusPerTask, int totalGpus, boolean exclusive, boolean oneBlock, Cluster.PartMatch match,
        boolean nodesAsked, int[] required, int[] excluded, List<String> missing, int switches, int segment,
        boolean topo, boolean topoOneBlock) {

    static Shape of(Request r, Cluster.Part part, Cluster cluster) {
        Cluster.PartMatch match = cluster.partMatch(part, r.gpuType(), r.constraint());
        int maxCpus = match.maxCpus();
        int maxGpus = match.maxGpus();
        int n = r.nodes();
        if (n == 0) {
            int byGpus = r.gpus() == 0 ? 1 : ceilDiv(r.gpus(), Math.max(1, maxGpus));
            int tasksPerNode = maxCpus / r.cpusPerTask();
            int byCpus = tasksPerNode == 0 ? r.tasks() : ceilDiv(r.tasks(), tasksPerNode);
            n = Math.max(1, Math.max(byGpus, byCpus));
        }
        Cluster.Hosts required = cluster.hosts(r.nodelist());
        Cluster.Hosts excluded = cluster.hosts(r.exclude());
        // As in Slurm, every listed node is in the allocation, so there are at least as many nodes.
        n = Math.max(n, required.indices().length + required.unknown().size());
        int tasks = Math.max(r.tasks(), n);
        int cpn = Math.multiplyExact(ceilDiv(tasks, n), r.cpusPerTask());
        int gpn = r.gpusPerNode() > 0 ? r.gpusPerNode() : ceilDiv(r.gpus(), n);
        int totalGpus = r.gpusPerNode() > 0 ? Math.multiplyExact(r.gpusPerNode(), n) : r.gpus();
        boolean asked = r.memoryMb() > 0;
        long mem = asked ? r.memoryMb() : part.memoryDefault().onNode(cpn);
        boolean wholeMemory = !asked && part.memoryDefault().wholeNode();
        // Where the partition's nodes are in no block, --exclusive=topo has no block to give: whole nodes.
        int largest = r.topoExclusive() ? largestBlock(cluster, match, cpn, mem, gpn) : 0;
        boolean topo = largest > 0;
        boolean topoOneBlock = topo && largest >= n;
        return new Shape(part.index(), n, cpn, mem, wholeMemory, gpn, tasks, r.cpusPerTask(), totalGpus,
                r.exclusive() || r.topoExclusive(), r.oneBlock(), match, r.nodes() > 0, required.indices(), excluded.indices(),
                required.unknown(), r.switches(), r.segment(), topo, topoOneBlock);
    }

    /** The most nodes of one block (of the match) big enough for a node's share. */
    private static int largestBlock(Cluster c, Cluster.PartMatch match, int cpn, long mem, int gpn) {
        int best = 0;
        for (int[] perClass : match.blockAll()) {
            int n = 0;
            for (int ci = 0; ci < c.classCount; ci++) {
                if (c.classCpus[ci] >= cpn && c.classMem[ci] >= mem && c.classGpus[ci] >= gpn) {
                    n += perClass[ci];
                }
            }
            best = Math.max(best, n);
        }
        return best;
    }

    /** Whether all of its nodes must share one block. */
    boolean inOneBlock() {
        return oneBlock || segment >= nodes || topoOneBlock;
    }

    /** Whether its nodes must come in groups that each share a block. */
    boolean segmented() {
        return segment > 0 && segment < nodes;
    }

    /** Whether the request names nodes to include or to avoid. */
    boolean restricted() {
        return required.length > 0 || excluded.length > 0 || !missing.isEmpty();
    }

    boolean excludes(int i) {
        return excluded.length > 0 && Arrays.binarySearch(excluded, i) >= 0;
    }

    boolean requires(int i) {
        return required.length > 0 && Arrays.binarySearch(required, i) >= 0;
    }

    /** How many nodes beyond the required ones the allocation needs. */
    int others() {
        return nodes - required.length;
    }

    BitSet candidates() {
        return match.nodes();
    }

    /** Whether nodes of class {@code ci} are big enough for one node's share. */
    boolean capableClass(Cluster c, int ci) {
        return c.classCpus[ci] >= cpusPerNode && c.classMem[ci] >= memPerNode && c.classGpus[ci] >= gpusPerNode;
    }

    /** Whether node {@code i} is big enough for one node's share, if it were empty. */
    boolean capable(Cluster c, int i) {
        return c.cpus[i] >= cpusPerNode && c.mem[i] >= memPerNode && c.gpus[i] >= gpusPerNode;
    }

    int needCpu(Cluster c, int i) {
        return exclusive ? c.cpus[i] : cpusPerNode;
    }

    long needMem(Cluster c, int i) {
        return exclusive || wholeMemory ? c.mem[i] : memPerNode;
    }

    int needGpu(Cluster c, int i) {
        return exclusive ? c.gpus[i] : gpusPerNode;
    }

    /** CPUs and GPUs the {@code k}-th chosen node gets, so that the totals come out exact. */
    int cpusOn(int k) {
        return (tasks / nodes + (k < tasks % nodes ? 1 : 0)) * cpusPerTask;
    }

    int gpusOn(int k) {
        return totalGpus / nodes + (k < totalGpus % nodes ? 1 : 0);
    }

    /** Whether every node this shape needs is at least what {@code smaller} needs, with the same node filter. */
    boolean dominates(Shape smaller) {
        return match == smaller.match && !restricted() && !smaller.restricted() && exclusive == smaller.exclusive
                && oneBlock == smaller.oneBlock && switches == smaller.switches && segment == smaller.segment
                && topo == smaller.topo && topoOneBlock == smaller.topoOneBlock
                && wholeMemory == smaller.wholeMemory
                && nodes >= smaller.nodes && cpusPerNode >= smaller.cpusPerNode && memPerNode >= smaller.memPerNode
                && gpusPerNode >= smaller.gpusPerNode;
    }

    private static int ceilDiv(int a, int b) {
        return -Math.floorDiv(-a, b);
    }
}
