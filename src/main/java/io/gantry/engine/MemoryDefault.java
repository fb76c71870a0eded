package io.gantry.engine;

/**
 * The memory a partition gives a job that asks for none, like Slurm's {@code DefMemPerCPU} and
 * {@code DefMemPerNode}: so much per allocated CPU, so much per node, or the whole of each node
 * (Slurm's behaviour when neither is set). {@link #NONE} accounts no memory at all, for clusters
 * that schedule by CPUs and GPUs only (the simulator, engine tests).
 */
public record MemoryDefault(long perCpuMb, long perNodeMb, boolean wholeNode) {

    public static final MemoryDefault NONE = new MemoryDefault(0, 0, false);

    public static final MemoryDefault WHOLE_NODE = new MemoryDefault(0, 0, true);

    public MemoryDefault {
        if (perCpuMb < 0 || perNodeMb < 0 || (perCpuMb > 0 ? 1 : 0) + (perNodeMb > 0 ? 1 : 0) + (wholeNode ? 1 : 0) > 1) {
            throw new IllegalArgumentException("a memory default is per CPU, per node or the whole node, not several: "
                    + "perCpuMb=" + perCpuMb + " perNodeMb=" + perNodeMb + " wholeNode=" + wholeNode);
        }
    }

    public static MemoryDefault perCpu(long megabytes) {
        return new MemoryDefault(megabytes, 0, false);
    }

    public static MemoryDefault perNode(long megabytes) {
        return new MemoryDefault(0, megabytes, false);
    }

    /** Memory per node for a job that holds {@code cpusOnNode} CPUs there; 0 for the whole node (see {@link #wholeNode}). */
    long onNode(int cpusOnNode) {
        return perCpuMb > 0 ? Math.multiplyExact(perCpuMb, (long) cpusOnNode) : perNodeMb;
    }
}
