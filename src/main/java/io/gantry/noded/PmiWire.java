package io.gantry.noded;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The PMI-1 wire protocol ("simple" PMI) as MPICH's client library speaks it over its socket: one
 * command a line, {@code cmd=NAME key=value ...}, words split at spaces and each at its first
 * {@code =} (a value may hold more); the answers are lines of the same form. Debian's MPICH 4.0
 * (libmpich12, built with its default simple PMI) speaks only this version; it finds the server in
 * {@code PMI_PORT} ({@code host:port}) and names itself with {@code PMI_ID} in its first line,
 * {@code cmd=initack pmiid=N}.
 */
final class PmiWire {

    /** MPICH's PMIU_MAXLINE: no line it sends or reads is longer. */
    static final int MAX_LINE = 1024;
    /**
     * What {@code get_maxes} answers, as MPICH's own hydra does: the client cuts the value length so
     * that a whole {@code put} line fits in {@link #MAX_LINE}.
     */
    static final int KVSNAME_MAX = 256;
    static final int KEYLEN_MAX = 64;
    static final int VALLEN_MAX = 1024;

    private PmiWire() {
    }

    /** A command line's words in order ({@code cmd} first); a word without {@code =} maps to "". */
    static Map<String, String> parse(String line) {
        Map<String, String> words = new LinkedHashMap<>();
        for (String word : line.strip().split("[ \t]+")) {
            if (word.isEmpty()) {
                continue;
            }
            int eq = word.indexOf('=');
            if (eq < 0) {
                words.putIfAbsent(word, "");
            } else {
                words.putIfAbsent(word.substring(0, eq), word.substring(eq + 1));
            }
        }
        return words;
    }

    /** An answer line: {@code cmd=NAME} and the pairs, each {@code key=value}, ending in a newline. */
    static String answer(String cmd, String... pairs) {
        StringBuilder line = new StringBuilder("cmd=").append(cmd);
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            line.append(' ').append(pairs[i]).append('=').append(pairs[i + 1]);
        }
        return line.append('\n').toString();
    }

    /**
     * MPICH's {@code PMI_process_mapping} for a step laid out in blocks: {@code (vector,(first node,
     * nodes, tasks a node),...)}, one triple for each run of nodes with the same task count, so
     * MPICH knows which ranks share a node. {@code perNode} is the step's tasks on each node in order.
     */
    static String processMapping(int[] perNode) {
        StringBuilder mapping = new StringBuilder("(vector");
        int i = 0;
        while (i < perNode.length) {
            int j = i;
            while (j + 1 < perNode.length && perNode[j + 1] == perNode[i]) {
                j++;
            }
            mapping.append(",(").append(i).append(',').append(j - i + 1).append(',').append(perNode[i]).append(')');
            i = j + 1;
        }
        return mapping.append(')').toString();
    }

    /**
     * The tasks on each node from Slurm's compressed count ({@code 2(x3),1} is 2,2,2,1), as
     * {@code SLURM_STEP_TASKS_PER_NODE} has it; null when it is not one.
     */
    static int[] tasksPerNode(String compressed) {
        if (compressed == null || compressed.isBlank()) {
            return null;
        }
        java.util.List<Integer> counts = new java.util.ArrayList<>();
        try {
            for (String part : compressed.strip().split(",")) {
                int paren = part.indexOf("(x");
                if (paren < 0) {
                    counts.add(Integer.parseInt(part));
                } else {
                    int count = Integer.parseInt(part.substring(0, paren));
                    int times = Integer.parseInt(part.substring(paren + 2, part.length() - 1));
                    if (times < 1 || times > 1_000_000) {
                        return null;
                    }
                    for (int t = 0; t < times; t++) {
                        counts.add(count);
                    }
                }
            }
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            return null;
        }
        return counts.stream().mapToInt(Integer::intValue).toArray();
    }
}
