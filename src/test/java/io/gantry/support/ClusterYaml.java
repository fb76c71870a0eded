package io.gantry.support;

/** Cluster files (additional Spring configuration) that several integration tests run on. */
public final class ClusterYaml {

    private ClusterYaml() {
    }

    /**
     * Cluster {@code name} of two nodes with {@code cpus} CPUs and {@code memoryMb} MB each: {@code node1},
     * run by a real agent, alone in partition {@code batch} (the default, and where joining agents go) and
     * in switch {@code leaf1} and block {@code block1}; {@code sim1}, simulated, in partition {@code sim}.
     * Jobs get 10 minutes and 100 MB a CPU by default. Agents join with {@code joinToken}, a job's processes
     * are killed 2 s after their signal, and the bootstrap admin (no Unix account) runs its jobs as whoever
     * runs the tests. {@code extraAgentSettings}: more lines under {@code gantry.agents}, such as
     * {@code "poll-wait: 1s"}.
     */
    public static String oneRealAndOneSimulatedNode(String name, int cpus, long memoryMb, String joinToken,
            String... extraAgentSettings) {
        StringBuilder extra = new StringBuilder();
        for (String setting : extraAgentSettings) {
            extra.append("    ").append(setting).append('\n');
        }
        return """
                gantry:
                  cluster:
                    name: %1$s
                    nodes:
                      - names: node1
                        cpus: %2$d
                        memory-mb: %3$d
                        simulated: false
                      - names: sim1
                        cpus: %2$d
                        memory-mb: %3$d
                        simulated: true
                    partitions:
                      - name: batch
                        nodes: node1
                        default: true
                        default-time: "10:00"
                        default-mem-per-cpu: 100
                      - name: sim
                        nodes: sim1
                        default-time: "10:00"
                        default-mem-per-cpu: 100
                    # named so that the demo cluster's switches and blocks are replaced, not merged in
                    switches:
                      - name: leaf1
                        nodes: node1
                    blocks:
                      - name: block1
                        nodes: node1
                  agents:
                    join-token: %4$s
                    default-partitions: [batch]
                    kill-wait: 2s
                """.formatted(name, cpus, memoryMb, joinToken) + adminRunsJobsAsTester() + extra;
    }

    /**
     * The start of a cluster file: cluster {@code name} of {@code node1} and {@code node2}, run by agents, each
     * with {@code cpus} CPUs, 4000 MB and two GPUs of type {@code test}, in partition {@code batch} (the
     * default; jobs get 10 minutes and, unless {@code defaultMemPerCpu} is 0, that many MB a CPU by default),
     * switch {@code leaf1} and block {@code block1}. The test adds its {@code gantry.agents} section.
     */
    public static String twoGpuNodes(String name, int cpus, int defaultMemPerCpu) {
        return """
                gantry:
                  cluster:
                    name: %s
                    nodes:
                      - names: node[1-2]
                        cpus: %d
                        memory-mb: 4000
                        gpus: 2
                        gpu-type: test
                        simulated: false
                    partitions:
                      - name: batch
                        nodes: node[1-2]
                        default: true
                        default-time: "10:00"
                """.formatted(name, cpus)
                + (defaultMemPerCpu == 0 ? "" : "        default-mem-per-cpu: " + defaultMemPerCpu + "\n") + """
                    switches:
                      - name: leaf1
                        nodes: node[1-2]
                    blocks:
                      - name: block1
                        nodes: node[1-2]
                """;
    }

    /**
     * Lines of a {@code gantry.agents} section: the bootstrap admin has no Unix account, so its jobs run as
     * whoever runs the tests.
     */
    public static String adminRunsJobsAsTester() {
        return """
                    allow-root-jobs: true
                    user-map:
                      admin: "%s"
                """.formatted(System.getProperty("user.name"));
    }
}
