package io.gantry.accounting;

import io.gantry.engine.Tres;

/**
 * What a job held in all, read from the {@code jobs.allocation} column ({@code node:cpus:memMb:g0.g1;...},
 * one entry per node; see {@code io.gantry.jobs.JobAllocation}). Summed here rather than decoded into
 * objects because sacct reads it for every row of a possibly million-row export.
 */
record SacctAllocation(Tres tres) {

    static final SacctAllocation NONE = new SacctAllocation(Tres.ZERO);

    static SacctAllocation parse(String text) {
        if (text == null || text.isEmpty()) {
            return NONE;
        }
        long cpus = 0;
        long memoryMb = 0;
        long gpus = 0;
        long nodes = 0;
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
                cpus = Math.addExact(cpus, Long.parseLong(text, c1 + 1, c2, 10));
                memoryMb = Math.addExact(memoryMb, Long.parseLong(text, c2 + 1, c3, 10));
                if (c3 + 1 < end) {
                    gpus++;
                    for (int i = c3 + 1; i < end; i++) {
                        if (text.charAt(i) == '.') {
                            gpus++;
                        }
                    }
                }
                nodes++;
            }
            from = end + 1;
        }
        return new SacctAllocation(new Tres(cpus, memoryMb, gpus, nodes));
    }

    boolean isEmpty() {
        return tres.isZero();
    }

    /** Slurm's AllocTRES, e.g. {@code cpu=64,mem=256G,gres/gpu=8,node=1}; null when nothing was allocated. */
    String allocTres() {
        return isEmpty() ? null : tres.toString();
    }
}
