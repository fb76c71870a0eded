package io.gantry.engine;

/**
 * A job's TRES priority factors (Slurm's PriorityWeightTRES): for each TRES, what it asks over its
 * partition's total, in [0,1], before weighting.
 */
public record TresFactors(double cpu, double mem, double gpu, double node) {

    public static final TresFactors NONE = new TresFactors(0, 0, 0, 0);

    /** The weighted sum these add to the priority. */
    public double weighted(TresPriorityWeights w) {
        return w.cpu() * cpu + w.mem() * mem + w.gpu() * gpu + w.node() * node;
    }

    /** As sprio's TRES column prints them: each weighted value, rounded, zero ones left out. */
    public String text(TresPriorityWeights w) {
        StringBuilder sb = new StringBuilder();
        String[] names = { "cpu", "mem", "node", "gres/gpu" };
        double[] v = { w.cpu() * cpu, w.mem() * mem, w.node() * node, w.gpu() * gpu };
        for (int i = 0; i < v.length; i++) {
            long r = Math.round(v[i]);
            if (r != 0) {
                sb.append(sb.length() == 0 ? "" : ",").append(names[i]).append('=').append(r);
            }
        }
        return sb.toString();
    }
}
