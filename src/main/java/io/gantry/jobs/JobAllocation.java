package io.gantry.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.gantry.engine.Tres;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * What a running job holds on one node. Stored compactly as {@code node:cpus:mem:g0.g1;...}, one entry
 * per node, in the {@code jobs.allocation} column; this record is the one codec of that text: jobs
 * decode it into records, and what only needs the sums (sacct, fair share, utilization) gets them from
 * {@link #totals(String)} without building a record per node.
 */
@Schema(name = "JobAllocation")
public record JobAllocation(String node, int cpus, long memoryMb, List<Integer> gpuIndices) {

    public JobAllocation {
        gpuIndices = List.copyOf(gpuIndices);
    }

    /** What this allocation takes from its node, as the cluster counts it. */
    public io.gantry.cluster.ClusterService.NodeUse use() {
        return new io.gantry.cluster.ClusterService.NodeUse(node, cpus, memoryMb, gpuIndices.size());
    }

    static String encode(List<JobAllocation> allocations) {
        return allocations.stream()
                .map(a -> a.node + ":" + a.cpus + ":" + a.memoryMb + ":"
                        + a.gpuIndices.stream().map(String::valueOf).collect(Collectors.joining(".")))
                .collect(Collectors.joining(";"));
    }

    static List<JobAllocation> decode(String text) {
        if (text == null || text.isEmpty()) {
            return List.of();
        }
        List<JobAllocation> allocations = new ArrayList<>();
        scan(text, (entryFrom, nodeEnd, cpus, memoryMb, gpusFrom, entryEnd) -> {
            List<Integer> gpus = new ArrayList<>();
            int from = gpusFrom;
            while (from < entryEnd) {
                int dot = text.indexOf('.', from);
                int to = dot < 0 || dot > entryEnd ? entryEnd : dot;
                gpus.add(Integer.parseInt(text, from, to, 10));
                from = to + 1;
            }
            allocations.add(new JobAllocation(text.substring(entryFrom, nodeEnd), Math.toIntExact(cpus), memoryMb,
                    gpus));
        });
        return allocations;
    }

    /**
     * What the allocation {@code text} holds in all: CPUs, memory and GPUs summed over its nodes, and the
     * number of nodes; {@link Tres#ZERO} for a job that holds nothing. Counts without decoding, as
     * sacct reads it for every row of a possibly million-row export.
     */
    public static Tres totals(String text) {
        if (text == null || text.isEmpty()) {
            return Tres.ZERO;
        }
        long[] sums = new long[4];
        scan(text, (entryFrom, nodeEnd, cpus, memoryMb, gpusFrom, entryEnd) -> {
            sums[0] = Math.addExact(sums[0], cpus);
            sums[1] = Math.addExact(sums[1], memoryMb);
            if (gpusFrom < entryEnd) {
                sums[2]++;
                for (int i = gpusFrom; i < entryEnd; i++) {
                    if (text.charAt(i) == '.') {
                        sums[2]++;
                    }
                }
            }
            sums[3]++;
        });
        return new Tres(sums[0], sums[1], sums[2], sums[3]);
    }

    /** One {@code node:cpus:mem:g0.g1} entry: the node name is [entryFrom, nodeEnd), the GPU list [gpusFrom, entryEnd). */
    private interface Entry {
        void accept(int entryFrom, int nodeEnd, long cpus, long memoryMb, int gpusFrom, int entryEnd);
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
                entry.accept(from, c1, Long.parseLong(text, c1 + 1, c2, 10), Long.parseLong(text, c2 + 1, c3, 10), c3 + 1,
                        end);
            }
            from = end + 1;
        }
    }
}
