package io.gantry.noded.protocol;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How the key-value exchange of an {@code srun --mpi=pmi2} step travels between its nodes' agents: each
 * agent serves the PMI wire protocol to its own tasks; when all of them entered a fence (PMI's barrier)
 * it sends what they put since the last one to the controller as a step report of type
 * {@code PMI_FENCE} ({@code seq} the fence's number from 0, {@code procId} its first task, {@code data}
 * the pairs as {@link #encode} writes them); once every node of the step sent its part, the controller
 * sends all of them merged to each node as a {@code PMI_FENCE} command ({@code step.nodeId} the fence's
 * number, {@code step.environment} the pairs), and the agents let their tasks out of the fence. A task
 * that aborts (PMI's abort, or its end before PMI's finalize) is a {@code PMI_ABORT} report
 * ({@code exitCode} the abort's code when it gave one): the controller kills the step on every node.
 */
public final class PmiProtocol {

    /** The MPI types srun takes ({@code --mpi}, and the controller's {@code gantry.steps.mpi-default}). */
    public static final String NONE = "none";
    public static final String PMI2 = "pmi2";
    /**
     * What a step's tasks may put into the key-value space, keys and values together, on a node and
     * in one fence over all nodes: MPICH puts a few hundred bytes a rank (tens of thousands of ranks fit),
     * and a node's part stays well inside the controller's request size ({@code gantry.api.max-request-bytes},
     * 16 MB); past this the step is aborted with a message that says so.
     */
    public static final long MAX_KVS_BYTES = 8L * 1024 * 1024;

    private PmiProtocol() {
    }

    /** Key-value pairs as one text: each key and each value on a line of its own (PMI's keys and values hold no newline). */
    public static String encode(Map<String, String> pairs) {
        StringBuilder out = new StringBuilder();
        pairs.forEach((k, v) -> out.append(k).append('\n').append(v).append('\n'));
        return out.toString();
    }

    /** The pairs {@link #encode} wrote; a last key without its value is left out. */
    public static Map<String, String> decode(String data) {
        Map<String, String> pairs = new LinkedHashMap<>();
        if (data == null || data.isEmpty()) {
            return pairs;
        }
        String[] lines = data.split("\n", -1);
        for (int i = 0; i + 1 < lines.length; i += 2) {
            pairs.put(lines[i], lines[i + 1]);
        }
        return pairs;
    }

    /** What the pairs weigh against {@link #MAX_KVS_BYTES}: their characters. */
    public static long bytes(Map<String, String> pairs) {
        long bytes = 0;
        for (Map.Entry<String, String> e : pairs.entrySet()) {
            bytes += e.getKey().length() + (e.getValue() == null ? 0 : e.getValue().length());
        }
        return bytes;
    }
}
