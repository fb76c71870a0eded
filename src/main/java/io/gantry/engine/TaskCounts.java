package io.gantry.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * Per-node counts as Slurm 22.05 writes them into a job's environment, and how it spreads a batch
 * job's tasks over its nodes. OpenMPI's {@code mpirun} and other launchers read
 * {@code SLURM_TASKS_PER_NODE} and {@code SLURM_JOB_CPUS_PER_NODE} in exactly this form.
 */
public final class TaskCounts {

    private TaskCounts() {
    }

    /**
     * Counts in node order with runs of equal counts compressed, as Slurm's
     * {@code uint32_compressed_to_str}: {@code [2,2]} is {@code 2(x2)}, {@code [4,4,2]} is {@code 4(x2),2}.
     */
    public static String compressed(List<Integer> counts) {
        StringBuilder text = new StringBuilder();
        int i = 0;
        while (i < counts.size()) {
            int j = i;
            while (j < counts.size() && counts.get(j).equals(counts.get(i))) {
                j++;
            }
            if (!text.isEmpty()) {
                text.append(',');
            }
            text.append(counts.get(i));
            if (j - i > 1) {
                text.append("(x").append(j - i).append(')');
            }
            i = j;
        }
        return text.toString();
    }

    /**
     * How many of a batch job's {@code tasks} each node holds, as Slurm's block layout gives the batch
     * step's {@code SLURM_TASKS_PER_NODE}: every node one task while its CPUs allow, then each node in
     * order filled up to its CPUs ({@code cpus / cpusPerTask} tasks), then what is left spread over all
     * nodes in turn. {@code tasks} 0 or less means one task per CPU group, as Slurm when no
     * {@code --ntasks} was given.
     */
    public static List<Integer> blockLayout(List<Integer> cpusPerNode, int tasks, int cpusPerTask) {
        int perTask = Math.max(1, cpusPerTask);
        int nodes = cpusPerNode.size();
        int[] capacity = new int[nodes];
        int all = 0;
        for (int i = 0; i < nodes; i++) {
            capacity[i] = Math.max(0, cpusPerNode.get(i)) / perTask;
            all += capacity[i];
        }
        int total = tasks > 0 ? tasks : Math.max(all, nodes);
        int[] counts = new int[nodes];
        int placed = 0;
        for (int i = 0; i < nodes && placed < total; i++) {
            if (counts[i] < capacity[i]) {
                counts[i]++;
                placed++;
            }
        }
        for (int i = 0; i < nodes && placed < total; i++) {
            int more = Math.min(capacity[i] - counts[i], total - placed);
            counts[i] += more;
            placed += more;
        }
        while (placed < total && nodes > 0) {
            for (int i = 0; i < nodes && placed < total; i++) {
                counts[i]++;
                placed++;
            }
        }
        List<Integer> out = new ArrayList<>(nodes);
        for (int c : counts) {
            out.add(c);
        }
        return out;
    }
}
