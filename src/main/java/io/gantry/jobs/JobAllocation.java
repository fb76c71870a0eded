package io.gantry.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.gantry.engine.Tres;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * What a running job holds on one node. Stored compactly as {@code node:cpus:mem:g0.g1;...}, one entry
 * per node, in the {@code jobs.allocation} column; an entry on shared GPUs adds
 * {@code :m0.m1:gpu.shards:millis} (its MIG instances, the GPU its shards are on with how many, and what
 * they are worth in thousandths of a GPU). This record
 * is the one codec of that text: jobs decode it into records, and what only needs the sums (sacct, fair
 * share, utilization) gets them from {@link #totals(String)} without building a record per node.
 */
@Schema(name = "JobAllocation")
public record JobAllocation(String node, int cpus, long memoryMb, List<Integer> gpuIndices,
        @Schema(description = "The MIG instances it holds, as indices into the node's migInstances; empty for none")
        List<Integer> migIndices,
        @Schema(description = "The GPU index its shards are on; null when it holds no shards") Integer shardGpu,
        @Schema(description = "How many shards of that GPU it holds; 0 for none") int shards,
        @Schema(description = "What its MIG instances and shards are worth, in thousandths of a whole GPU (a "
                + "1g.10gb instance 143, 2 of a GPU's 8 shards 250): the GPUs accounting charges it for")
        int gpuMillis) {

    public JobAllocation {
        gpuIndices = List.copyOf(gpuIndices);
        migIndices = migIndices == null ? List.of() : List.copyOf(migIndices);
    }

    /** An allocation of whole GPUs only. */
    public JobAllocation(String node, int cpus, long memoryMb, List<Integer> gpuIndices) {
        this(node, cpus, memoryMb, gpuIndices, List.of(), null, 0, 0);
    }

    /** An allocation on shared GPUs, worth {@code gpuMillis} thousandths of a GPU. */
    public JobAllocation(String node, int cpus, long memoryMb, List<Integer> gpuIndices, List<Integer> migIndices,
            Integer shardGpu, int shards) {
        this(node, cpus, memoryMb, gpuIndices, migIndices, shardGpu, shards, 0);
    }

    /** Whether it holds MIG instances or shards. */
    public boolean sharesGpus() {
        return !migIndices.isEmpty() || shards > 0;
    }

    /** What this allocation takes from its node, as the cluster counts it. */
    public io.gantry.cluster.ClusterService.NodeUse use() {
        return new io.gantry.cluster.ClusterService.NodeUse(node, cpus, memoryMb, gpuIndices.size());
    }

    static String encode(List<JobAllocation> allocations) {
        return allocations.stream()
                .map(a -> a.node + ":" + a.cpus + ":" + a.memoryMb + ":" + dotted(a.gpuIndices)
                        + (a.sharesGpus() ? ":" + dotted(a.migIndices) + ":"
                                + (a.shards > 0 ? a.shardGpu + "." + a.shards : "") + ":" + a.gpuMillis : ""))
                .collect(Collectors.joining(";"));
    }

    private static String dotted(List<Integer> indices) {
        return indices.stream().map(String::valueOf).collect(Collectors.joining("."));
    }

    private static List<Integer> indices(String text, int from, int end) {
        List<Integer> out = new ArrayList<>();
        while (from < end) {
            int dot = text.indexOf('.', from);
            int to = dot < 0 || dot > end ? end : dot;
            out.add(Integer.parseInt(text, from, to, 10));
            from = to + 1;
        }
        return out;
    }

    static List<JobAllocation> decode(String text) {
        if (text == null || text.isEmpty()) {
            return List.of();
        }
        List<JobAllocation> allocations = new ArrayList<>();
        scan(text, (entryFrom, nodeEnd, cpus, memoryMb, gpusFrom, gpusEnd, entryEnd) -> {
            List<Integer> gpus = indices(text, gpusFrom, gpusEnd);
            List<Integer> mig = List.of();
            Integer shardGpu = null;
            int shards = 0;
            int millis = 0;
            if (gpusEnd < entryEnd) {
                int colon = text.indexOf(':', gpusEnd + 1);
                if (colon < 0 || colon > entryEnd) {
                    throw new IllegalArgumentException("not an allocation entry: " + text.substring(entryFrom, entryEnd));
                }
                mig = indices(text, gpusEnd + 1, colon);
                int last = text.indexOf(':', colon + 1);
                int shardEnd = last < 0 || last > entryEnd ? entryEnd : last;
                if (shardEnd < entryEnd) {
                    millis = Integer.parseInt(text, shardEnd + 1, entryEnd, 10);
                }
                List<Integer> shard = indices(text, colon + 1, shardEnd);
                if (shard.size() == 2) {
                    shardGpu = shard.get(0);
                    shards = shard.get(1);
                }
            }
            allocations.add(new JobAllocation(text.substring(entryFrom, nodeEnd), Math.toIntExact(cpus), memoryMb,
                    gpus, mig, shardGpu, shards, millis));
        });
        return allocations;
    }

    /**
     * What the allocation {@code text} holds in all: CPUs, memory and GPUs summed over its nodes, and the
     * number of nodes; {@link Tres#ZERO} for a job that holds nothing. Counts without decoding, as
     * sacct reads it for every row of a possibly million-row export. MIG instances and shards are no
     * whole GPUs and are not counted here.
     */
    public static Tres totals(String text) {
        if (text == null || text.isEmpty()) {
            return Tres.ZERO;
        }
        long[] sums = new long[4];
        scan(text, (entryFrom, nodeEnd, cpus, memoryMb, gpusFrom, gpusEnd, entryEnd) -> {
            sums[0] = Math.addExact(sums[0], cpus);
            sums[1] = Math.addExact(sums[1], memoryMb);
            if (gpusFrom < gpusEnd) {
                sums[2]++;
                for (int i = gpusFrom; i < gpusEnd; i++) {
                    if (text.charAt(i) == '.') {
                        sums[2]++;
                    }
                }
            }
            sums[3]++;
        });
        return new Tres(sums[0], sums[1], sums[2], sums[3]);
    }

    /**
     * The GPUs the shared devices of the allocation {@code text} are worth (its entries' gpuMillis, in
     * GPUs): what accounting charges beside {@link #totals}' whole GPUs.
     */
    public static double sharedGpus(String text) {
        if (text == null || text.isEmpty()) {
            return 0;
        }
        long[] millis = new long[1];
        scan(text, (entryFrom, nodeEnd, cpus, memoryMb, gpusFrom, gpusEnd, entryEnd) -> {
            if (gpusEnd < entryEnd) {
                int last = text.lastIndexOf(':', entryEnd - 1);
                int mig = text.indexOf(':', gpusEnd + 1);
                if (last > mig && mig > 0) {
                    millis[0] += Long.parseLong(text, last + 1, entryEnd, 10);
                }
            }
        });
        return millis[0] / 1000.0;
    }

    /**
     * One {@code node:cpus:mem:g0.g1[:m0.m1:gpu.shards:millis]} entry: the node name is [entryFrom, nodeEnd), the
     * GPU list [gpusFrom, gpusEnd); a shared entry goes on after gpusEnd up to entryEnd.
     */
    private interface Entry {
        void accept(int entryFrom, int nodeEnd, long cpus, long memoryMb, int gpusFrom, int gpusEnd, int entryEnd);
    }

    private static void scan(String text, Entry entry) {
        int from = 0;
        while (from <= text.length()) {
            int end = text.indexOf(';', from);
            if (end < 0) {
                end = text.length();
            }
            if (end > from) {
                int c1 = text.indexOf(':', from);
                int c2 = text.indexOf(':', c1 + 1);
                int c3 = text.indexOf(':', c2 + 1);
                if (c1 < 0 || c2 < 0 || c3 < 0 || c3 >= end) {
                    throw new IllegalArgumentException("not an allocation entry: " + text.substring(from, end));
                }
                int c4 = text.indexOf(':', c3 + 1);
                int gpusEnd = c4 < 0 || c4 > end ? end : c4;
                entry.accept(from, c1, Long.parseLong(text, c1 + 1, c2, 10), Long.parseLong(text, c2 + 1, c3, 10), c3 + 1,
                        gpusEnd, end);
            }
            from = end + 1;
        }
    }
}
