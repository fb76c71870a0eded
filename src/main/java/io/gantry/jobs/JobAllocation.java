package io.gantry.jobs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import io.swagger.v3.oas.annotations.media.Schema;

/** What a running job holds on one node. Stored compactly as {@code node:cpus:mem:g0.g1;...}. */
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
        for (String part : text.split(";")) {
            String[] f = part.split(":", -1);
            List<Integer> gpus = f[3].isEmpty() ? List.of()
                    : Arrays.stream(f[3].split("\\.")).map(Integer::valueOf).toList();
            allocations.add(new JobAllocation(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), gpus));
        }
        return allocations;
    }
}
